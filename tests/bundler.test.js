// The package in a browser as users get it from node_modules: through each bundler (small
// apps built with Vite, webpack 5, esbuild and Rollup, which pick the `default` export
// condition, split the glue the page chooses into a chunk of its own, and find the wasm
// through new URL(..., import.meta.url) or next to the chunks), without one (the README's
// HTML snippet), and inside a module Web Worker; each served over http (cross-origin
// isolated, as scripts/server.js does) and run in headless Chromium.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync, symlinkSync, readdirSync, readFileSync, copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import webpack from 'webpack';
import { build as esbuild } from 'esbuild';
import { rollup } from 'rollup';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));

// A folder whose node_modules/attention-wasm is this package (as if npm-installed). Its own
// package.json keeps bundlers from resolving 'attention-wasm' as the enclosing package's
// self-reference (build/ is inside this package), so they go through node_modules.
function appFolder(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(`${dir}/node_modules`, { recursive: true });
  writeFileSync(`${dir}/package.json`, '{ "name": "app", "private": true, "type": "module" }\n');
  symlinkSync(root, `${dir}/node_modules/attention-wasm`, 'dir');
}

// Serves `dir` and starts Chromium; `visit(path, ready)` loads `path` in a fresh page and
// returns the page's errors, its body text once `ready` holds, and the .wasm files it fetched.
async function withChromium(dir, use) {
  const { server, url } = await startServer({ port: 0, root: dir, served: null });
  const browser = await launchChromium(['--disable-quic', '--disable-sync']);
  const visit = async (path, ready) => {
    const page = await browser.newPage();
    const errors = [];
    const wasm = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (r.url().endsWith('.wasm')) wasm.push(r.url().slice(url.length));
    });
    // Failed requests count, except the favicon the browser asks for by itself.
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
    });
    page.on('requestfailed', (r) => errors.push(`failed ${r.url()}: ${r.failure()?.errorText}`));
    await page.goto(`${url}${path}`);
    await page.waitForFunction(ready, null, { timeout: 30_000 });
    const text = await page.textContent('body');
    await page.close();
    return { errors, wasm, text };
  };
  try {
    return await use(visit);
  } finally {
    await browser.close();
    server.close();
  }
}

const runInChromium = (dir, path, ready) => withChromium(dir, (visit) => visit(path, ready));

// The app every bundler builds: the default build (or, with ?simd=baseline, the baseline
// one), then (where asked) the threaded one.
const APP_HTML =
  '<!doctype html><html><body><pre id="out">loading</pre><script type="module" src="./main.js"></script></body></html>';
const appSource = ({ threads }) => `import { init } from 'attention-wasm';
const simd = new URLSearchParams(location.search).get('simd') ?? undefined;
const attn = await init({ simd });
const r = attn.attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[10, 0], [0, 10]]);
const result = { build: attn.info.build, target: attn.info.target, output: Array.from(r.output.data) };
${
  threads
    ? `const threaded = await init({ simd, threads: 2 });
const x = threaded.tensor(Float32Array.from({ length: 300 * 64 }, (_, i) => Math.sin(i)), [300, 64]);
const big = threaded.attention(x, x, x, { causal: true }).output.data;
const same = attn.attention(x, x, x, { causal: true }).output.data;
result.threads = { threads: threaded.info.threads, reason: threaded.info.threadsReason, identical: big.every((v, i) => Object.is(v, same[i])) };`
    : ''
}
document.getElementById('out').textContent = JSON.stringify(result);
`;

// By hand: softmax([1, 0]/sqrt(2)) = [a, 1]/(a + 1), a = e^(1/sqrt 2); times 10.
function assertKnownResult(result, build = 'relaxed') {
  assert.equal(
    result.build,
    build,
    build === 'relaxed' ? 'Chromium runs relaxed SIMD, so init() loads that build' : 'init({ simd }) picks the build',
  );
  assert.equal(result.target, build === 'relaxed' ? 'wasm-relaxed-simd' : 'wasm-simd128');
  const a = Math.exp(1 / Math.sqrt(2));
  const expected = [(10 * a) / (a + 1), 10 / (a + 1), 10 / (a + 1), (10 * a) / (a + 1)];
  result.output.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) < 1e-5, `${x} vs ${expected[i]}`));
}

