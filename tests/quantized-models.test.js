// loadModel(folder, { dtype: 'q8' | 'q4' }): every matrix quantized at load into Q8_0 / Q4_0
// blocks. The weights the model holds are checked through an independent route: the same
// checkpoint with each matrix replaced by its dequantized values (the JS reference quantizer of
// tests/helpers/quantized-reference.js), run as float32 — a runner checked against PyTorch by
// pretrained-parity. The quantized model may differ from that only by its activations' int8
// codes, which is measured against the drift the weights' own rounding causes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { readSafetensors, writeSafetensors, fixtureFiles } from './helpers/safetensors.js';
import { quantizeMatrix, dequantized } from './helpers/quantized-reference.js';

const attn = await init();
const dirOf = (name) => new URL(`./fixtures/hf/${name}/`, import.meta.url).pathname;
const PROMPT = 'The cat sat on the mat and';

// The checkpoint with every matrix the runner quantizes replaced by its dequantized values.
// PyTorch's Linear stores [out, in]; GPT-2's Conv1D [in, out]; position tables stay float.
function dequantizedCheckpoint(name, storage) {
  const files = fixtureFiles(dirOf(name));
  const tensors = {};
  for (const [key, t] of Object.entries(readSafetensors(files['model.safetensors']))) {
    const data = new Float32Array(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength / 4);
    tensors[key] = { shape: t.shape, data: Float32Array.from(data) };
    if (t.shape.length !== 2 || /wpe|position/.test(key)) continue;
    // The word embeddings [V, d] are blocks along d, as a Linear's [out, in] rows are.
    const conv = name === 'tiny-gpt2' && !/wte/.test(key);
    const [rows, cols] = t.shape;
    const [inner, outs] = conv ? [rows, cols] : [cols, rows];
    const at = (p, o) => (conv ? p * cols + o : o * cols + p);
    const w = new Float32Array(inner * outs);
    for (let o = 0; o < outs; o++) for (let p = 0; p < inner; p++) w[p * outs + o] = data[at(p, o)];
    const blocks = quantizeMatrix(w, inner, outs, storage);
    for (let o = 0; o < outs; o++)
      for (let p = 0; p < inner; p++) tensors[key].data[at(p, o)] = dequantized(blocks[o][p >> 5], p % 32, storage);
  }
  return { ...files, 'model.safetensors': writeSafetensors(tensors) };
}

const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

for (const name of ['tiny-llama', 'tiny-qwen2', 'tiny-gpt2']) {
  for (const [dtype, storage] of [
    ['q8', 'q8_0'],
    ['q4', 'q4_0'],
  ]) {
    test(`${name}, dtype '${dtype}': the weights are the reference quantizer's, the activations' codes cost less than the weights' rounding`, async () => {
      const float = await attn.loadModel(dirOf(name));
      const reference = await attn.loadModel(dequantizedCheckpoint(name, storage));
      const quantized = await attn.loadModel(dirOf(name), { dtype });
      try {
        assert.equal(quantized.matrixDtype, dtype);
        assert.ok(quantized.parameterBytes < float.parameterBytes * (dtype === 'q8' ? 0.6 : 0.5));
        const [f, r, q] = [float, reference, quantized].map((m) => m.forward(PROMPT).logits.data);
        const weightDrift = maxDiff(f, r); // what rounding the weights alone does
        const codeDrift = maxDiff(r, q); // what coding the activations adds
        assert.ok(weightDrift > 0, 'the weights were rounded');
        assert.ok(codeDrift > 0 && codeDrift < weightDrift * 1.5 + 0.05, `${codeDrift} vs ${weightDrift}`);
        // Q8_0's weights move the logits little; Q4_0's visibly (stated in docs/quantization.md).
        const scale = Math.max(...f.map(Math.abs));
        assert.ok(weightDrift < scale * (dtype === 'q8' ? 0.08 : 1), `${weightDrift} of ${scale}`);
      } finally {
        [float, reference, quantized].forEach((m) => m.dispose());
      }
    });
  }
}

test('a prefill (16 rows and more, the 4-row tiles) codes its activations as a decode step does', async () => {
  // Every row count takes the same integer product (kernels/quantized.h): past 16 tokens too,
  // the model is the dequantized float model but for its activations' int8 codes.
  const text = 'The cat sat on the mat and the dog sat on the log by the door';
  for (const name of ['tiny-llama', 'tiny-gpt2']) {
    for (const [dtype, storage] of [
      ['q8', 'q8_0'],
      ['q4', 'q4_0'],
    ]) {
      const float = await attn.loadModel(dirOf(name));
      const reference = await attn.loadModel(dequantizedCheckpoint(name, storage));
      const quantized = await attn.loadModel(dirOf(name), { dtype });
      try {
        const [f, r, q] = [float, reference, quantized].map((m) => m.forward(text).logits);
        assert.ok(q.shape[1] >= 16, `${q.shape}`);
        const weightDrift = maxDiff(f.data, r.data);
        const codeDrift = maxDiff(r.data, q.data);
        assert.ok(
          codeDrift > 0 && codeDrift < weightDrift * 1.5 + 0.05,
          `${name} ${dtype}: ${codeDrift} vs ${weightDrift}`,
        );
        // A prefill and the cached decode steps after it take the same product: each step's
        // logits are the prefill's row for that token within float rounding (the widened float
        // panels a prefill took before differed from the steps by the codes' drift).
        const { ids, scores } = await quantized.generate(text, {
          maxNewTokens: 3,
          stopAtEos: false,
          returnScores: true,
        });
        const full = quantized.forward([ids]).logits;
        const V = full.shape[2];
        for (let i = 1; i < scores.length; i++) {
          const t = ids.length - scores.length + i - 1;
          const row = full.data.subarray(t * V, (t + 1) * V);
          const gap = maxDiff(row, scores[i]);
          assert.ok(gap < 1e-4 * Math.max(...row.map(Math.abs)), `${name} ${dtype} step ${i}: ${gap}`);
        }
      } finally {
        [float, reference, quantized].forEach((m) => m.dispose());
      }
    }
  }
});

test('a quantized model generates with its cache as it forwards without', async () => {
  const model = await attn.loadModel(dirOf('tiny-llama'), { dtype: 'q8' });
  try {
    const { ids, newIds } = await model.generate(PROMPT, { maxNewTokens: 6, stopAtEos: false });
    // Greedy: each new token is the argmax of a full forward over everything before it.
    for (let i = 0; i < newIds.length; i++) {
      const prefix = ids.slice(0, ids.length - newIds.length + i);
      const logits = model.forward([prefix]).logits;
      const V = logits.shape[2];
      const last = logits.data.subarray((prefix.length - 1) * V, prefix.length * V);
      assert.equal(newIds[i], last.indexOf(Math.max(...last)), `token ${i}`);
    }
  } finally {
    model.dispose();
  }
});
