// Weights that are not finite (issue 44, item 4): a NaN or infinite block scale in a GGUF file
// is refused at load, naming the tensor and the block (ggml's row validator does the same);
// a float weight that is not finite in a Hugging Face folder makes forward, generate and embed
// throw an Error naming the function, the output and the first position, instead of greedy
// decoding picking token 0 for ever. Subnormal scales are finite and load.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { fixtureFiles, readSafetensors, writeSafetensors } from './helpers/safetensors.js';
import { parseGguf, StreamReader } from '../bindings/js/models/gguf.js';
import { checkFinite } from '../bindings/js/models/gguf_finite.js';

const attn = await init({ simd: 'baseline' });
const ggufDir = fileURLToPath(new URL('./fixtures/gguf/', import.meta.url));
const hfDir = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));

// The file with one block's fp16 scale (at `offset` in the block) of tensor `name` set to `bits`.
async function withScale(file, name, blockBytes, block, offset, bits) {
  const bytes = new Uint8Array(readFileSync(`${ggufDir}${file}`));
  const reader = new StreamReader(
    (async function* () {
      yield bytes;
    })(),
  );
  const { tensors } = await parseGguf('test', file, reader, bytes.length);
  const at = tensors.get(name).begin + block * blockBytes + offset;
  bytes[at] = bits & 0xff;
  bytes[at + 1] = bits >> 8;
  return bytes;
}

const HALVES = [
  ['NaN', 0x7e00],
  ['infinity', 0x7c00],
  ['-infinity', 0xfc00],
];

for (const [file, type, blockBytes] of [
  ['tiny-llama-q8_0.gguf', 'Q8_0', 34],
  ['tiny-llama-q4_0.gguf', 'Q4_0', 18],
]) {
  test(`a ${type} GGUF with a NaN or infinite block scale is refused at load; a subnormal one loads`, async () => {
    for (const [what, bits] of HALVES) {
      const bytes = await withScale(file, 'blk.1.attn_q.weight', blockBytes, 3, 0, bits);
      await assert.rejects(
        attn.loadModel(bytes),
        (e) =>
          e instanceof RangeError &&
          e.message ===
            `loadModel: the GGUF bytes given: tensor 'blk.1.attn_q.weight' (${type}) has a ${what} scale in block 3 (byte ${3 * blockBytes} of the tensor); a model's weights must be finite (llama.cpp's loader refuses such a file too)`,
        what,
      );
    }
    const subnormal = await attn.loadModel(await withScale(file, 'blk.1.attn_q.weight', blockBytes, 3, 0, 0x0001));
    const logits = subnormal.forward('The cat').logits.data;
    assert.ok(logits.every(Number.isFinite));
    subnormal.dispose();
  });
}

test('every scale of the K-quants and every value of the float types is looked at', () => {
  const fn = 'loadModel';
  const refused = (type, bytes) => assert.throws(() => checkFinite(fn, 'f', 't', type, bytes), RangeError);
  const fine = (type, bytes) => assert.doesNotThrow(() => checkFinite(fn, 'f', 't', type, bytes));
  // Q4_K (144-byte blocks: d, dmin) and Q6_K (210-byte blocks: d at 208), block 1 of 2.
  for (const [type, blockBytes, offsets] of [
    [12, 144, [0, 2]],
    [14, 210, [208]],
  ]) {
    fine(type, new Uint8Array(2 * blockBytes));
    for (const offset of offsets)
      for (const [, bits] of HALVES) {
        const bytes = new Uint8Array(2 * blockBytes);
        bytes[blockBytes + offset] = bits & 0xff;
        bytes[blockBytes + offset + 1] = bits >> 8;
        refused(type, bytes);
        // The same bits elsewhere in the block are quants, not scales.
        const quants = new Uint8Array(2 * blockBytes);
        quants[blockBytes + 40] = bits & 0xff;
        quants[blockBytes + 41] = bits >> 8;
        fine(type, quants);
      }
  }
  const f32 = new Float32Array([1, -2, 3e38, 1e-45]);
  fine(0, new Uint8Array(f32.buffer));
  for (const x of [NaN, Infinity, -Infinity]) {
    f32[2] = x;
    assert.throws(
      () => checkFinite(fn, 'f', 't', 0, new Uint8Array(f32.buffer)),
      /tensor 't' \(F32\) holds a NaN or infinity at element 2/,
    );
  }
  fine(1, new Uint8Array(new Uint16Array([0x3c00, 0x7bff, 0x0001]).buffer)); // F16 1, 65504, subnormal
  refused(1, new Uint8Array(new Uint16Array([0x3c00, 0x7c01]).buffer));
  fine(30, new Uint8Array(new Uint16Array([0x3f80, 0x7f7f]).buffer)); // BF16 1, the largest finite
  refused(30, new Uint8Array(new Uint16Array([0x3f80, 0xff80]).buffer));
});

// tiny-llama's folder with one weight set to `value`.
function llamaWith(name, index, value, folder = 'tiny-llama') {
  const files = fixtureFiles(`${hfDir}${folder}`);
  const tensors = readSafetensors(files['model.safetensors']);
  const out = {};
  for (const [n, t] of Object.entries(tensors)) {
    const data = new Float32Array(t.bytes.slice().buffer);
    if (n === name) data[index] = value;
    out[n] = { dtype: 'F32', shape: t.shape, data };
  }
  return { ...files, 'model.safetensors': writeSafetensors(out) };
}

test('a NaN or infinite weight: forward, generate and embed throw a named Error; the next model works', async () => {
  for (const value of [NaN, Infinity]) {
    const model = await attn.loadModel(llamaWith('model.layers.0.self_attn.v_proj.weight', 5, value));
    const word = '(NaN|-?infinity)'; // an infinite weight gives ∞ - ∞ = NaN further on
    assert.throws(
      () => model.forward('The cat sat'),
      (e) =>
        e.constructor === Error &&
        new RegExp(
          `^PretrainedModel\\.forward: the model computed ${word} in its logits at batch 0, position 0 \\(column \\d+\\)`,
        ).test(e.message),
    );
    await assert.rejects(model.generate('The cat', { maxNewTokens: 4 }), (e) =>
      /^PretrainedModel\.generate: the model computed .* in its logits at position \d+/.test(e.message),
    );
    model.dispose();
  }
  const files = fixtureFiles(`${hfDir}tiny-bge-embedder`);
  const tensors = readSafetensors(files['model.safetensors']);
  const name = Object.keys(tensors).find((n) => n.endsWith('embeddings.LayerNorm.weight'));
  const encoder = await attn.loadModel({ ...llamaWith(name, 0, NaN, 'tiny-bge-embedder') });
  assert.throws(
    () => encoder.embed('hello'),
    (e) =>
      /^PretrainedModel\.embed: the model computed NaN in its last hidden state at batch 0, position \d+/.test(
        e.message,
      ),
  );
  encoder.dispose();
  const fine = await attn.loadModel(`${hfDir}tiny-llama`);
  assert.ok(fine.forward('The cat sat').logits.data.every(Number.isFinite));
  fine.dispose();
});