// Bytes and gzipped bytes of the files of a built app, JS and wasm apart.
function sizes(dir) {
  const out = { js: 0, jsGzip: 0, wasm: 0, wasmGzip: 0 };
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = `${d}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
        continue;
      }
      const kind = /\.(m?js)$/.test(entry.name) ? 'js' : entry.name.endsWith('.wasm') ? 'wasm' : null;
      if (!kind) continue;
      const bytes = readFileSync(path);
      out[kind] += bytes.length;
      out[`${kind}Gzip`] += gzipSync(bytes, { level: 9 }).length;
    }
  };
  walk(dir);
  return out;
}

// Copies the package's wasm files (and the threaded builds' workers) next to a bundle: what
// a bundler that leaves new URL(..., import.meta.url) alone (esbuild, Rollup) needs.
function copyWasm(outDir) {
  for (const file of readdirSync(`${root}dist`).filter((f) => f.endsWith('.wasm')))
    copyFileSync(`${root}dist/${file}`, `${outDir}/${file}`);
}

// Which of the package's builds a fetched wasm is (bundlers rename it), by its bytes.
const DIST_WASM = readdirSync(`${root}dist`)
  .filter((f) => f.endsWith('.wasm'))
  .map((f) => [f, readFileSync(`${root}dist/${f}`)]);
function buildOfFile(path) {
  const bytes = readFileSync(path);
  return DIST_WASM.find(([, b]) => b.equals(bytes))?.[0] ?? `unknown (${path})`;
}

// Runs the app twice in one Chromium: init() (relaxed there) and init({ simd: 'baseline' });
// each must compute the known result and fetch only its own build's wasm.
async function checkApp(t, name, outDir, { threads = false } = {}) {
  const ready = () => document.getElementById('out').textContent !== 'loading';
  const runs = await withChromium(outDir, async (visit) => [
    await visit('index.html', ready),
    await visit('index.html?simd=baseline', ready),
  ]);
  for (const [{ errors, wasm, text }, build] of [
    [runs[0], 'relaxed'],
    [runs[1], 'baseline'],
  ]) {
    assert.deepEqual(errors, [], build);
    const result = JSON.parse(text.trim());
    assertKnownResult(result, build);
    const fetched = wasm.map((path) => buildOfFile(`${outDir}/${path.split('?')[0]}`));
    const own = build === 'relaxed' ? 'attention-relaxed' : 'attention';
    if (threads) {
      assert.deepEqual(result.threads, { threads: 2, reason: null, identical: true }, build);
      assert.deepEqual(
        fetched,
        [`${own}.wasm`, `${own}-threads.wasm`],
        'the chosen single- and multi-threaded builds only',
      );
    } else {
      assert.deepEqual(fetched, [`${own}.wasm`], `one wasm fetched, the chosen build's: ${wasm.join(', ')}`);
    }
  }
  const s = sizes(outDir);
  t.diagnostic(
    `${name}: JS ${(s.js / 1024).toFixed(1)} KB (${(s.jsGzip / 1024).toFixed(1)} KB gzip), wasm ${(s.wasm / 1024).toFixed(1)} KB (${(s.wasmGzip / 1024).toFixed(1)} KB gzip) emitted; fetched: ${runs[0].wasm.join(', ')}; with simd baseline: ${runs[1].wasm.join(', ')}`,
  );
}

