// Before/after of a kernel change, one process, interleaved so the machine's drift hits
// both sides alike: `node bench/ab.js <old dist> [<new dist>]` (new: this package's dist/).
// Keep the old build first: `cp -r dist /tmp/dist-before`, change, build, run this. When the
// old dist sits in a checkout of its own (`git worktree add /tmp/before <commit>`, built), its
// own JS drives it: the call layout between JS and wasm may differ between versions. Prints
// a table: one head, d = 64, `out` reused, without a mask, with an additive one and causal, best of 15
// rounds per side; the relaxed build runs when Node has relaxed SIMD
// (`node --experimental-wasm-relaxed-simd bench/ab.js …`).
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { init } from 'attention-wasm';

const [before, after = fileURLToPath(new URL('../dist', import.meta.url))] = process.argv.slice(2);
if (!before || !existsSync(`${before}/attention.wasm`)) {
  console.error('usage: node bench/ab.js <old dist folder> [<new dist folder>]');
  process.exit(2);
}
// The JS that belongs to a dist folder: its checkout's entry, else this package's.
async function initOf(dist) {
  const entry = join(dirname(dist), 'bindings', 'js', 'node.js');
  return existsSync(entry) ? (await import(pathToFileURL(entry).href)).init : init;
}
const initBefore = await initOf(before),
  initAfter = await initOf(after);
const relaxed = WebAssembly.validate(
  new Uint8Array([
    0,
    97,
    115,
    109,
    1,
    0,
    0,
    0,
    1,
    5,
    1,
    96,
    0,
    1,
    123,
    3,
    2,
    1,
    0,
    10,
    61,
    1,
    59,
    0,
    ...[0, 1, 2].flatMap(() => [0xfd, 0x0c, ...new Array(16).fill(0)]),
    0xfd,
    0x85,
    0x02,
    0x0b,
  ]),
);
const rows = ['| build | case | N | before (ms) | after (ms) | change |', '|---|---|---|---|---|---|'];
for (const file of ['attention.wasm', ...(relaxed ? ['attention-relaxed.wasm'] : [])]) {
  const A = await initBefore({ wasmBinary: readFileSync(`${before}/${file}`) });
  const B = await initAfter({ wasmBinary: readFileSync(`${after}/${file}`) });
  for (const kind of ['no mask', 'additive mask', 'causal']) {
    const masked = kind === 'additive mask',
      causal = kind === 'causal';
    for (const n of [256, 1024]) {
      const x = A.tensor(
        Float32Array.from({ length: n * 64 }, (_, i) => Math.sin(i * 0.37)),
        [n, 64],
      );
      const mask = masked
        ? A.tensor(
            Float32Array.from({ length: n * n }, (_, i) => (i % 7 === 0 ? -1 : 0)),
            [n, n],
          )
        : undefined;
      const out = new Float32Array(n * 64);
      const reps = n === 256 ? 200 : 20;
      const best = [Infinity, Infinity];
      for (let round = 0; round < 15; round++) {
        [A, B].forEach((api, side) => {
          const t0 = performance.now();
          for (let i = 0; i < reps; i++) api.attention(x, x, x, { out, mask, causal });
          best[side] = Math.min(best[side], (performance.now() - t0) / reps);
        });
      }
      rows.push(
        `| ${A.info.build} | ${kind} | ${n} | ${best[0].toFixed(4)} | ${best[1].toFixed(4)} | ${((best[1] / best[0] - 1) * 100).toFixed(1)}% |`,
      );
    }
  }
}
console.log(rows.join('\n'));
