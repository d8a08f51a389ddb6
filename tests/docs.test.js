// The API reference: TypeDoc builds it from bindings/js/index.d.ts with warnings as errors
// (typedoc.json: every export, property and signature documented, links valid), so an
// undocumented export fails here; the pages of the main exports exist and carry their
// examples; and npm start's server serves it at /docs/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, rmSync, readdirSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const typedoc = `${root}node_modules/.bin/typedoc`;

function runTypedoc(args) {
  return spawnSync(typedoc, ['--options', `${root}typedoc.json`, ...args], { cwd: root, encoding: 'utf8' });
}

test('TypeDoc builds the reference with warnings as errors; the main exports have pages with examples', { timeout: 120_000 }, (t) => {
  const out = `${root}build/docs-test`;
  rmSync(out, { recursive: true, force: true });
  const started = performance.now();
  const result = runTypedoc(['--out', out]);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  const pages = [];
  const walk = (dir) => readdirSync(dir, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.html') && pages.push(`${dir}/${e.name}`)));
  walk(out);
  t.diagnostic(`${pages.length} pages in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const page of ['index.html', 'functions/init.html', 'interfaces/AttentionWasm.html', 'classes/MultiHeadAttention.html', 'classes/TransformerEncoderLayer.html', 'interfaces/InitOptions.html', 'interfaces/BuildInfo.html', 'types/TensorLike.html']) {
    assert.ok(existsSync(`${out}/${page}`), `${page} is generated`);
  }
  const initPage = readFileSync(`${out}/functions/init.html`, 'utf8');
  assert.ok(initPage.includes('the best build this engine runs'), 'the init example is on its page');
  const api = readFileSync(`${out}/interfaces/AttentionWasm.html`, 'utf8');
  for (const member of ['attention', 'matmul', 'estimateMemory', 'laplacianEncoding', 'toOrt']) assert.ok(api.includes(`id="${member.toLowerCase()}"`) || api.includes(`>${member}<`), `AttentionWasm.${member} is documented`);
});

test('an undocumented export fails the docs build, naming it', { timeout: 120_000 }, () => {
  const dir = `${root}build/docs-undocumented`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/index.d.ts`, `${readFileSync(`${root}bindings/js/index.d.ts`, 'utf8')}\nexport function undocumentedThing(): void;\n`);
  const result = runTypedoc(['--entryPoints', `${dir}/index.d.ts`, '--out', `${dir}/out`]);
  assert.notEqual(result.status, 0);
  assert.match(result.stdout + result.stderr, /undocumentedThing.*does not have any documentation/);
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