// The elements in a built app (index.html?elements): a matrix given its JSON as a property
// (as React and Vue set it), <attention-training> whose Worker the bundler built, and the model
// the package ships (src="tiny-gpt2"), whose files the bundler must copy.
const ELEMENTS_SOURCE = `if (new URLSearchParams(location.search).has('elements')) {
  await import('attention-wasm/elements');
  const m = document.createElement('attention-matrix');
  m.value = '[[1, 2], [3, 4]]';
  const t = document.createElement('attention-training');
  t.setAttribute('task', 'copy');
  t.setAttribute('steps', '20');
  t.setAttribute('every', '10');
  const s = document.createElement('attention-sentiment');
  s.setAttribute('eager', '');
  s.setAttribute('text', 'a waste of two hours');
  const predicted = new Promise((resolve) => s.addEventListener('prediction', (e) => resolve(e.detail), { once: true }));
  const x = document.createElement('attention-model');
  x.setAttribute('eager', '');
  x.setAttribute('src', 'tiny-gpt2');
  x.setAttribute('text', 'The cat sat');
  const loaded = new Promise((resolve) => x.addEventListener('modelload', (e) => resolve(e.detail.model), { once: true }));
  document.body.append(m, t, s, x);
  t.train();
  const done = await new Promise((resolve) => t.addEventListener('training-done', (e) => resolve(e.detail), { once: true }));
  const review = await predicted;
  const shipped = await loaded;
  document.getElementById('out').textContent = JSON.stringify({ value: Array.from(m.value.data), step: done.step, losses: t.history.map((h) => h.loss), review: review.label, shipped: shipped.descriptor.numLayers });
}`;

// The app of appSource with the elements' part in front: one or the other runs.
function withElements(source) {
  const [importLine, ...rest] = source.split('\n');
  return `${importLine}\n${ELEMENTS_SOURCE} else {\n${rest.join('\n')}\n}\n`;
}

async function checkElements(outDir) {
  const { errors, text } = await runInChromium(
    outDir,
    'index.html?elements',
    () => document.getElementById('out').textContent !== 'loading',
  );
  assert.deepEqual(errors, []);
  const result = JSON.parse(text.trim());
  assert.deepEqual(result.value, [1, 2, 3, 4]);
  assert.equal(result.step, 20);
  assert.ok(
    result.losses.length >= 2 && result.losses.every((l) => Number.isFinite(l) && l > 0),
    JSON.stringify(result),
  );
  assert.equal(result.review, 'negative', '<attention-sentiment> found its shipped classifier in the bundle');
  assert.equal(result.shipped, 2, '<attention-model src="tiny-gpt2"> found the shipped GPT-2 (2 layers) in the bundle');
}

// `vite build` from the CLI in an app with no config file, as a user runs it.
for (const [name, bin] of [
  ['Vite 8', 'vite/bin/vite.js'],
  ['Vite 7', 'vite7/bin/vite.js'],
]) {
  test(
    `${name}, no config file: an app with the package and its elements builds; the wasm an asset, threads and the training Worker run`,
    { timeout: 240_000 },
    async (t) => {
      const app = `${root}build/${name.replace(' ', '').toLowerCase()}-app`;
      appFolder(app);
      writeFileSync(`${app}/index.html`, APP_HTML);
      writeFileSync(`${app}/main.js`, withElements(appSource({ threads: true })));
      execFileSync(process.execPath, [`${root}node_modules/${bin}`, 'build'], { cwd: app, stdio: 'pipe' });
      const assets = readdirSync(`${app}/dist/assets`);
      assert.ok(
        assets.some((f) => f.endsWith('.wasm')),
        `the wasm is emitted as an asset: ${assets}`,
      );
      await checkApp(t, name, `${app}/dist`, { threads: true });
      await checkElements(`${app}/dist`);
    },
  );
}

