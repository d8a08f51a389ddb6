// TinyTransformer as a caller meets it: typed errors naming the method and the input for bad
// configs, batches, options and weights (checked before any wasm memory is taken; the model
// works afterwards); the getWeights/setWeights JSON round trip; seeds; dispose.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';

const attn = await init({ simd: 'baseline' });
const config = { vocabSize: 6, maxLen: 5, dModel: 8, numHeads: 2, numLayers: 1, seed: 4 };

function throws(call, type, pattern) {
  assert.throws(call, (e) => e instanceof type && pattern.test(e.message), String(pattern));
}

test('bad configs: TypeError / RangeError starting "TinyTransformer:"; nothing allocated', () => {
  const before = attn.memory().inUseBytes;
  const T = attn.TinyTransformer;
  throws(() => new T(), TypeError, /^TinyTransformer: a config object is needed/);
  throws(
    () => new T({ ...config, dModel: 10, numHeads: 4 }),
    RangeError,
    /^TinyTransformer: dModel \(10\) must be divisible by numHeads \(4\)/,
  );
  throws(() => new T({ ...config, vocabSize: 1 }), RangeError, /^TinyTransformer: vocabSize must be at least 2/);
  throws(() => new T({ ...config, maxLen: 0 }), RangeError, /^TinyTransformer: maxLen must be a positive integer/);
  throws(() => new T({ ...config, norm: 'middle' }), RangeError, /^TinyTransformer: norm must be one of 'pre', 'post'/);
  throws(
    () => new T({ ...config, head: 'classify' }),
    TypeError,
    /^TinyTransformer: numClasses is needed with head: 'classify'/,
  );
  throws(() => new T({ ...config, causal: 'yes' }), TypeError, /^TinyTransformer: config.causal must be a boolean/);
  throws(() => new T({ ...config, dropout: 0.1 }), TypeError, /^TinyTransformer: unknown config 'dropout'/);
  throws(
    () => new T({ ...config, seed: -1 }),
    RangeError,
    /^TinyTransformer: seed must be an integer in \[0, 2\^32 - 1\]/,
  );
  throws(
    () => new T({ ...config, vocabSize: 2 ** 26, dModel: 64 }),
    RangeError,
    /^TinyTransformer: this model would have .* parameters .* more than the 2 GiB wasm heap holds/,
  );
  assert.equal(attn.memory().inUseBytes, before);
});

