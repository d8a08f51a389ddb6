// The package in a browser as users get it from node_modules: through a bundler (a tiny app
// built with Vite, which picks the `default` export condition and emits the .wasm as an
// asset via new URL(..., import.meta.url)), and without one (the README's HTML snippet),
// and inside a module Web Worker, each served over http and run in headless Chromium.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync, symlinkSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// A folder whose node_modules/attention-wasm is this package (as if npm-installed).
function appFolder(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(`${dir}/node_modules`, { recursive: true });
  symlinkSync(root, `${dir}/node_modules/attention-wasm`, 'dir');
}

// Loads `path` from a server over `dir` in Chromium; returns the page's errors and its
// body text once `ready` holds.
async function runInChromium(dir, path, ready) {
  const { server, url } = await startServer({ port: 0, root: dir, served: null });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Failed requests count, except the favicon the browser asks for by itself.
    page.on('response', (r) => { if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`); });
    await page.goto(`${url}${path}`);
    await page.waitForFunction(ready, null, { timeout: 30_000 });
    return { errors, text: await page.textContent('body') };
  } finally {
    await browser.close();
    server.close();
  }
}

test('a Vite-built app loads the package and computes attention in Chromium', { timeout: 120_000 }, async () => {
  const app = `${root}build/vite-app`;
  appFolder(app);
  writeFileSync(`${app}/index.html`, '<!doctype html><html><body><pre id="out">loading</pre><script type="module" src="./main.js"></script></body></html>');
  writeFileSync(`${app}/main.js`, `import { init } from 'attention-wasm';
const attn = await init();
const r = attn.attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[10, 0], [0, 10]]);
document.getElementById('out').textContent = JSON.stringify({ target: attn.info.target, output: Array.from(r.output.data) });
`);
  await build({ root: app, logLevel: 'silent', build: { outDir: `${app}/dist`, target: 'es2022' } });
  const assets = readdirSync(`${app}/dist/assets`);
  assert.ok(assets.some((f) => f.endsWith('.wasm')), `the wasm is emitted as an asset: ${assets}`);
  const { errors, text } = await runInChromium(`${app}/dist`, 'index.html', () => document.getElementById('out').textContent !== 'loading');
  assert.deepEqual(errors, []);
  const result = JSON.parse(text.trim());
  assert.equal(result.target, 'wasm-relaxed-simd', 'Chromium runs relaxed SIMD, so init() loads that build');
  // By hand: softmax([1, 0]/sqrt(2)) = [a, 1]/(a + 1), a = e^(1/sqrt 2); times 10.
  const a = Math.exp(1 / Math.sqrt(2));
  const expected = [10 * a / (a + 1), 10 / (a + 1), 10 / (a + 1), 10 * a / (a + 1)];
  result.output.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) < 1e-5, `${x} vs ${expected[i]}`));
});

test('the README browser snippet runs from node_modules without a bundler', { timeout: 120_000 }, async () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## In a browser (no bundler)'));
  const start = section.indexOf('```html') + 7;
  const snippet = section.slice(start, section.indexOf('```', start));
  const dir = `${root}build/plain-app`;
  appFolder(dir);
  writeFileSync(`${dir}/index.html`, `<!doctype html><html><body>${snippet}</body></html>`);
  const { errors, text } = await runInChromium(dir, 'index.html', () => document.body.textContent.startsWith('output'));
  assert.deepEqual(errors, []);
  // q = k = v with every entry 0.1: uniform weights, so every output is 0.1.
  const match = text.match(/^output 8×64: ([0-9.]+)/);
  assert.ok(match, text);
  assert.ok(Math.abs(Number(match[1]) - 0.1) < 1e-6, text);
});

test('the package loads and computes inside a module Web Worker', { timeout: 120_000 }, async () => {
  const dir = `${root}build/worker-app`;
  appFolder(dir);
  writeFileSync(`${dir}/worker.js`, `import { init } from './node_modules/attention-wasm/bindings/js/browser.js';
const attn = await init();
const r = attn.attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[10, 0], [0, 10]], { causal: true });
postMessage({ target: attn.info.target, output: Array.from(r.output.data) });
`);
  writeFileSync(`${dir}/index.html`, `<!doctype html><html><head><script type="module">
const worker = new Worker('./worker.js', { type: 'module' });
worker.onmessage = (e) => { document.getElementById('out').textContent = JSON.stringify(e.data); };
worker.onerror = (e) => { document.getElementById('out').textContent = 'error: ' + e.message; };
</script></head><body><pre id="out">loading</pre></body></html>`);
  const { errors, text } = await runInChromium(dir, 'index.html', () => document.getElementById('out').textContent !== 'loading');
  assert.deepEqual(errors, []);
  const result = JSON.parse(text.trim());
  assert.equal(result.target, 'wasm-relaxed-simd', 'Chromium runs relaxed SIMD, so init() loads that build');
  // Causal: row 0 sees only key 0 (→ [10, 0]); row 1 as softmax([0, 1]/sqrt 2).
  const a = Math.exp(1 / Math.sqrt(2));
  const expected = [10, 0, 10 / (a + 1), 10 * a / (a + 1)];
  result.output.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) < 1e-5, `${x} vs ${expected[i]}`));
});
