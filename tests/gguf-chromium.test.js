// GGUF files in headless Chromium, as a page loads them: a URL ending in .gguf (relative to the
// page, streamed), and a Blob of its bytes (a dropped File) give Node's logits bit for bit.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { init } from 'attention-wasm';
import { startServer } from '../scripts/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const FILE = 'tests/fixtures/gguf/tiny-llama-q4_0.gguf';
const TEXT = 'The cat sat on the mat.';

let server, url, browser, expected;
test.before(async () => {
  const attn = await init({ simd: 'baseline' });
  const model = await attn.loadModel(`${root}${FILE}`);
  expected = Array.from(model.forward(TEXT).logits.data);
  model.dispose();
  ({ server, url } = await startServer({ port: 0, served: ['bindings', 'dist', 'tests', 'build'] }));
  browser = await launchChromium();
});

test.after(async () => {
  await browser?.close();
  server?.close();
  rmSync(`${root}build/gguf-page`, { recursive: true, force: true });
});

test("a page loads a GGUF file from its URL and from a Blob, with Node's logits", { timeout: 120_000 }, async () => {
  mkdirSync(`${root}build/gguf-page`, { recursive: true });
  writeFileSync(
    `${root}build/gguf-page/index.html`,
    `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
import { init } from '/bindings/js/browser.js';
const attn = await init({ simd: 'baseline' });
const run = async (source) => {
  const model = await attn.loadModel(source, { cache: false });
  const out = { logits: Array.from(model.forward(${JSON.stringify(TEXT)}).logits.data), ids: model.tokenizer.encode(${JSON.stringify(TEXT)}).ids };
  model.dispose();
  return out;
};
window.result = await (async () => {
  const fromUrl = await run('../../${FILE}');
  const blob = await (await fetch('/${FILE}')).blob();
  const fromBlob = await run(blob);
  return { fromUrl, fromBlob };
})().catch((e) => ({ error: e.name + ': ' + e.message }));
</script></head><body></body></html>`,
  );
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}build/gguf-page/index.html`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 60_000 });
  const result = await page.evaluate(() => window.result);
  await page.close();
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual(errors, []);
  for (const [how, out] of Object.entries(result)) {
    assert.deepEqual(out.ids, [1, 304, 269, 298, 316, 278, 293, 261], how);
    assert.deepEqual(out.logits, expected, `${how}: the logits are Node's`);
  }
});
