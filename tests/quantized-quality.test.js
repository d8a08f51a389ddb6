// What Q8_0 and Q4_0 cost a trained model (issue 34: "Q8_0 greedy tokens agree with float on
// ≥ 30 of 32 on the fixtures; logit drift per type stated"). The random-weight fixtures have top
// logits too close together for agreement to mean anything, so this file measures on
// tests/fixtures/hf/trained-gpt2-docs: a byte-level GPT-2 (4 layers, d_model 96) trained on this
// project's own docs by scripts/train-quality-lm.py, prompted with text it held out.
//
// "Agree on ≥ 30 of 32" is read teacher-forced, per prompt: the float model's 32 greedy tokens
// are fed to both models, and at each of the 32 steps the quantized model's argmax is compared
// with the float model's (the same context for both, so one early difference does not decide
// the other 31). The same count with the held-out text's own next 32 bytes as the context, and
// free-running greedy agreement (each model continues its own text: the common prefix and the
// equal positions) are reported beside it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';

const attn = await init();
const dir = new URL('./fixtures/hf/trained-gpt2-docs/', import.meta.url).pathname;
const gguf = new URL('./fixtures/gguf/trained-gpt2-docs-q8_0.gguf', import.meta.url).pathname;
const reference = JSON.parse(readFileSync(`${dir}reference.json`, 'utf8'));
const NEW_TOKENS = 32;

// Per prompt, the least agreement on the float greedy text (q8: the target, which the
// lowest prompt meets exactly; q4: below the 23 measured), the least mean agreement on the
// held-out text, and the largest drift (docs/quantization-quality.md: q8 30–32, mean 31.7,
// 0.027; q4 23–29, mean 25.5, 0.215). They do not move from run to run; the relaxed build,
// whose float steps (norms, attention) round differently and so code a few activations
// differently, measured q8 the same but for the drift (0.0265) and q4 154 on the held-out text.
const BOUNDS = {
  q8: { agree: 30, textAgree: 30, drift: 0.04 },
  q4: { agree: 20, textAgree: 22, drift: 0.3 },
};

const sum = (counts) => counts.reduce((a, b) => a + b, 0);
const argmax = (row) => row.reduce((best, v, i) => (v > row[best] ? i : best), 0);
const rowOf = (logits, t) => logits.data.subarray(t * logits.shape[2], (t + 1) * logits.shape[2]);

// The logit rows predicting each of the continuation's tokens: positions P-1 … P+30 of the
// prompt (P ids) and the 32 tokens after it.
function continuationRows(model, ids, promptLength) {
  const logits = model.forward([ids]).logits;
  return Array.from({ length: NEW_TOKENS }, (_, i) => rowOf(logits, promptLength - 1 + i));
}

// Teacher-forced agreement and relative drift of a quantized model against the float one,
// over every held-out prompt, the context being each case's `key` ('ids': the prompt and the
// float greedy continuation; 'text_ids': the prompt and the text after it):
// { agree: [per prompt], diff: max |q − f|, scale: max |f|, drift: diff / scale }.
function measure(float, quantized, key) {
  const agree = [];
  let [diff, scale] = [0, 0];
  for (const c of reference.held_out) {
    const P = c[key].length - NEW_TOKENS;
    const f = continuationRows(float, c[key], P);
    const q = continuationRows(quantized, c[key], P);
    agree.push(f.filter((row, i) => argmax(row) === argmax(q[i])).length);
    for (let i = 0; i < NEW_TOKENS; i++) {
      scale = Math.max(scale, ...f[i].map(Math.abs));
      diff = Math.max(diff, ...f[i].map((v, j) => Math.abs(q[i][j] - v)));
    }
  }
  return { agree, drift: diff / scale, diff, scale };
}

