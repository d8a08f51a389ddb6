// npm run bench: attention-wasm vs plain JS vs tfjs-backend-wasm vs onnxruntime-web, one
// thread each, in one run. Every result is checked against a float64 reference before it
// is timed. Prints a markdown table (stdout), progress (stderr), and writes
// bench/results/latest.json.
import { writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { init } from 'attention-wasm';
import { ATTENTION_CASES, MHA_CASE, attentionFlops, mhaFlops, attentionInputs, randomArray, checkAttention, measure, measureInterleaved } from './cases.js';
import { plainAttention, plainLinear } from './plain-js.js';
import * as onnxruntime from './peers/onnxruntime.js';
import * as tfjs from './peers/tfjs.js';

const PEERS = [tfjs, onnxruntime];
// Progress on a terminal rewrites one line; elsewhere (a CI log, a file) each step is a line.
const progress = process.stderr.isTTY
  ? (text) => process.stderr.write(`\r\x1b[K${text}`)
  : (text) => { if (text) process.stderr.write(`${text}\n`); };
const gflops = (flops, ms) => flops / ms / 1e6;

async function attentionRow(attn, c, index) {
  const inputs = attentionInputs(c);
  const shape = [c.heads, c.n, c.d];
  const tensors = Object.fromEntries(Object.entries(inputs).map(([key, data]) => [key, { data, shape }]));
  const runners = {
    'attention-wasm': () => attn.attention(tensors.q, tensors.k, tensors.v).output.data,
    'plain JS': () => plainAttention(inputs.q, inputs.k, inputs.v, c.heads, c.n, c.d),
  };
  for (const peer of PEERS) runners[peer.name] = await peer.attention(c, inputs);
  const row = { case: c.name, flops: attentionFlops(c), results: {} };
  const errors = {};
  for (const [label, run] of Object.entries(runners)) {
    progress(`[${index}] ${c.name}: checking ${label}`);
    errors[label] = checkAttention(c, inputs, await run(), label);
  }
  // Plain JS is 20-40× slower: timed on its own, a few repeats.
  const { 'plain JS': plain, ...fast } = runners;
  progress(`[${index}] ${c.name}: timing plain JS`);
  const timings = { 'plain JS': await measure(plain, { warmup: 1, warmupMs: 0, minReps: 3, minMs: 0 }) };
  Object.assign(timings, await measureInterleaved(fast, { onProgress: (text) => progress(`[${index}] ${c.name}: ${text}`) }));
  for (const [label, { ms, medianMs, reps }] of Object.entries(timings)) {
    row.results[label] = { ms, medianMs, gflops: gflops(row.flops, ms), reps, maxError: errors[label] };
  }
  return row;
}

// Multi-head forward: our layer, the peers' graphs, checked on sampled rows against a
// float64 evaluation of the same weights.
async function multiHeadRow(attn, c, index) {
  const { n, dModel, heads } = c;
  const layer = new attn.MultiHeadAttention({ dModel, numHeads: heads, seed: 1 });
  const w = Object.fromEntries(Object.entries(layer.getWeights()).map(([key, t]) => [key, t.data]));
  for (const key of ['bq', 'bk', 'bv', 'bo']) w[key] = randomArray(dModel, key.charCodeAt(1), 0.1);
  layer.setWeights(Object.fromEntries(Object.entries(w).map(([key, data]) => [key, { data, shape: key.startsWith('w') ? [dModel, dModel] : [dModel] }])));
  const x = randomArray(n * dModel, 7);
  const expected = referenceMultiHeadRows(c, x, w, [0, n >> 1, n - 1]);
  const runners = { 'attention-wasm': () => layer.forward({ data: x, shape: [n, dModel] }).output.data };
  for (const peer of PEERS) runners[peer.name] = await peer.multiHead(c, x, w);
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
  const timings = await measureInterleaved(runners, { onProgress: (text) => progress(`[${index}] ${c.name}: ${text}`) });
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
      for (let j = 0; j < n; j++) { scores[j] = Math.exp(scores[j] - max); sum += scores[j]; }
      for (let j = 0; j < n; j++) for (let t = 0; t < hd; t++) concat[h * hd + t] += (scores[j] / sum) * V[j * dModel + h * hd + t];
    }
    const out = Array.from({ length: dModel }, (_, col) => {
      let s = w.bo[col];
      for (let p = 0; p < dModel; p++) s += concat[p] * w.wo[p * dModel + col];
      return s;
    });
    return [i, out];
  });
}

