// What the benchmark measures, shared by the Node runner (bench/run.js) and the page
// (web/bench-panel.js): sizes, FLOP counts, inputs, the correctness check, and the timer.
import { seededRandom } from '../bindings/js/parameters.js';

/** Attention cases: heads × N × d, FLOPs = 4·N²·d per head (two matrix products). */
export const ATTENTION_CASES = [
  { name: 'N=64', heads: 1, n: 64, d: 64 },
  { name: 'N=256', heads: 1, n: 256, d: 64 },
  { name: 'N=1024', heads: 1, n: 1024, d: 64 },
  { name: 'N=2048', heads: 1, n: 2048, d: 64 },
  { name: '8 heads, N=512', heads: 8, n: 512, d: 64 },
];

/** Multi-head forward with projections: 4 projections (2·N·dModel² each) + attention. */
export const MHA_CASE = { name: 'MHA forward dModel=512, 8 heads, N=512', n: 512, dModel: 512, heads: 8 };

export const attentionFlops = (c) => 4 * c.n * c.n * c.d * c.heads;
export const mhaFlops = (c) => 4 * 2 * c.n * c.dModel * c.dModel + 4 * c.n * c.n * c.dModel;

/** Uniform numbers in [-scale, scale) from a seed. */
export function randomArray(length, seed, scale = 1) {
  const random = seededRandom(seed);
  return Float32Array.from({ length }, () => (random() * 2 - 1) * scale);
}

/** q, k, v as flat [heads, n, d] Float32Arrays. */
export function attentionInputs(c, seed = 1) {
  const size = c.heads * c.n * c.d;
  return { q: randomArray(size, seed), k: randomArray(size, seed + 1), v: randomArray(size, seed + 2) };
}

/** Float64 attention output rows `rows` of head `h` ([rows.length, d]). */
export function referenceRows(c, { q, k, v }, h, rows) {
  const { n, d } = c;
  const base = h * n * d;
  const scale = 1 / Math.sqrt(d);
  return rows.map((i) => {
    const scores = new Float64Array(n);
    let max = -Infinity;
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let t = 0; t < d; t++) s += q[base + i * d + t] * k[base + j * d + t];
      scores[j] = s * scale;
      max = Math.max(max, scores[j]);
    }
    let sum = 0;
    for (let j = 0; j < n; j++) {
      scores[j] = Math.exp(scores[j] - max);
      sum += scores[j];
    }
    const out = new Float64Array(d);
    for (let j = 0; j < n; j++) for (let t = 0; t < d; t++) out[t] += (scores[j] / sum) * v[base + j * d + t];
    return out;
  });
}

/**
 * Checks sampled rows of an output [heads, n, d] against the float64 reference; returns
 * the largest absolute difference (throws past `tolerance`).
 */
export function checkAttention(c, inputs, output, label, tolerance = 1e-4) {
  let worst = 0;
  for (const h of [0, c.heads - 1]) {
    const rows = [0, 1, c.n >> 1, c.n - 1];
    referenceRows(c, inputs, h, rows).forEach((expected, r) => {
      for (let t = 0; t < c.d; t++) {
        const diff = Math.abs(output[(h * c.n + rows[r]) * c.d + t] - expected[t]);
        if (!(diff <= tolerance))
          throw new Error(`${label}: row ${rows[r]} of head ${h} is off by ${diff} (tolerance ${tolerance})`);
        worst = Math.max(worst, diff);
      }
    });
  }
  return worst;
}

/**
 * Median time of `fn` (sync or async) in ms. Warm-up runs at least `warmup` calls and
 * `warmupMs` (V8 compiles wasm with a baseline compiler first and tiers hot functions up in
 * the background), then repeats until both `minReps` and `minMs` are reached.
 */
export async function measure(fn, { warmup = 2, warmupMs = 1500, minReps = 5, minMs = 1000, maxReps = 5000 } = {}) {
  const start = performance.now();
  for (let i = 0; i < warmup || performance.now() - start < warmupMs; i++) await fn();
  const times = [];
  let total = 0;
  while (times.length < maxReps && (times.length < minReps || total < minMs)) {
    const t0 = performance.now();
    await fn();
    const dt = performance.now() - t0;
    times.push(dt);
    total += dt;
  }
  times.sort((a, b) => a - b);
  return { ms: times[times.length >> 1], reps: times.length };
}

/**
 * Times several runners of the same work fairly on a noisy machine (2 shared cores): after
 * warming each up, runs rounds in which every runner gets ~roundMs in turn. Each turn starts
 * with a full garbage collection where the engine exposes one (`--expose-gc`, which the
 * runners pass), so a runner pays for its own garbage only, not for the arrays the runner
 * before it left behind (in Chromium a major GC of those took several ms), and 30 ms idle,
 * (`idleMs`), so that the threads of the runner before are asleep again. Reports, per
 * runner, the best of its per-round medians (`ms`: interference from other tenants, GC
 * or the other runners' leftovers only ever slows a round down) and the median of all its
 * samples (`medianMs`). `runners`: { label: fn } (sync or async).
 */
export async function measureInterleaved(
  runners,
  { warmupMs = 1500, rounds = 8, roundMs = 200, idleMs = 30, onProgress = () => {} } = {},
) {
  const rounds_ = Object.fromEntries(Object.keys(runners).map((label) => [label, []]));
  for (const [label, fn] of Object.entries(runners)) {
    onProgress(`warming up ${label}`);
    const start = performance.now();
    for (let i = 0; i < 2 || performance.now() - start < warmupMs; i++) await fn();
  }
  const collect = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};
  for (let round = 0; round < rounds; round++) {
    for (const [label, fn] of Object.entries(runners)) {
      onProgress(`round ${round + 1}/${rounds}: ${label}`);
      collect();
      // 30 ms idle: the previous runner's threads go back to sleep first. Without it, in the
      // 2-thread Chromium page, onnxruntime-web's and our pool's threads still spinning from
      // the turn before took a core from the next runner: ours at N = 1024 3.5-4.2 ms
      // against 2.96, onnxruntime-web's 6.1-6.4 against 5.7.
      if (idleMs > 0) await new Promise((resolve) => setTimeout(resolve, idleMs));
      const times = [];
      const start = performance.now();
      do {
        const t0 = performance.now();
        await fn();
        times.push(performance.now() - t0);
      } while (performance.now() - start < roundMs || times.length < 3);
      rounds_[label].push(times);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  return Object.fromEntries(
    Object.entries(rounds_).map(([label, perRound]) => [
      label,
      {
        ms: Math.min(...perRound.map(median)),
        medianMs: median(perRound.flat()),
        reps: perRound.flat().length,
      },
    ]),
  );
}
