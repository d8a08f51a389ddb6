// The package as users get it: its entries, its init options, what npm would publish.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { execFileSync } from 'node:child_process';
import { init, VERSION } from 'attention-wasm';
import { init as initBrowser } from 'attention-wasm/browser';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
const wasmUrl = new URL('../dist/attention.wasm', import.meta.url);

const smallCase = () => [
  [
    [1, 0],
    [0, 1],
  ],
  [
    [1, 0],
    [0, 1],
  ],
  [
    [10, 0],
    [0, 10],
  ],
];
// By hand: scores [[1, 0], [0, 1]] / sqrt(2); softmax row 0 = [e^a, 1] / (e^a + 1), a = 1/sqrt(2).
const a = Math.exp(1 / Math.sqrt(2));
const expected = [(10 * a) / (a + 1), 10 / (a + 1), 10 / (a + 1), (10 * a) / (a + 1)];

function assertSmallCase(api) {
  const out = api.attention(...smallCase()).output;
  out.data.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) < 1e-5, `${x} vs ${expected[i]}`));
}

test('Node entry: init() loads once, reports version and SIMD', async () => {
  const api = await init();
  assert.equal(await init(), api, 'the default instance is shared');
  assert.equal(api.info.version, pkg.version);
  assert.equal(VERSION, pkg.version);
  assert.equal(api.info.simd, true);
  assert.equal(api.info.target, 'wasm-simd128');
  assertSmallCase(api);
});

test('Node entry: init({ wasmBinary }) and init({ wasmUrl }) give independent instances', async () => {
  const fromBinary = await init({ wasmBinary: await readFile(wasmUrl) });
  const fromUrl = await init({ wasmUrl });
  assert.notEqual(fromBinary, await init());
  assertSmallCase(fromBinary);
  assertSmallCase(fromUrl);
});

test('browser entry loads under Node when given wasmBinary', async () => {
  const api = await initBrowser({ wasmBinary: new Uint8Array(await readFile(wasmUrl)) });
  assert.equal(api.info.version, pkg.version);
  assertSmallCase(api);
});

test('init rejects bad options with typed errors', async () => {
  await assert.rejects(
    init({ wasmBinary: 'abc' }),
    (e) => e instanceof TypeError && /^init: options\.wasmBinary/.test(e.message),
  );
  await assert.rejects(
    init({ wasmPath: 'x' }),
    (e) => e instanceof TypeError && /unknown option 'wasmPath'/.test(e.message),
  );
});

test('tensor and toNested convert both ways', async () => {
  const api = await init();
  const t = api.tensor([1, 2, 3, 4, 5, 6], [2, 3]);
  assert.ok(t.data instanceof Float32Array);
  assert.deepEqual(api.toNested(t), [
    [1, 2, 3],
    [4, 5, 6],
  ]);
  assert.throws(
    () => api.tensor([1, 2, 3], [2, 2]),
    (e) => e instanceof RangeError && /^tensor: /.test(e.message),
  );
});

test('package.json exports types, node and browser conditions', () => {
  assert.equal(pkg.name, 'attention-wasm');
  assert.equal(pkg.type, 'module');
  assert.deepEqual(Object.keys(pkg.exports['.']), ['types', 'node', 'default']);
  assert.deepEqual(
    pkg.sideEffects,
    ['./web/elements/index.js'],
    'tree shaking, except the module that registers the elements (tests/bundler.test.js checks both)',
  );
  assert.equal(pkg.exports['./dist/*'], './dist/*', 'the wasm files are importable, e.g. for a bundler ?url import');
  assert.deepEqual(
    pkg.bin,
    { 'attention-wasm': 'bin/attention-wasm.js' },
    'npx attention-wasm serves the page (tests/npx-bin.test.js)',
  );
});

test('npm pack --dry-run lists the wasm, the glue and the types', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json'], {
    encoding: 'utf8',
    cwd: new URL('..', import.meta.url),
  });
  const files = JSON.parse(out)[0].files.map((f) => f.path);
  for (const f of [
    'dist/attention.wasm',
    'dist/attention.js',
    'dist/attention-relaxed.wasm',
    'dist/attention-relaxed.js',
    'dist/attention-threads.wasm',
    'dist/attention-threads.worker.cjs',
    'dist/attention-relaxed-threads.worker.js',
    'bindings/js/index.d.ts',
    'bindings/js/node.js',
    'bindings/js/browser.js',
    'package.json',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
  ]) {
    assert.ok(files.includes(f), `${f} is packed (got ${files.join(', ')})`);
  }
  // What `npx attention-wasm` serves ships too: the page, the two benchmark modules it imports,
  // the examples and the server.
  for (const f of [
    'bin/attention-wasm.js',
    'scripts/server.js',
    'web/index.html',
    'web/main.js',
    'web/api-reference.html',
    'bench/cases.js',
    'bench/plain-js.js',
    'examples/embed.html',
  ]) {
    assert.ok(files.includes(f), `${f} is packed for npx attention-wasm`);
  }
  const page = new Set(['scripts/server.js', 'bench/cases.js', 'bench/plain-js.js']);
  const outside = files.filter(
    (f) => (/^(src|tests|build|bench|scripts|node_modules)\//.test(f) && !page.has(f)) || f.endsWith('.tgz'),
  );
  assert.deepEqual(outside, [], 'sources, tests, build folders, the API reference and bench results stay out');
  // The README's links work on npm too: every file README.md and docs/ link to is packed.
  const linked = new Set();
  for (const doc of ['README.md', ...files.filter((f) => /^docs\/[^/]+\.md$/.test(f))]) {
    const text = readFileSync(new URL(`../${doc}`, import.meta.url), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (!/^[a-z]+:/.test(target)) linked.add(posix.join(posix.dirname(doc), target));
    }
  }
  assert.ok(linked.has('docs/api.md') && linked.has('docs/adding-an-architecture.md'), [...linked].join(', '));
  for (const f of linked) assert.ok(files.includes(f), `${f}, linked from the README or docs/, is packed`);
});
