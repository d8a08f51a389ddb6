// `npx attention-wasm` as a user runs it: the packed tarball installed into a fresh folder, the
// bin started there as a child process. Its server answers with the page, the wasm and the
// tokenizer library (found in the consumer's node_modules), all cross-origin isolated; in
// headless Chromium the page computes with crossOriginIsolated true, the shipped model renders,
// the model box loads a folder from another localhost port and refuses a remote http: URL
// saying why, the elements' bare page renders, and /docs/ says how to get the reference.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
const dir = mkdtempSync(`${tmpdir()}/attention-npx-`);
const app = `${dir}/app`;
const installed = `${app}/node_modules/attention-wasm/`;
const children = [];
let first, browser, modelHost;

// Starts `npx attention-wasm ...args` in the app folder (its own process group, so npm and the
// server under it stop together); resolves once it prints the page's URL.
function startBin(args) {
  const child = spawn('npx', ['attention-wasm', ...args], {
    cwd: app,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const url = /the worked examples at (http:\/\/\S+)web\//.exec(output)?.[1];
      if (url && output.includes('(Ctrl+C stops)')) resolve({ url, output });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`npx attention-wasm exited with ${code}: ${output}`)));
  });
}

test.before(
  async () => {
    const tarball = execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop();
    mkdirSync(app);
    writeFileSync(`${app}/package.json`, JSON.stringify({ name: 'npx-check', private: true, type: 'module' }));
    execFileSync('npm', ['install', `${dir}/${tarball}`, '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: app,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    first = await startBin(['--port', '0']);
    browser = await launchChromium();
    // A checkpoint folder on another localhost port, served as a CDN does (CORS), for the model box.
    modelHost = await startServer({ port: 0, root: installed, served: ['web'], cdn: true, docs: false });
  },
  { timeout: 240_000 },
);

test.after(async () => {
  await browser?.close();
  modelHost?.server.close();
  for (const child of children) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid);
  rmSync(dir, { recursive: true, force: true });
});

test('it prints its URL; the page, the wasm and the tokenizer library answer 200, cross-origin isolated', async () => {
  assert.match(
    first.output,
    new RegExp(
      `^attention-wasm ${version.replaceAll('.', '\\.')}: the worked examples at http://127\\.0\\.0\\.1:\\d+/web/\\n  the elements on a bare page at http://127\\.0\\.0\\.1:\\d+/examples/embed\\.html`,
    ),
  );
  const page = await fetch(first.url); // / redirects to /web/
  assert.equal(page.url, `${first.url}web/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<title>attention-wasm · worked examples<\/title>/);
  const wasm = await fetch(`${first.url}dist/attention-relaxed-threads.wasm`);
  const bytes = new Uint8Array(await wasm.arrayBuffer());
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  assert.deepEqual(
    bytes,
    new Uint8Array(readFileSync(`${installed}dist/attention-relaxed-threads.wasm`)),
    'the installed file',
  );
  for (const response of [page, wasm]) {
    assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin');
    assert.equal(response.headers.get('cross-origin-embedder-policy'), 'require-corp');
  }
  // The import map's path is answered from the consumer's node_modules, where npm put the dependency.
  const tokenizers = await fetch(`${first.url}node_modules/@huggingface/tokenizers/dist/tokenizers.min.mjs`);
  assert.equal(tokenizers.status, 200);
  assert.equal(
    await tokenizers.text(),
    readFileSync(`${app}/node_modules/@huggingface/tokenizers/dist/tokenizers.min.mjs`, 'utf8'),
  );
  assert.equal((await fetch(`${first.url}scripts/server.js`)).status, 404, "only the page's folders");
  assert.equal((await fetch(`${first.url}package.json`)).status, 404);
});

test('a port another program holds: it says so and serves on a free one', async () => {
  const { port } = new URL(first.url);
  const second = await startBin(['--port', port]);
  assert.match(second.output, new RegExp(`^attention-wasm: port ${port} is taken; using (\\d+) instead\\n`));
  assert.notEqual(new URL(second.url).port, port);
  assert.equal((await fetch(`${second.url}web/`)).status, 200);
});

test('stopping npm exec (npx) stops the server: nothing is left listening', async () => {
  const third = await startBin(['--port', '0']);
  const npm = children.at(-1);
  assert.equal((await fetch(`${third.url}web/`)).status, 200);
  // Only npm exec itself (not its group): the shell and the server under it are left to notice.
  process.kill(npm.pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  let listening = true;
  while (listening && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    listening = await fetch(`${third.url}web/`).then(
      () => true,
      () => false,
    );
  }
  assert.equal(listening, false, `still listening at ${third.url} 10 s after npm exec was stopped`);
});

test('a wrong option: exit code 2, the reason and the usage', () => {
  let failure = null;
  try {
    execFileSync('npx', ['attention-wasm', '--port', '80x'], { cwd: app, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    failure = error;
  }
  assert.equal(failure?.status, 2);
  assert.match(
    failure.stderr,
    /^attention-wasm: --port must be a whole number from 0 to 65535, got "80x"\nUsage: npx attention-wasm/,
  );
});

test(
  'in Chromium the page computes, cross-origin isolated, and the shipped model and classifier render',
  { timeout: 120_000 },
  async () => {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    try {
      await page.goto(`${first.url}web/`);
      await page.waitForSelector('body[data-ready]');
      assert.equal(await page.getAttribute('body', 'data-ready'), 'true', await page.textContent('#status'));
      assert.equal(await page.textContent('#status'), `attention-wasm ${version} loaded (wasm-relaxed-simd).`);
      assert.equal(await page.evaluate(() => globalThis.crossOriginIsolated), true);
      // Worked example 2: two tokens, so a 2×2 weight matrix whose rows sum to 1.
      const weights = await page.evaluate(() =>
        Array.from(
          document
            .getElementById('ex2')
            .shadowRoot.querySelector('attention-matrix[data-name="weights"]')
            .shadowRoot.querySelectorAll('td'),
          (td) => Number(td.dataset.value),
        ),
      );
      assert.equal(weights.length, 4);
      assert.ok(
        Math.abs(weights[0] + weights[1] - 1) < 1e-6 && Math.abs(weights[2] + weights[3] - 1) < 1e-6,
        String(weights),
      );
      // The shipped tiny GPT-2 (tokenized by the consumer's @huggingface/tokenizers): 2 layers of 4 heads.
      await page.locator('#model').scrollIntoViewIfNeeded();
      await page.waitForFunction(() => document.getElementById('model').toJSON().attentions, null, { timeout: 60_000 });
      const json = await page.evaluate(() => document.getElementById('model').toJSON());
      assert.equal(json.attentions.shape[0], 4, 'heads');
      assert.equal(json.tokens.length, json.attentions.shape[1]);
      // The shipped review classifier reads the page's sentence; its probabilities sum to 1.
      await page.locator('#sentiment').scrollIntoViewIfNeeded();
      await page.waitForFunction(() => document.getElementById('sentiment').prediction !== null, null, {
        timeout: 60_000,
      });
      const prediction = await page.evaluate(() => document.getElementById('sentiment').prediction);
      assert.equal(prediction.text, 'The plot is simple, but the acting is wonderful.');
      assert.ok(
        Math.abs(prediction.probabilities.reduce((a, b) => a + b, 0) - 1) < 1e-6,
        JSON.stringify(prediction.probabilities),
      );
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  'the model box loads a folder from another localhost port and says why a remote http: URL is refused',
  { timeout: 120_000 },
  async () => {
    const page = await browser.newPage();
    const errors = [];
    const fromModelHost = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('response', (r) => {
      if (r.url().startsWith(modelHost.url)) fromModelHost.push(`${r.status()} ${r.url().slice(modelHost.url.length)}`);
    });
    try {
      await page.goto(`${first.url}web/`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.locator('#model').scrollIntoViewIfNeeded();
      await page.waitForFunction(() => document.getElementById('model').toJSON().attentions, null, { timeout: 60_000 });
      await page.fill('#model-url', 'http://example.com/models/gpt2/');
      await page.click('#model-form button[type="submit"]');
      assert.equal(await page.isVisible('#model-url-refused'), true);
      assert.equal(
        await page.textContent('#model-url-refused'),
        'http://example.com is refused: this page fetches checkpoints over https:, and over plain http: only from this computer (localhost or 127.0.0.1), since files sent over plain http: from elsewhere can be changed on the way. Use the https: URL of the folder, serve it on this computer, or choose its files.',
      );
      assert.equal(await page.getAttribute('#model', 'src'), 'tiny-gpt2', 'the element keeps its model');
      const local = `${modelHost.url}web/elements/models/tiny-gpt2/`;
      await page.fill('#model-url', local);
      await page.click('#model-form button[type="submit"]');
      assert.equal(await page.isVisible('#model-url-refused'), false);
      await page.waitForFunction(() => document.getElementById('model').toJSON().attentions, null, { timeout: 60_000 });
      assert.equal(await page.getAttribute('#model', 'src'), local);
      for (const file of ['config.json', 'tokenizer.json', 'model.safetensors']) {
        assert.ok(
          fromModelHost.includes(`200 web/elements/models/tiny-gpt2/${file}`),
          `${file} from ${modelHost.url}: ${fromModelHost}`,
        );
      }
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  "the elements' bare page renders from the package; /docs/ says how to get the reference",
  { timeout: 60_000 },
  async () => {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
    });
    try {
      await page.goto(`${first.url}examples/embed.html`);
      await page.waitForFunction(() => [...document.querySelectorAll('attention-steps')].every((s) => s.stages));
      const matrices = await page.evaluate(() =>
        [...document.querySelectorAll('attention-steps')].map(
          (s) => s.shadowRoot.querySelectorAll('attention-matrix').length,
        ),
      );
      assert.equal(matrices.length, 2);
      assert.ok(
        matrices.every((n) => n >= 12),
        String(matrices),
      );
      await page.goto(`${first.url}web/`);
      await page.click('text=API reference');
      assert.equal(page.url(), `${first.url}docs/`);
      assert.match(
        await page.textContent('#docs-missing'),
        /The API reference is not built here \(the npm package does not carry it\)/,
      );
      await page.click('text=bindings/js/index.d.ts');
      assert.match(await page.content(), /export function init\(/);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);
