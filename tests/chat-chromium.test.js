// Hub ids and chat templates in headless Chromium, as pages use them: a page without a bundler
// or an import map (the chat template library found beside the package, as the tokenizer
// library is), and an app bundled by esbuild (the library bundled into a chunk, nothing
// fetched from node_modules). Both load 'tiny/chat' from a Hub-like route (a bare
// `owner/name` is a Hub id in browsers), render the tiny-chat fixture's Qwen2.5 template to
// the exact string and generate the same tokens as Node.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync, symlinkSync, readdirSync, copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import { launchChromium } from './helpers/chromium.js';
import { init } from 'attention-wasm';
import { startServer } from '../scripts/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = `${root}tests/fixtures/hf/tiny-chat/`;
const MESSAGES = [
  { role: 'system', content: 'You are a cat.' },
  { role: 'user', content: 'Who are you?' },
];
const RENDERED =
  '<|im_start|>system\nYou are a cat.<|im_end|>\n<|im_start|>user\nWho are you?<|im_end|>\n<|im_start|>assistant\n';

// What the page runs: a Hub id from the route below, the template, greedy generation.
const run = async (attn) => {
  const model = await attn.loadModel('tiny/chat', { hubUrl: `${location.origin}/hub`, cache: false });
  const messages = [
    { role: 'system', content: 'You are a cat.' },
    { role: 'user', content: 'Who are you?' },
  ];
  const text = model.applyChatTemplate(messages, { tokenize: false, addGenerationPrompt: true });
  const { ids } = await model.generate({ messages, maxNewTokens: 6, temperature: 0 });
  model.dispose();
  return { text, ids };
};

let server, url, browser;
let expectedIds;
test.before(async () => {
  const attn = await init({ simd: 'baseline' });
  const model = await attn.loadModel(FIXTURE);
  expectedIds = (await model.generate({ messages: MESSAGES, maxNewTokens: 6, temperature: 0 })).ids;
  model.dispose();
  ({ server, url } = await startServer({ port: 0, served: ['bindings', 'dist', 'tests', 'build'] }));
  browser = await launchChromium();
});

test.after(async () => {
  await browser?.close();
  server?.close();
  rmSync(`${root}build/chat-app`, { recursive: true, force: true });
});

// Opens `path` with /hub/tiny/chat/resolve/main/<file> answered from the fixture (404 for a
// file it lacks, as the Hub); returns the page's result, its errors and the URLs it asked for.
async function visit(path) {
  const page = await browser.newPage();
  const errors = [];
  const requested = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  await page.route('**/hub/tiny/chat/resolve/main/*', (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    return readdirSync(FIXTURE).includes(name)
      ? route.fulfill({ path: `${FIXTURE}${name}` })
      : route.fulfill({ status: 404, body: '' });
  });
  await page.goto(`${url}${path}`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 60_000 });
  const result = await page.evaluate(() => window.result);
  await page.close();
  return { result, errors, requested };
}

test(
  "a page without a bundler or an import map: the library beside the package; the exact template; Node's tokens",
  { timeout: 120_000 },
  async () => {
    mkdirSync(`${root}build/chat-app`, { recursive: true });
    writeFileSync(
      `${root}build/chat-app/plain.html`,
      `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
import { init } from '/bindings/js/browser.js';
const run = ${run};
window.result = await run(await init({ simd: 'baseline' })).catch((e) => ({ error: e.name + ': ' + e.message }));
</script></head><body></body></html>`,
    );
    const { result, errors, requested } = await visit('build/chat-app/plain.html');
    assert.equal(result.error, undefined, result.error);
    assert.deepEqual(errors, []);
    assert.equal(result.text, RENDERED);
    assert.deepEqual(result.ids, expectedIds);
    assert.ok(
      requested.includes('/node_modules/@huggingface/jinja/dist/index.js'),
      'the library came from beside the package',
    );
    assert.deepEqual(
      requested.filter((p) => p.startsWith('/hub/')).sort(),
      ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'].map(
        (f) => `/hub/tiny/chat/resolve/main/${f}`,
      ),
    );
  },
);

test(
  'an app bundled by esbuild: the library in a chunk of its own, nothing fetched from node_modules',
  { timeout: 120_000 },
  async () => {
    const app = `${root}build/chat-app/esbuild`;
    rmSync(app, { recursive: true, force: true });
    mkdirSync(`${app}/node_modules`, { recursive: true });
    writeFileSync(`${app}/package.json`, '{ "name": "app", "private": true, "type": "module" }\n');
    symlinkSync(root, `${app}/node_modules/attention-wasm`, 'dir');
    writeFileSync(
      `${app}/main.js`,
      `import { init } from 'attention-wasm';
const run = ${run};
window.result = await run(await init({ simd: 'baseline' })).catch((e) => ({ error: e.name + ': ' + e.message }));
`,
    );
    await esbuild({
      absWorkingDir: app,
      entryPoints: ['main.js'],
      bundle: true,
      splitting: true,
      format: 'esm',
      outdir: `${app}/dist`,
      minify: true,
      logLevel: 'error',
    });
    for (const file of readdirSync(`${root}dist`).filter((f) => f.endsWith('.wasm')))
      copyFileSync(`${root}dist/${file}`, `${app}/dist/${file}`);
    writeFileSync(
      `${app}/dist/index.html`,
      '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="./main.js"></script></head><body></body></html>',
    );
    const { result, errors, requested } = await visit('build/chat-app/esbuild/dist/index.html');
    assert.equal(result.error, undefined, result.error);
    assert.deepEqual(errors, []);
    assert.equal(result.text, RENDERED);
    assert.deepEqual(result.ids, expectedIds);
    assert.deepEqual(
      requested.filter((p) => p.includes('node_modules')),
      [],
      'the libraries are bundled',
    );
  },
);
