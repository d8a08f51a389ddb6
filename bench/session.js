// One benchmark session, in Node or in a browser page: every case for one thread count,
// this library against the peers it is given, each result checked against a float64
// reference before it is timed. bench/run.js (Node, a child process per thread count) and
// bench/browser.js (a Chromium page per thread count) run it and print the tables.
import {
  ATTENTION_CASES,
  MHA_CASE,
  attentionFlops,
  mhaFlops,
  attentionInputs,
  randomArray,
  checkAttention,
  measure,
  measureInterleaved,
} from './cases.js';
import { plainAttention, plainLinear } from './plain-js.js';

const gflops = (flops, ms) => flops / ms / 1e6;

/**
 * Our two runners: a new output array per call (what the peers do too), and the output
 * written into one array reused for every call (options.out; onnxruntime-web 1.30's wasm
 * backend has no working equivalent: a preallocated output passed to run() comes back
 * unwritten).
 */
export const OURS = 'attention-wasm';
export const OURS_OUT = 'attention-wasm, out reused';

/**
 * Runs every case. `attn`: the API (init with the thread count wanted); `peers`: modules
 * with { name, attention(c, inputs), multiHead(c, x, w) }; `plain`: also time plain JS
 * loops; `progress(text)`: status lines. Returns the rows ({ case, flops, results }).
 */
export async function runSession({ attn, peers, plain = false, progress = () => {} }) {
  const rows = [];
  const total = ATTENTION_CASES.length + 1;
  let index = 0;
  for (const c of ATTENTION_CASES)
    rows.push(await attentionRow(attn, peers, c, `${++index}/${total}`, { plain, progress }));
  rows.push(await multiHeadRow(attn, peers, MHA_CASE, `${++index}/${total}`, { progress }));
  return rows;
}

async function attentionRow(attn, peers, c, index, { plain, progress }) {
  const inputs = attentionInputs(c);
  const shape = [c.heads, c.n, c.d];
  const tensors = Object.fromEntries(Object.entries(inputs).map(([key, data]) => [key, { data, shape }]));
  const out = { out: new Float32Array(c.heads * c.n * c.d) };
  const runners = {
    [OURS]: () => attn.attention(tensors.q, tensors.k, tensors.v).output.data,
    [OURS_OUT]: () => attn.attention(tensors.q, tensors.k, tensors.v, out).output.data,
  };
  if (plain) runners['plain JS'] = () => plainAttention(inputs.q, inputs.k, inputs.v, c.heads, c.n, c.d);
  for (const peer of peers) runners[peer.name] = await peer.attention(c, inputs);
  const row = { case: c.name, flops: attentionFlops(c), results: {} };
  const errors = {};
  for (const [label, run] of Object.entries(runners)) {
    progress(`[${index}] ${c.name}: checking ${label}`);
    errors[label] = checkAttention(c, inputs, await run(), label);
  }
  // Plain JS is 20-40× slower: timed on its own, a few repeats.
  const { 'plain JS': plainRunner, ...fast } = runners;
  const timings = {};
  if (plainRunner) {
    progress(`[${index}] ${c.name}: timing plain JS`);
    timings['plain JS'] = await measure(plainRunner, { warmup: 1, warmupMs: 0, minReps: 3, minMs: 0 });
  }
  Object.assign(
    timings,
    await measureInterleaved(fast, { onProgress: (text) => progress(`[${index}] ${c.name}: ${text}`) }),
  );
  for (const [label, { ms, medianMs, reps }] of Object.entries(timings)) {
    row.results[label] = { ms, medianMs, gflops: gflops(row.flops, ms), reps, maxError: errors[label] };
  }
  return row;
}

// Multi-head forward: our layer, the peers' graphs, checked on sampled rows against a
// float64 evaluation of the same weights.
async function multiHeadRow(attn, peers, c, index, { progress }) {
  const { n, dModel, heads } = c;
  const layer = new attn.MultiHeadAttention({ dModel, numHeads: heads, seed: 1 });
  const w = Object.fromEntries(Object.entries(layer.getWeights()).map(([key, t]) => [key, t.data]));
  for (const key of ['bq', 'bk', 'bv', 'bo']) w[key] = randomArray(dModel, key.charCodeAt(1), 0.1);
  layer.setWeights(
    Object.fromEntries(
      Object.entries(w).map(([key, data]) => [key, { data, shape: key.startsWith('w') ? [dModel, dModel] : [dModel] }]),
    ),
  );
  const x = randomArray(n * dModel, 7);
  const expected = referenceMultiHeadRows(c, x, w, [0, n >> 1, n - 1]);
  const out = { out: new Float32Array(n * dModel) };
  const runners = {
    [OURS]: () => layer.forward({ data: x, shape: [n, dModel] }).output.data,
    [OURS_OUT]: () => layer.forward({ data: x, shape: [n, dModel] }, undefined, undefined, out).output.data,
  };
  for (const peer of peers) runners[peer.name] = await peer.multiHead(c, x, w);
  const row = { case: c.name, flops: mhaFlops(c), results: {} };
  const errors = {};
  for (const [label, run] of Object.entries(runners)) {
    progress(`[${index}] ${c.name}: checking ${label}`);
    const out = await run();
    let maxError = 0;
    for (const [i, values] of expected) {
      values.forEach((e, col) => {
        const diff = Math.abs(out[i * dModel + col] - e);
        if (!(diff <= 1e-3)) throw new Error(`${label}: MHA row ${i} col ${col} off by ${diff}`);
        maxError = Math.max(maxError, diff);
      });
    }
    errors[label] = maxError;
  }
  const timings = await measureInterleaved(runners, {
    onProgress: (text) => progress(`[${index}] ${c.name}: ${text}`),
  });
  for (const [label, { ms, medianMs, reps }] of Object.entries(timings)) {
    row.results[label] = { ms, medianMs, gflops: gflops(row.flops, ms), reps, maxError: errors[label] };
  }
  layer.dispose();
  return row;
}

// Output rows of multi-head self-attention, projections in float32 JS, the rest float64.
function referenceMultiHeadRows(c, x, w, rows) {
  const { n, dModel, heads } = c;
  const hd = dModel / heads;
  const [Q, K, V] = ['q', 'k', 'v'].map((p) => plainLinear(x, w[`w${p}`], w[`b${p}`], n, dModel, dModel));
  return rows.map((i) => {
    const concat = new Float64Array(dModel);
    for (let h = 0; h < heads; h++) {
      const scores = new Float64Array(n);
      let max = -Infinity;
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let t = 0; t < hd; t++) s += Q[i * dModel + h * hd + t] * K[j * dModel + h * hd + t];
        scores[j] = s / Math.sqrt(hd);
        max = Math.max(max, scores[j]);
      }
      let sum = 0;
      for (let j = 0; j < n; j++) {
        scores[j] = Math.exp(scores[j] - max);
        sum += scores[j];
      }
      for (let j = 0; j < n; j++)
        for (let t = 0; t < hd; t++) concat[h * hd + t] += (scores[j] / sum) * V[j * dModel + h * hd + t];
    }
    const out = Array.from({ length: dModel }, (_, col) => {
      let s = w.bo[col];
      for (let p = 0; p < dModel; p++) s += concat[p] * w.wo[p * dModel + col];
      return s;
    });
    return [i, out];
  });
}
