// The transformers.js graphs of the long-context benchmark (bench/peers/onnx-llama.js) compute
// the same model as ours: a tiny Llama GGUF (bench/wllama-model.js) loaded by attention-wasm as
// float32, and onnxruntime-web running the float graphs built from the weights the GGUF's
// blocks hold. Prefill logits of every position, then one decode step over the graph's own
// past keys and values; the q8 graphs (quantize_dynamic's form) within int8's rounding. A wrong
// rotation order, key/value head grouping or mask shows here before it shows as a speed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { init } from '../bindings/js/node.js';
import { SMOLLM2_135M, TINY_SHAPE, smolLmGguf, smolLmWeights } from '../bench/wllama-model.js';
import { llamaModel } from '../bench/peers/onnx-llama.js';

const config = { ...SMOLLM2_135M, ...TINY_SHAPE, max_position_embeddings: 256 };
const V = config.vocab_size;
const ids = Array.from({ length: 37 }, (_, i) => 259 + ((i * 7919) % 250));
const int64 = (values) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);

// max |a − b| ÷ max |b|
function relativeError(a, b) {
  let diff = 0,
    size = 0;
  for (let i = 0; i < b.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    size = Math.max(size, Math.abs(b[i]));
  }
  return diff / size;
}

test('transformers.js-form Llama graphs: the same logits as attention-wasm in prefill and decode', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'onnx-llama-'));
  try {
    const file = join(dir, 'tiny.gguf');
    writeFileSync(file, smolLmGguf('q8_0', { config }));
    const weights = smolLmWeights('q8_0', { config });
    const attn = await init({ threads: 1 });
    const model = await attn.loadModel(file, { dtype: 'float32' });
    const next = 300;
    const prompt = (await model.forward(ids, { logits: true })).logits.data;
    const step = (await model.forward([...ids, next], { logits: true })).logits.data.subarray(ids.length * V);
    model.dispose();
    ort.env.wasm.numThreads = 1;
    for (const [q8, bound] of [
      [false, 1e-5],
      [true, 0.05],
    ]) {
      const prefill = await ort.InferenceSession.create(llamaModel(config, weights, { decode: false, q8 }));
      const decode = await ort.InferenceSession.create(llamaModel(config, weights, { decode: true, q8 }));
      const out = await prefill.run({ input_ids: int64(ids), position_ids: int64(ids.map((_, i) => i)) });
      assert.deepEqual(out.logits.dims, [1, ids.length, V]);
      assert.deepEqual(out.present_key_1.dims, [1, 2, ids.length, 16]);
      const form = q8 ? 'q8' : 'fp32';
      const prefillError = relativeError(out.logits.data, prompt);
      assert.ok(prefillError < bound, `${form} prefill: ${prefillError}`);
      const past = {};
      for (let i = 0; i < config.num_hidden_layers; i++) {
        past[`past_key_${i}`] = out[`present_key_${i}`];
        past[`past_value_${i}`] = out[`present_value_${i}`];
      }
      const r = await decode.run({ input_ids: int64([next]), position_ids: int64([ids.length]), ...past });
      assert.deepEqual(r.present_value_0.dims, [1, 2, ids.length + 1, 16]);
      const decodeError = relativeError(r.logits.data, step);
      assert.ok(decodeError < bound, `${form} decode: ${decodeError}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
