import { chromium } from 'playwright-core';
import { startServer } from '../scripts/server.js';
const { server, url } = await startServer({ port: 0, served: ['bindings', 'dist', 'build', 'tests'], docs: false });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage();
await page.goto(`${url}tests/helpers/blank.html`);
const out = await page.evaluate(async () => {
  const { init } = await import('/bindings/js/browser.js');
  const bytes = async (f) => new Uint8Array(await (await fetch(`/build/ab/${f}`)).arrayBuffer());
  const A = await init({ wasmBinary: await bytes('before.wasm') });
  const B = await init({ wasmBinary: await bytes('after.wasm') });
  const lines = [`tileRows ${A.info.tileRows} ${B.info.tileRows}`];
  for (const n of [256, 1024]) {
    const x = A.tensor(Float32Array.from({ length: n * 64 }, (_, i) => Math.sin(i * 0.37)), [n, 64]);
    const o = new Float32Array(n * 64);
    const reps = n === 256 ? 200 : 20;
    const best = { A: Infinity, B: Infinity };
    for (let round = 0; round < 15; round++) {
      for (const [k, api] of [['A', A], ['B', B]]) {
        const t0 = performance.now();
        for (let i = 0; i < reps; i++) api.attention(x, x, x, { out: o });
        best[k] = Math.min(best[k], (performance.now() - t0) / reps);
      }
    }
    lines.push(`Chromium relaxed N=${n}: before ${best.A.toFixed(4)} ms, after ${best.B.toFixed(4)} ms (${((best.B / best.A - 1) * 100).toFixed(1)}%)`);
  }
  return lines.join('\n');
});
console.log(out);
await browser.close();
server.close();
