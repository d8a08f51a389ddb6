// A/B micro-benchmark: one head, d = 64, out reused; old and new wasm interleaved.
import { init } from 'attention-wasm';
import { readFileSync } from 'node:fs';
const [a, b, name] = process.argv.slice(2);
const A = await init({ wasmBinary: readFileSync(`${a}/${name}`) });
const B = await init({ wasmBinary: readFileSync(`${b}/${name}`) });
for (const n of [256, 1024]) {
  const x = A.tensor(Float32Array.from({ length: n * 64 }, (_, i) => Math.sin(i * 0.37)), [n, 64]);
  const out = new Float32Array(n * 64);
  const reps = n === 256 ? 200 : 20;
  const best = { A: Infinity, B: Infinity };
  for (let round = 0; round < 15; round++) {
    for (const [k, api] of [['A', A], ['B', B]]) {
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) api.attention(x, x, x, { out });
      best[k] = Math.min(best[k], (performance.now() - t0) / reps);
    }
  }
  console.log(`${name} N=${n}: before ${best.A.toFixed(4)} ms, after ${best.B.toFixed(4)} ms (${((best.B / best.A - 1) * 100).toFixed(1)}%)`);
}
