// The package through a bundler: a tiny app importing 'attention-wasm' is built with Vite
// (which picks the `default` export condition and emits the .wasm as an asset via
// new URL(..., import.meta.url)), served over http and run in headless Chromium.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync, symlinkSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const app = `${root}build/vite-app`;

test('a Vite-built app loads the package and computes attention in Chromium', { timeout: 120_000 }, async () => {
  rmSync(app, { recursive: true, force: true });
  mkdirSync(`${app}/node_modules`, { recursive: true });
  symlinkSync(root, `${app}/node_modules/attention-wasm`, 'dir');  // as if npm-installed
  writeFileSync(`${app}/index.html`, '<!doctype html><html><body><pre id="out">loading</pre><script type="module" src="./main.js"></script></body></html>');
  writeFileSync(`${app}/main.js`, `import { init } from 'attention-wasm';
const attn = await init();
const r = attn.attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[10, 0], [0, 10]]);
document.getElementById('out').textContent = JSON.stringify({ target: attn.info.target, output: Array.from(r.output.data) });
`);
  await build({ root: app, logLevel: 'silent', build: { outDir: `${app}/dist`, target: 'es2022' } });
  const assets = readdirSync(`${app}/dist/assets`);
  assert.ok(assets.some((f) => f.endsWith('.wasm')), `the wasm is emitted as an asset: ${assets}`);

  const { server, url } = await startServer({ port: 0, root: `${app}/dist`, served: null });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}index.html`);
    await page.waitForFunction(() => document.getElementById('out').textContent !== 'loading', null, { timeout: 30_000 });
    const result = JSON.parse(await page.textContent('#out'));
    assert.deepEqual(errors, []);
    assert.equal(result.target, 'wasm-simd128');
    // By hand: softmax([1, 0]/sqrt(2)) = [a, 1]/(a + 1), a = e^(1/sqrt 2); times 10.
    const a = Math.exp(1 / Math.sqrt(2));
    const expected = [10 * a / (a + 1), 10 / (a + 1), 10 / (a + 1), 10 * a / (a + 1)];
    result.output.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) < 1e-5, `${x} vs ${expected[i]}`));
  } finally {
    await browser.close();
    server.close();
  }
});
