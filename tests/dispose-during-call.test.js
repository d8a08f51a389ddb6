// A caller's getter that disposes the object during the call: every method of every class
// that reads caller objects must notice before it touches wasm memory (it once wrote
// parameters at a freed address, or ran the core on a null model), throw an Error saying so,
// and leave the module working with nothing leaked.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';

const attn = await init();
const DURING = /was disposed during the call/;

// A tensor whose `data` getter disposes `target` first.
const disposingTensor = (target, shape) => ({
  get data() {
    target.dispose();
    return new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(0.25);
  },
  shape,
});

const CASES = [
  [
    'MultiHeadAttention.forward',
    () => new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 1 }),
    (m) => m.forward(disposingTensor(m, [3, 8])),
  ],
  [
    'MultiHeadAttention.forward (options getter)',
    () => new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 1 }),
    (m) =>
      m.forward([[1, 0, 0, 0, 0, 0, 0, 0]], undefined, undefined, {
        get causal() {
          m.dispose();
          return true;
        },
      }),
  ],
  [
    'MultiHeadAttention.setWeights',
    () => new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 1 }),
    (m) => m.setWeights({ wq: disposingTensor(m, [8, 8]) }),
  ],
  [
    'TransformerEncoderLayer.forward',
    () => new attn.TransformerEncoderLayer({ dModel: 8, numHeads: 2, dFF: 16, seed: 1 }),
    (m) => m.forward(disposingTensor(m, [3, 8])),
  ],
  [
    'TransformerEncoderLayer.setWeights',
    () => new attn.TransformerEncoderLayer({ dModel: 8, numHeads: 2, dFF: 16, seed: 1 }),
    (m) => m.setWeights({ w1: disposingTensor(m, [8, 16]) }),
  ],
  ...['trainStep', 'evaluate', 'gradients'].map((method) => [
    `TinyTransformer.${method}`,
    () => new attn.TinyTransformer({ vocabSize: 6, maxLen: 4, dModel: 8, numHeads: 2, seed: 1 }),
    (m) =>
      m[method]({
        get tokens() {
          m.dispose();
          return [[1, 2, 3]];
        },
        targets: [[3, 2, 1]],
      }),
  ]),
  [
    'TinyTransformer.trainStep (options getter)',
    () => new attn.TinyTransformer({ vocabSize: 6, maxLen: 4, dModel: 8, numHeads: 2, seed: 1 }),
    (m) =>
      m.trainStep(
        { tokens: [[1, 2, 3]], targets: [[3, 2, 1]] },
        {
          get lr() {
            m.dispose();
            return 1e-3;
          },
        },
      ),
  ],
  [
    'TinyTransformer.forward',
    () => new attn.TinyTransformer({ vocabSize: 6, maxLen: 4, dModel: 8, numHeads: 2, seed: 1 }),
    (m) =>
      m.forward(
        Object.defineProperty([[0]], 0, {
          get() {
            m.dispose();
            return [1, 2, 3];
          },
        }),
      ),
  ],
  [
    'TinyTransformer.forward (options getter)',
    () => new attn.TinyTransformer({ vocabSize: 6, maxLen: 4, dModel: 8, numHeads: 2, seed: 1 }),
    (m) =>
      m.forward([[1, 2, 3]], {
        get lengths() {
          m.dispose();
          return [3];
        },
      }),
  ],
  [
    'TinyTransformer.setWeights',
    () => new attn.TinyTransformer({ vocabSize: 6, maxLen: 4, dModel: 8, numHeads: 2, seed: 1 }),
    (m) => {
      const weights = m.getWeights();
      const first = Object.keys(weights.tensors)[0];
      const tensor = weights.tensors[first];
      weights.tensors[first] = {
        shape: tensor.shape,
        get data() {
          m.dispose();
          return tensor.data;
        },
      };
      return m.setWeights(weights);
    },
  ],
];

for (const [name, make, call] of CASES) {
  test(`${name}: a getter that disposes the object gets an Error, not freed memory; nothing leaks`, () => {
    const before = attn.memory().inUseBytes;
    const object = make();
    assert.throws(
      () => call(object),
      (e) => e instanceof Error && e.message.startsWith(name.split(' ')[0]) && DURING.test(e.message),
      name,
    );
    assert.equal(attn.memory().inUseBytes, before, 'every byte freed');
    // The module still works: a fresh object computes.
    const again = make();
    if (again instanceof attn.TinyTransformer)
      assert.ok(Number.isFinite(again.evaluate({ tokens: [[1, 2, 3]], targets: [[3, 2, 1]] }).loss));
    else {
      const r = again.forward({ data: new Float32Array(24).fill(0.1), shape: [3, 8] });
      assert.deepEqual((r.output ?? r).shape, [3, 8]); // MultiHeadAttention: { output }, the encoder layer: the tensor
    }
    again.dispose();
    assert.equal(attn.memory().inUseBytes, before);
  });
}