// Wasm heap for N = 4096 without weights, in a fresh instance: how far the high-water mark
// rises beyond the inputs and the output.
async function memoryRow() {
  const { readFile } = await import('node:fs/promises');
  const attn = await init({ wasmBinary: await readFile(new URL('../dist/attention.wasm', import.meta.url)) });
  const c = { heads: 1, n: 4096, d: 64 };
  const inputs = attentionInputs(c);
  const t = (data) => ({ data, shape: [c.n, c.d] });
  const before = attn.memory();
  const out = attn.attention(t(inputs.q), t(inputs.k), t(inputs.v)).output.data;
  checkAttention(c, inputs, out, 'N=4096 memory run');
  const after = attn.memory();
  const ioBytes = 4 * c.n * c.d * 4;
  return { n: c.n, d: c.d, ioBytes, peakRiseBytes: after.peakBytes - before.peakBytes, scratchBytes: after.peakBytes - before.peakBytes - ioBytes, heapBytes: after.heapBytes, scoreMatrixBytes: c.n * c.n * 4 };
}

const MiB = (b) => (b / 2 ** 20).toFixed(2);

function table(rows, labels) {
  const peers = PEERS.map((p) => p.name);
  const lines = [
    `| case | ${labels.map((l) => `${l} GFLOP/s (ms)`).join(' | ')} | vs best peer |`,
    `|---|${labels.map(() => '---:').join('|')}|---:|`,
  ];
  for (const row of rows) {
    const cells = labels.map((l) => (row.results[l] ? `${row.results[l].gflops.toFixed(1)} (${row.results[l].ms.toFixed(3)})` : '–'));
    const best = Math.max(...peers.filter((p) => row.results[p]).map((p) => row.results[p].gflops));
    lines.push(`| ${row.case} | ${cells.join(' | ')} | ${(row.results['attention-wasm'].gflops / best).toFixed(2)}× |`);
  }
  return lines.join('\n');
}

const attn = await init();
const versions = { 'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.target})` };
for (const peer of PEERS) versions[peer.name] = await peer.setup();
const rows = [];
let index = 0;
const total = ATTENTION_CASES.length + 2;
for (const c of ATTENTION_CASES) rows.push(await attentionRow(attn, c, `${++index}/${total}`));
rows.push(await multiHeadRow(attn, MHA_CASE, `${++index}/${total}`));
progress(`[${++index}/${total}] memory at N=4096`);
const memory = await memoryRow();
if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');

const labels = ['attention-wasm', 'plain JS', ...PEERS.map((p) => p.name)];
const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}`;
console.log(`Attention, float32, d = 64, one thread; FLOPs = 4·N²·d per head (MHA adds 4 projections of 2·N·dModel²). Time: best per-round median over 8 interleaved rounds after warm-up (plain JS: median of 3), JS call included (inputs from and outputs to JS arrays).`);
console.log(`Machine: ${machine}. ${Object.values(versions).join('; ')}.\n`);
console.log(table(rows, labels));
console.log(`\nWasm heap, N = ${memory.n}, d = ${memory.d}, no weights requested: high-water mark rose ${MiB(memory.peakRiseBytes)} MiB for ${MiB(memory.ioBytes)} MiB of inputs and output (scratch ${MiB(memory.scratchBytes)} MiB; an N×N score matrix alone would be ${MiB(memory.scoreMatrixBytes)} MiB). Heap size ${MiB(memory.heapBytes)} MiB.`);

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/latest.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), machine, versions, rows, memory }, null, 2)}\n`);
console.log('\nWrote bench/results/latest.json');
