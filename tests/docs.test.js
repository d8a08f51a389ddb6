// The API reference: TypeDoc builds it from bindings/js/index.d.ts with warnings as errors
// (typedoc.json: every export, property and signature documented, links valid), so an
// undocumented export fails here; the pages of the main exports exist and carry their
// examples; and npm start's server serves it at /docs/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, rmSync, readdirSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const typedoc = `${root}node_modules/.bin/typedoc`;

// Runs TypeDoc with the project's options (plus `args`); resolves to { status, output, seconds }.
function runTypedoc(args) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(typedoc, ['--options', `${root}typedoc.json`, ...args], { cwd: root });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output, seconds: (performance.now() - started) / 1000 }));
  });
}

// Both builds run at once (each takes several seconds).
const out = `${root}build/docs-test`;
rmSync(out, { recursive: true, force: true });
const undocumentedDir = `${root}build/docs-undocumented`;
rmSync(undocumentedDir, { recursive: true, force: true });
mkdirSync(undocumentedDir, { recursive: true });
writeFileSync(
  `${undocumentedDir}/index.d.ts`,
  `${readFileSync(`${root}bindings/js/index.d.ts`, 'utf8')}\nexport function undocumentedThing(): void;\n`,
);
const built = runTypedoc(['--out', out]);
const undocumented = runTypedoc(['--entryPoints', `${undocumentedDir}/index.d.ts`, '--out', `${undocumentedDir}/out`]);

test(
  'TypeDoc builds the reference with warnings as errors; the main exports have pages with examples',
  { timeout: 120_000 },
  async (t) => {
    const result = await built;
    assert.equal(result.status, 0, result.output);
    const pages = [];
    const walk = (dir) =>
      readdirSync(dir, { withFileTypes: true }).forEach((e) =>
        e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.html') && pages.push(`${dir}/${e.name}`),
      );
    walk(out);
    t.diagnostic(`${pages.length} pages in ${result.seconds.toFixed(1)} s`);
    // The layer classes are exported as types only (they are reached through attn), which
    // TypeDoc documents as interfaces.
    // Two modules: attention-wasm (the API) and attention-wasm/elements (pages prefixed
    // attention-wasm_elements.).
    const api = (page) => page.replace('/', '/attention-wasm.');
    for (const page of [
      'functions/init.html',
      'functions/tensor.html',
      'variables/VERSION.html',
      'interfaces/AttentionWasm.html',
      'interfaces/MultiHeadAttention.html',
      'interfaces/TransformerEncoderLayer.html',
      'interfaces/InitOptions.html',
      'interfaces/BuildInfo.html',
      'interfaces/AttentionOptions.html',
      'types/TensorLike.html',
    ]) {
      assert.ok(existsSync(`${out}/${api(page)}`), `${api(page)} is generated`);
    }
    assert.ok(existsSync(`${out}/index.html`));
    // The elements' classes, with the export methods the README documents.
    for (const element of [
      'AttentionMatrix',
      'AttentionSteps',
      'AttentionFlash',
      'AttentionHeatmap',
      'PositionalEncoding',
      'TokenPruning',
    ]) {
      const page = readFileSync(`${out}/classes/attention-wasm_elements.${element}.html`, 'utf8');
      for (const method of ['toPNG', 'toJSON', 'toCode'])
        assert.ok(page.includes(`id="${method.toLowerCase()}"`), `${element}.${method} is documented`);
    }
    const text = (page) =>
      readFileSync(`${out}/${page}`, 'utf8')
        .replace(/<[^>]+>/g, '')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&gt;/g, '>');
    const initPage = text(api('functions/init.html'));
    assert.ok(initPage.includes('the best build this engine runs'), 'the init example is on its page');
    assert.match(initPage, /Throws.*init: unknown option/s, 'init documents its errors');
    assert.match(
      text(api('interfaces/MultiHeadAttention.html')),
      /new attn\.MultiHeadAttention\(\{ dModel: 64, numHeads: 4, seed: 1 \}\)/,
      'the layer example is on its page',
    );
    const apiPage = readFileSync(`${out}/${api('interfaces/AttentionWasm.html')}`, 'utf8');
    for (const member of ['attention', 'matmul', 'estimateMemory', 'laplacianEncoding', 'toOrt'])
      assert.ok(
        apiPage.includes(`id="${member.toLowerCase()}"`) || apiPage.includes(`>${member}<`),
        `AttentionWasm.${member} is documented`,
      );
  },
);

test('an undocumented export fails the docs build, naming it', { timeout: 120_000 }, async () => {
  const result = await undocumented;
  assert.notEqual(result.status, 0);
  assert.match(result.output, /undocumentedThing.*does not have any documentation/);
});

test('the server serves the reference at /docs/ (npm start)', async () => {
  assert.ok(existsSync(`${root}build/docs-test/index.html`), 'built by the first test');
  // The server maps /docs/ to build/docs; point a server at a root whose build/docs is the test build.
  const fake = `${root}build/docs-root`;
  rmSync(fake, { recursive: true, force: true });
  mkdirSync(`${fake}/build`, { recursive: true });
  spawnSync('cp', ['-r', `${root}build/docs-test`, `${fake}/build/docs`]);
  const { server, url } = await startServer({ port: 0, root: fake, served: ['web'] });
  try {
    const page = await fetch(`${url}docs/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /attention-wasm/);
    assert.equal(page.headers.get('cross-origin-embedder-policy'), 'require-corp');
    const redirect = await fetch(`${url}docs`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.equal((await fetch(`${url}build/docs/index.html`)).status, 200);
    assert.equal((await fetch(`${url}build/other.txt`)).status, 404, 'only the docs of build/');
  } finally {
    server.close();
  }
});