// Each model continuing its own text: the common prefix and the equal positions, per prompt.
async function freeRunning(float, quantized) {
  const out = [];
  for (const c of reference.held_out) {
    const options = { maxNewTokens: NEW_TOKENS, stopAtEos: false };
    const [f, q] = [
      (await float.generate(c.prompt, options)).newIds,
      (await quantized.generate(c.prompt, options)).newIds,
    ];
    const prefix = f.findIndex((id, i) => id !== q[i]);
    out.push({ prefix: prefix < 0 ? NEW_TOKENS : prefix, equal: f.filter((id, i) => id === q[i]).length });
  }
  return out;
}

test('trained-gpt2-docs: the float model matches the float64 PyTorch forward and its greedy text', async () => {
  const model = await attn.loadModel(dir);
  try {
    assert.equal(model.matrixDtype, 'float32');
    const { text, ids, positions, logits } = reference.parity;
    const out = model.forward(text);
    assert.deepEqual(out.ids, [ids], 'the byte-level tokenizer: one token per byte');
    positions.forEach((t, k) => assertClose(rowOf(out.logits, t), logits[k], { label: `logits at ${t}` }));
    // The float64 greedy continuations of the held-out prompts, token for token.
    for (const c of reference.held_out) {
      const { ids: all } = await model.generate(c.prompt, { maxNewTokens: NEW_TOKENS, stopAtEos: false });
      assert.deepEqual(all, c.ids, c.prompt);
    }
  } finally {
    model.dispose();
  }
});

for (const dtype of ['q8', 'q4']) {
  test(`trained-gpt2-docs, dtype '${dtype}': greedy agreement with float and logit drift`, async (t) => {
    const float = await attn.loadModel(dir);
    const quantized = await attn.loadModel(dir, { dtype });
    try {
      assert.equal(quantized.matrixDtype, dtype);
      const greedy = measure(float, quantized, 'ids');
      const text = measure(float, quantized, 'text_ids');
      const free = await freeRunning(float, quantized);
      const diff = Math.max(greedy.diff, text.diff);
      const scale = Math.max(greedy.scale, text.scale);
      const drift = diff / scale;
      const list = (counts) => `${counts.join(', ')} (${sum(counts)}/${NEW_TOKENS * counts.length})`;
      t.diagnostic(
        `${dtype}: argmax agreement of 32, teacher-forced on the float greedy text: ${list(greedy.agree)}; ` +
          `on the held-out text: ${list(text.agree)}; free-running common prefix ${free.map((r) => r.prefix).join(', ')}, ` +
          `equal positions ${list(free.map((r) => r.equal))}; drift max|q−f|/max|f| ${diff.toFixed(3)}/${scale.toFixed(2)} = ${drift.toFixed(4)}`,
      );
      const bound = BOUNDS[dtype];
      for (const [i, n] of greedy.agree.entries())
        assert.ok(n >= bound.agree, `prompt ${i}: ${n} of ${NEW_TOKENS} agree (${reference.held_out[i].prompt})`);
      assert.ok(sum(text.agree) >= bound.textAgree * text.agree.length, `${text.agree} on the held-out text`);
      assert.ok(drift < bound.drift, `drift ${drift}`);
    } finally {
      float.dispose();
      quantized.dispose();
    }
  });
}

test("trained-gpt2-docs-q8_0.gguf (convert_hf_to_gguf's Q8_0) is the folder loaded with dtype 'q8'", async () => {
  // Both hold ggml's quantize_row_q8_0_ref blocks of the same floats (the GGUF's from Python):
  // the file's model is the one measured above, bit for bit.
  const file = await attn.loadModel(gguf);
  const folder = await attn.loadModel(dir, { dtype: 'q8' });
  try {
    assert.equal(file.matrixDtype, 'q8');
    assert.equal(file.parameterBytes, folder.parameterBytes);
    const ids = [reference.held_out[0].ids];
    assert.deepEqual(file.forward(ids).logits.data, folder.forward(ids).logits.data);
  } finally {
    file.dispose();
    folder.dispose();
  }
});