test(
  "Vite 8: `import 'attention-wasm/elements/react'` and `'.../vue'` written as plain imports (TypeScript accepts them as it does `import type {}`) build, and add nothing",
  { timeout: 120_000 },
  () => {
    const app = `${root}build/vite-typings-app`;
    appFolder(app);
    writeFileSync(`${app}/index.html`, APP_HTML);
    writeFileSync(
      `${app}/main.js`,
      "import 'attention-wasm/elements/react';\nimport 'attention-wasm/elements/vue';\ndocument.getElementById('out').textContent = 'ok';\n",
    );
    let log = '';
    try {
      execFileSync(process.execPath, [`${root}node_modules/vite/bin/vite.js`, 'build'], { cwd: app, stdio: 'pipe' });
    } catch (error) {
      log = `${error.stdout}${error.stderr}`;
    }
    assert.equal(log, '', 'vite build failed');
    const js = readdirSync(`${app}/dist/assets`).filter((f) => f.endsWith('.js'));
    assert.equal(js.length, 1, `one entry chunk: ${js}`);
    const entry = readFileSync(`${app}/dist/assets/${js[0]}`, 'utf8');
    assert.ok(
      entry.length < 2000 && !/attention|wasm/i.test(entry),
      `the typings modules add no code: ${entry.slice(0, 300)}`,
    );
  },
);