test('bad batches and options: errors name the method and the input; the model keeps working; no leak', () => {
  const model = new attn.TinyTransformer(config);
  const good = { tokens: [[1, 2, 3]], targets: [[2, 3, -1]] };
  const before = model.trainStep(good).loss;
  const inUse = attn.memory().inUseBytes;
  throws(
    () => model.forward([[1, 9]]),
    RangeError,
    /^TinyTransformer.forward: tokens\[0\]\[1\] must be an integer in \[0, 5\], got 9/,
  );
  throws(
    () => model.forward([[1, 2], [3]]),
    RangeError,
    /^TinyTransformer.forward: tokens must be rectangular: tokens\[1\] has 1 values but tokens\[0\] has 2/,
  );
  throws(() => model.forward([[1.5]]), RangeError, /^TinyTransformer.forward: tokens\[0\]\[0\] must be an integer/);
  throws(() => model.forward('abc'), TypeError, /^TinyTransformer.forward: tokens must be an array of arrays/);
  throws(
    () => model.forward([[0, 1, 2, 3, 4, 5]]),
    RangeError,
    /^TinyTransformer.forward: tokens has sequences of 6 tokens but this model's maxLen is 5/,
  );
  throws(
    () => model.forward([[1, 2]], { lengths: [3] }),
    RangeError,
    /^TinyTransformer.forward: lengths\[0\] must be an integer in \[1, 2\], got 3/,
  );
  throws(() => model.forward([[1, 2]], { mask: [] }), TypeError, /^TinyTransformer.forward: unknown option 'mask'/);
  throws(() => model.trainStep({ tokens: [[1, 2]] }), TypeError, /^TinyTransformer.trainStep: batch.targets is needed/);
  throws(
    () => model.trainStep({ tokens: [[1, 2]], targets: [[1, 6]] }),
    RangeError,
    /^TinyTransformer.trainStep: targets\[0\]\[1\] must be an integer in \[-2147483648, 5\], got 6/,
  );
  throws(
    () => model.trainStep({ tokens: [[1, 2]], targets: [[1]] }),
    RangeError,
    /^TinyTransformer.trainStep: targets has shape \[1, 1\] but a token head needs one target per token: \[1, 2\]/,
  );
  throws(
    () => model.trainStep(good, { lr: -1 }),
    RangeError,
    /^TinyTransformer.trainStep: options.lr must be >= 0 and finite in float32 \(at most 3.4e38\), got -1$/,
  );
  throws(
    () => model.trainStep(good, { beta1: 1 }),
    RangeError,
    /^TinyTransformer.trainStep: options.beta1 must be in \[0, 1\)/,
  );
  throws(
    () => model.trainStep(good, { optimizer: 'adam' }),
    RangeError,
    /^TinyTransformer.trainStep: options.optimizer must be one of 'adamw', 'sgd'/,
  );
  throws(
    () => model.trainStep(good, { learningRate: 1 }),
    TypeError,
    /^TinyTransformer.trainStep: unknown option 'learningRate'/,
  );
  throws(
    () => model.evaluate({ tokens: [[1]], targets: [[1]], extra: 1 }),
    TypeError,
    /^TinyTransformer.evaluate: unknown batch key 'extra'/,
  );
  assert.equal(attn.memory().inUseBytes, inUse, 'refused calls take no wasm memory');
  assert.ok(model.trainStep(good).loss < before, 'the model still trains');
  const classifier = new attn.TinyTransformer({ ...config, head: 'classify', numClasses: 3 });
  throws(
    () => classifier.trainStep({ tokens: [[1, 2]], targets: [3] }),
    RangeError,
    /^TinyTransformer.trainStep: targets\[0\] must be an integer in \[0, 2\], got 3/,
  );
  throws(
    () => classifier.trainStep({ tokens: [[1, 2]], targets: [-1] }),
    RangeError,
    /^TinyTransformer.trainStep: targets\[0\] must be an integer in \[0, 2\]/,
  );
  assert.deepEqual(classifier.forward({ data: new Int32Array([1, 2, 3, 4]), shape: [2, 2] }).logits.shape, [2, 3]);
  classifier.dispose();
  model.dispose();
});

test('getWeights/setWeights: a JSON round trip gives the same outputs; bad weights are refused whole', () => {
  const a = new attn.TinyTransformer(config);
  const b = new attn.TinyTransformer({ ...config, seed: 5 });
  const tokens = [[1, 2, 3, 4]];
  for (let i = 0; i < 5; i++) a.trainStep({ tokens, targets: [[4, 3, 2, 1]] });
  assert.notDeepEqual(b.forward(tokens).logits.data, a.forward(tokens).logits.data, 'another seed, other weights');
  const saved = JSON.parse(JSON.stringify(a.getWeights()));
  assert.equal(saved.format, 'attention-wasm/tiny-transformer');
  assert.equal(saved.step, 5);
  b.setWeights(saved);
  assert.deepEqual(b.forward(tokens).logits.data, a.forward(tokens).logits.data);
  assert.equal(b.step, 0, 'setWeights resets the optimizer');
  const kept = b.forward(tokens).logits.data;
  const bad = (edit) => {
    const w = structuredClone(saved);
    edit(w);
    return w;
  };
  throws(
    () =>
      b.setWeights(
        bad((w) => {
          delete w.tensors['head.w'];
        }),
      ),
    RangeError,
    /^TinyTransformer.setWeights: weights.tensors is missing 'head.w' \[8, 6\]/,
  );
  throws(
    () =>
      b.setWeights(
        bad((w) => {
          w.tensors['layers.0.attn.wq'].shape = [4, 16];
        }),
      ),
    RangeError,
    /^TinyTransformer.setWeights: weights.tensors\['layers.0.attn.wq'\] has shape/,
  );
  throws(
    () =>
      b.setWeights(
        bad((w) => {
          w.tensors['head.b'].data[2] = null;
        }),
      ),
    TypeError,
    /^TinyTransformer.setWeights: weights.tensors\['head.b'\].data\[2\] must be a number/,
  );
  throws(
    () =>
      b.setWeights(
        bad((w) => {
          w.tensors['head.b'].data[0] = Infinity;
        }),
      ),
    RangeError,
    /^TinyTransformer.setWeights: weights.tensors\['head.b'\].data\[0\] must be finite/,
  );
  throws(
    () =>
      b.setWeights(
        bad((w) => {
          w.config.dModel = 16;
        }),
      ),
    RangeError,
    /^TinyTransformer.setWeights: weights.config.dModel is .* but this model's is/,
  );
  throws(
    () =>
      b.setWeights(
        bad((w) => {
          w.tensors.extra = { shape: [1], data: [0] };
        }),
      ),
    RangeError,
    /^TinyTransformer.setWeights: unknown tensor 'extra'/,
  );
  throws(
    () =>
      b.setWeights(
        bad((w) => {
          w.format = 'onnx';
        }),
      ),
    TypeError,
    /^TinyTransformer.setWeights: weights.format must be/,
  );
  assert.deepEqual(b.forward(tokens).logits.data, kept, 'a refused setWeights changes nothing');
  a.dispose();
  b.dispose();
});

