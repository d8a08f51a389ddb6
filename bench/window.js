// Sliding-window attention (issue 22): one head at N = 4096, d = 64, causal, full against a
// window of w = 256 keys to the left, in this process (the build init() loads in Node, one
// thread). The fused kernel walks only the key tiles some row of a query block sees, so the
// time should fall with the number of visible (query, key) pairs: N·(N + 1)/2 for causal,
// about N·(w + 1) with the window. Each output is checked on sampled rows against float64.
import { init } from 'attention-wasm';
import { attentionInputs, measure } from './cases.js';

const N = 4096,
  D = 64,
  W = 256;

// Visible (query, key) pairs of causal attention with `left` keys before the diagonal.
function visiblePairs(n, left) {
  let pairs = 0;
  for (let i = 0; i < n; i++) pairs += Math.min(i, left) + 1;
  return pairs;
}

// Float64 output rows of causal attention over keys i - left .. i.
function referenceRow({ q, k, v }, i, left) {
  const scale = 1 / Math.sqrt(D),
    first = Math.max(0, i - left);
  const s = [];
  for (let j = first; j <= i; j++) {
    let dot = 0;
    for (let t = 0; t < D; t++) dot += q[i * D + t] * k[j * D + t];
    s.push(dot * scale);
  }
  const max = Math.max(...s),
    e = s.map((x) => Math.exp(x - max)),
    sum = e.reduce((a, b) => a + b, 0);
  const out = new Float64Array(D);
  e.forEach((w, n) => {
    for (let t = 0; t < D; t++) out[t] += (w / sum) * v[(first + n) * D + t];
  });
  return out;
}

export async function windowBench(progress) {
  const attn = await init({ threads: 1 });
  const inputs = attentionInputs({ heads: 1, n: N, d: D }, 3);
  const t = (data) => ({ data, shape: [N, D] });
  const out = new Float32Array(N * D);
  const cases = [
    { name: `causal, full (N = ${N})`, left: N, options: { causal: true } },
    { name: `causal, window w = ${W}`, left: W, options: { causal: true, window: { left: W } } },
    { name: `causal, window w = ${W / 4}`, left: W / 4, options: { causal: true, window: { left: W / 4 } } },
  ];
  const rows = [];
  for (const c of cases) {
    progress(`sliding window: ${c.name}`);
    const run = () => attn.attention(t(inputs.q), t(inputs.k), t(inputs.v), { ...c.options, out }).output.data;
    const result = run();
    let maxError = 0;
    for (const i of [0, 1, W - 1, W, W + 1, N >> 1, N - 1]) {
      referenceRow(inputs, i, c.left).forEach((x, col) => {
        maxError = Math.max(maxError, Math.abs(result[i * D + col] - x));
      });
    }
    if (!(maxError <= 1e-4)) throw new Error(`sliding window ${c.name}: off by ${maxError}`);
    const { ms } = await measure(run, { minReps: 5, minMs: 1500 });
    rows.push({ case: c.name, pairs: visiblePairs(N, c.left), ms, maxError });
  }
  return { build: attn.info.build, rows };
}

export function windowTable({ build, rows }) {
  const full = rows[0];
  const lines = [
    '| case | visible pairs | ms | full ÷ this (time) | full ÷ this (pairs) | max abs error |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.case} | ${r.pairs.toLocaleString('en')} | ${r.ms.toFixed(2)} | ${(full.ms / r.ms).toFixed(2)}× | ${(full.pairs / r.pairs).toFixed(2)}× | ${r.maxError.toExponential(1)} |`,
    );
  }
  return `${lines.join('\n')}\n\n(${build} build, one thread, d = ${D}, one head.)`;
}