test(
  'webpack 5: an app loads the package, the wasm emitted as an asset through new URL',
  { timeout: 180_000 },
  async (t) => {
    const app = `${root}build/webpack-app`;
    appFolder(app);
    writeFileSync(`${app}/main.js`, appSource({ threads: false }));
    const stats = await new Promise((resolve, reject) =>
      webpack(
        {
          mode: 'production',
          context: app,
          entry: './main.js',
          output: { path: `${app}/dist`, filename: 'main.js', publicPath: 'auto', clean: true },
          experiments: { topLevelAwait: true },
          performance: { hints: false },
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      ),
    );
    assert.deepEqual(stats.compilation.errors.map(String), []);
    writeFileSync(`${app}/dist/index.html`, APP_HTML);
    assert.ok(
      readdirSync(`${app}/dist`).some((f) => f.endsWith('.wasm')),
      'the wasm is emitted',
    );
    await checkApp(t, 'webpack', `${app}/dist`);
  },
);

test(
  'esbuild: an app loads the package (code splitting; the wasm files copied beside the chunks)',
  { timeout: 180_000 },
  async (t) => {
    const app = `${root}build/esbuild-app`;
    appFolder(app);
    writeFileSync(`${app}/main.js`, appSource({ threads: false }));
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
    copyWasm(`${app}/dist`);
    writeFileSync(`${app}/dist/index.html`, APP_HTML);
    await checkApp(t, 'esbuild', `${app}/dist`);
  },
);

test(
  'Rollup: an app loads the package (node-resolve, output.dir; the wasm files copied beside the chunks)',
  { timeout: 180_000 },
  async (t) => {
    const app = `${root}build/rollup-app`;
    appFolder(app);
    writeFileSync(`${app}/main.js`, appSource({ threads: false }));
    const bundle = await rollup({
      input: `${app}/main.js`,
      plugins: [nodeResolve({ browser: true })],
      onwarn: () => {},
    });
    await bundle.write({ dir: `${app}/dist`, format: 'es' });
    await bundle.close();
    copyWasm(`${app}/dist`);
    writeFileSync(`${app}/dist/index.html`, APP_HTML);
    await checkApp(t, 'Rollup', `${app}/dist`);
  },
);

test('tree shaking ("sideEffects" lists only the elements entry): a bundle that uses only tensor() is small and never loads a glue; the elements import is kept', async () => {
  const app = `${root}build/treeshake-app`;
  appFolder(app);
  writeFileSync(`${app}/main.js`, "import { tensor } from 'attention-wasm';\nconsole.log(tensor([1, 2, 3]).shape);\n");
  const out = await esbuild({
    absWorkingDir: app,
    entryPoints: ['main.js'],
    bundle: true,
    splitting: true,
    format: 'esm',
    outdir: `${app}/dist`,
    write: false,
    minify: true,
    logLevel: 'error',
  });
  const entry = out.outputFiles.find((f) => f.path.endsWith('/main.js')).text;
  // esbuild still writes a chunk per dynamic import it saw; the entry never imports one.
  assert.ok(
    !/createAttentionModule|import\(|\.wasm/.test(entry),
    `no glue reached from the entry: ${entry.slice(0, 300)}`,
  );
  assert.ok(entry.length < 5_000, `the entry is ${entry.length} bytes`);
  // The one module with a side effect, listed in "sideEffects": importing it for the
  // registration alone must keep customElements.define (with false, bundlers drop the import).
  writeFileSync(`${app}/elements.js`, "import 'attention-wasm/elements';\n");
  const elements = await esbuild({
    absWorkingDir: app,
    entryPoints: ['elements.js'],
    bundle: true,
    splitting: true,
    format: 'esm',
    outdir: `${app}/dist`,
    write: false,
    minify: true,
    logLevel: 'error',
  });
  const registered = elements.outputFiles.find((f) => f.path.endsWith('/elements.js')).text;
  assert.match(registered, /customElements\.define/, "import 'attention-wasm/elements' registers the elements");
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

test(
  'the package loads and computes inside a module Web Worker, and loads the shipped model there',
  { timeout: 120_000 },
  async () => {
    const dir = `${root}build/worker-app`;
    appFolder(dir);
    // The tokenizer library beside the package, as npm installs it: a Worker has no import map,
    // so the package imports it by its path in node_modules.
    symlinkSync(`${root}node_modules/@huggingface`, `${dir}/node_modules/@huggingface`, 'dir');
    writeFileSync(
      `${dir}/worker.js`,
      `import { init } from './node_modules/attention-wasm/bindings/js/browser.js';
const attn = await init();
const r = attn.attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[10, 0], [0, 10]], { causal: true });
const model = await attn.loadModel(new URL('./node_modules/attention-wasm/web/elements/models/tiny-gpt2/', self.location.href).href);
const f = model.forward('The cat', { attentions: true });
const [, , T] = f.attentions[0].shape.slice(-3);
const rowSums = Array.from({ length: T }, (_, i) => f.attentions[0].data.slice(i * T, (i + 1) * T).reduce((a, b) => a + b));
postMessage({ target: attn.info.target, output: Array.from(r.output.data), tokens: f.tokens[0].map((t) => t.text), rowSums });
`,
    );
    writeFileSync(
      `${dir}/index.html`,
      `<!doctype html><html><head><script type="module">
const worker = new Worker('./worker.js', { type: 'module' });
worker.onmessage = (e) => { document.getElementById('out').textContent = JSON.stringify(e.data); };
worker.onerror = (e) => { document.getElementById('out').textContent = 'error: ' + e.message; };
</script></head><body><pre id="out">loading</pre></body></html>`,
    );
    const { errors, text } = await runInChromium(
      dir,
      'index.html',
      () => document.getElementById('out').textContent !== 'loading',
    );
    assert.deepEqual(errors, []);
    const result = JSON.parse(text.trim());
    assert.equal(result.target, 'wasm-relaxed-simd', 'Chromium runs relaxed SIMD, so init() loads that build');
    // Causal: row 0 sees only key 0 (→ [10, 0]); row 1 as softmax([0, 1]/sqrt 2).
    const a = Math.exp(1 / Math.sqrt(2));
    const expected = [10, 0, 10 / (a + 1), (10 * a) / (a + 1)];
    result.output.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) < 1e-5, `${x} vs ${expected[i]}`));
    // The shipped tiny GPT-2's byte-level BPE, as in Node: "The", "Ġ", "c", "at"; each query's
    // weights sum to 1 (a decoder's row 0 is [1, 0, 0, 0]).
    assert.deepEqual(result.tokens, ['The', 'Ġ', 'c', 'at']);
    result.rowSums.forEach((sum) => assert.ok(Math.abs(sum - 1) < 1e-6, String(sum)));
  },
);