test('dispose: every method throws after it; dispose twice is fine; the heap is back', () => {
  const before = attn.memory().inUseBytes;
  const model = new attn.TinyTransformer(config);
  model.trainStep({ tokens: [[1, 2]], targets: [[2, 1]] });
  model.dispose();
  model.dispose();
  for (const call of [
    () => model.forward([[1]]),
    () => model.trainStep({ tokens: [[1]], targets: [[1]] }),
    () => model.getWeights(),
    () => model.step,
  ]) {
    assert.throws(call, (e) => /^TinyTransformer\.\w+: this model was disposed/.test(e.message));
  }
  assert.equal(attn.memory().inUseBytes, before);
  assert.deepEqual(Object.keys(new attn.TinyTransformer(config).parameterShapes).slice(0, 4), [
    'tokenEmbedding',
    'positionEmbedding',
    'layers.0.ln1.gamma',
    'layers.0.ln1.beta',
  ]);
});

test('trainStep refuses optimizer settings that are valid in JS but not in float32 (they turned the model into NaN)', async () => {
  const { init } = await import('attention-wasm');
  const attn = await init();
  const model = new attn.TinyTransformer({ vocabSize: 6, maxLen: 4, dModel: 8, numHeads: 2, seed: 1 });
  const batch = { tokens: [[1, 2, 3]], targets: [[3, 2, 1]] };
  const before = model.getWeights();
  for (const [options, message] of [
    [{ eps: 1e-50 }, /options\.eps must be > 0 as a normal float32 .* got 1e-50 \(0 in float32\)/],
    [{ beta1: 1 - 1e-10 }, /options\.beta1 must be in \[0, 1\), and below 1 in float32 .* \(1 in float32\)/],
    [{ beta2: 1 - 1e-9 }, /options\.beta2 .* \(1 in float32\)/],
    [{ momentum: 1 - 1e-9, optimizer: 'sgd' }, /options\.momentum .* below 1 in float32/],
    [{ lr: 1e39 }, /options\.lr must be >= 0 and finite in float32 .* \(Infinity in float32\)/],
    [{ weightDecay: 1e39 }, /options\.weightDecay must be >= 0 and finite in float32/],
    [{ clipNorm: 1e-50 }, /options\.clipNorm must be 0 \(no clipping\) or > 0 as a normal float32/],
    [{ lr: 1e20, weightDecay: 1e20 }, /options\.lr × options\.weightDecay must be finite in float32/],
  ]) {
    assert.throws(
      () => model.trainStep(batch, options),
      (e) => e instanceof RangeError && e.message.startsWith('TinyTransformer.trainStep: ') && message.test(e.message),
      JSON.stringify(options),
    );
  }
  assert.deepEqual(model.getWeights().tensors, before.tensors, 'nothing changed');
  // The edges that are still fine in float32 train to a finite loss.
  for (const options of [{ eps: 2 ** -126 }, { beta1: 1 - 2 ** -24 }, { clipNorm: 0 }, { clipNorm: 2 ** -126 }]) {
    assert.ok(Number.isFinite(model.trainStep(batch, options).loss), JSON.stringify(options));
  }
  model.dispose();
});
