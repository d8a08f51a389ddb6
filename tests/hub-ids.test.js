// Hub ids (issue 33 C): loadModel('owner/name', { revision, hubUrl }) reads
// <hubUrl>/<owner>/<name>/resolve/<revision>/<file>, here from a local server that answers as
// the Hub does (404 for a missing file or revision, 401 for a gated model asked without a
// token). Pinned: the exact URLs asked for; the same model as from the folder; a 404 named
// with its URL and the token hint; a 401 explained; the token sent with every request; which
// strings are ids (strictly `owner/name` in the Hub's characters) and that a folder that
// exists wins over an id; bad options refused before any request.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, mkdirSync, rmSync, cpSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';

const attn = await init({ simd: 'baseline' });
const root = fileURLToPath(new URL('..', import.meta.url));
const fixtures = `${root}tests/fixtures/hf/`;
const scratch = `${root}build/test-hub/`;
const TOKEN = 'Bearer hf_test_token';
// The Hub's models: id → [fixture folder, revisions it has, gated].
const MODELS = {
  'tiny/gpt2': ['tiny-gpt2', ['main', 'v1.0', 'refs/pr/1'], false],
  'gated/llama': ['tiny-llama', ['main'], true],
};
let server, hubUrl;
const requests = []; // { path, authorization } of every request, in order

// /<prefix>?<owner>/<name>/resolve/<revision, escaped>/<file>, as the Hub answers it.
function answer(req, res) {
  const path = new URL(req.url, 'http://x').pathname;
  requests.push({ path, authorization: req.headers.authorization ?? null });
  const match = /^(?:\/mirror\/hf)?\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/([^/]+)$/.exec(path);
  const model = match && MODELS[match[1]];
  if (!model) return res.writeHead(401, { 'x-error-code': 'RepoNotFound' }).end();
  const [folder, revisions, gated] = model;
  if (gated && req.headers.authorization !== TOKEN) return res.writeHead(401, { 'x-error-code': 'GatedRepo' }).end();
  if (!revisions.includes(decodeURIComponent(match[2])))
    return res.writeHead(404, { 'x-error-code': 'RevisionNotFound' }).end();
  let body;
  try {
    body = readFileSync(`${fixtures}${folder}/${match[3]}`);
  } catch {
    return res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end();
  }
  res.writeHead(200, { 'content-length': body.length }).end(body);
}

test.before(async () => {
  server = createServer(answer);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  hubUrl = `http://127.0.0.1:${server.address().port}`;
});

test.after(() => {
  server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const paths = (from) => requests.slice(from).map((r) => r.path);
const logitsOf = (model) => Array.from(model.forward('The cat sat').logits.data);

test('an id reads <hubUrl>/<id>/resolve/main/<file>: the same model as the folder', async () => {
  const folder = await attn.loadModel(`${fixtures}tiny-gpt2`);
  const expected = logitsOf(folder);
  folder.dispose();
  const from = requests.length;
  const model = await attn.loadModel('tiny/gpt2', { hubUrl });
  assert.deepEqual(logitsOf(model), expected);
  model.dispose();
  const asked = paths(from);
  assert.deepEqual([...new Set(asked)].sort(), asked.slice().sort(), 'each file asked for once');
  assert.deepEqual(
    asked.slice().sort(),
    ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'].map(
      (f) => `/tiny/gpt2/resolve/main/${f}`,
    ),
  );
});

test('revision: a tag, and refs/pr/1 escaped into one path segment; a mirror under a path', async () => {
  for (const [revision, segment] of [
    ['v1.0', 'v1.0'],
    ['refs/pr/1', 'refs%2Fpr%2F1'],
  ]) {
    const from = requests.length;
    (await attn.loadModel('tiny/gpt2', { hubUrl, revision })).dispose();
    assert.ok(
      paths(from).length > 0 && paths(from).every((p) => p.startsWith(`/tiny/gpt2/resolve/${segment}/`)),
      `${revision}: ${paths(from)}`,
    );
  }
  for (const mirror of [`${hubUrl}/mirror/hf`, `${hubUrl}/mirror/hf/`, new URL(`${hubUrl}/mirror/hf`)]) {
    const from = requests.length;
    (await attn.loadModel('tiny/gpt2', { hubUrl: mirror })).dispose();
    assert.ok(paths(from).includes('/mirror/hf/tiny/gpt2/resolve/main/config.json'), `${mirror}: ${paths(from)}`);
  }
});

test('a missing model or revision is a 404 named with its URL and the token hint', async () => {
  const cases = [
    ['tiny/gpt2', { revision: 'v9' }, 'v9', '/tiny/gpt2/resolve/v9/config.json'],
    ['tiny/gpt2', { revision: 'deadbeef' }, 'deadbeef', '/tiny/gpt2/resolve/deadbeef/config.json'],
  ];
  for (const [id, options, revision, path] of cases) {
    await assert.rejects(attn.loadModel(id, { hubUrl, ...options }), (e) => {
      assert.ok(e instanceof RangeError, e.message);
      assert.equal(
        e.message,
        `loadModel: ${id} was not found on the Hub at revision '${revision}': ${hubUrl}${path} answered HTTP 404 (not found). ` +
          "Check the id and the revision; a gated or private model also needs a token: { fetchOptions: { headers: { Authorization: 'Bearer hf_…' } } }",
      );
      return true;
    });
  }
});

test('a gated model: 401 explained without a token; with fetchOptions.headers.Authorization every request carries it', async () => {
  await assert.rejects(attn.loadModel('gated/llama', { hubUrl }), (e) => {
    assert.ok(e instanceof RangeError, e.message);
    assert.equal(
      e.message,
      `loadModel: could not fetch ${hubUrl}/gated/llama/resolve/main/config.json: HTTP 401; the Hub answers 401 for a gated or private model asked without a token, ` +
        "and for a model that does not exist: check the id, or pass a token: { fetchOptions: { headers: { Authorization: 'Bearer hf_…' } } }",
    );
    return true;
  });
  await assert.rejects(attn.loadModel('nobody/nothing', { hubUrl }), /HTTP 401; the Hub answers 401/);
  const from = requests.length;
  const model = await attn.loadModel('gated/llama', { hubUrl, fetchOptions: { headers: { Authorization: TOKEN } } });
  const folder = await attn.loadModel(`${fixtures}tiny-llama`);
  assert.deepEqual(logitsOf(model), logitsOf(folder));
  model.dispose();
  folder.dispose();
  assert.ok(
    requests.slice(from).every((r) => r.authorization === TOKEN && r.path.startsWith('/gated/llama/resolve/main/')),
  );
});

test("only `owner/name` in the Hub's characters is an id; anything else is a folder path, and options.revision refuses it", async () => {
  const notIds = [
    'a/b/c',
    'a/../b',
    '../a',
    './a/b',
    '/a/b',
    'a//b',
    'a/b/',
    'a--b/c',
    'a/b..c',
    '-a/b',
    'a/b-',
    '.a/b',
    'a/b.',
    'a b/c',
    'a/b c',
    'a/ü',
    'a\\b',
    'a',
    `${'x'.repeat(97)}/b`,
  ];
  for (const text of notIds) {
    const from = requests.length;
    await assert.rejects(
      attn.loadModel(text, { hubUrl }),
      (e) => e instanceof RangeError && /(has no|no) config\.json|does not exist/.test(e.message),
      text,
    );
    await assert.rejects(
      attn.loadModel(text, { hubUrl, revision: 'main' }),
      (e) =>
        e instanceof TypeError &&
        e.message === "loadModel: options.revision is for a Hub id, but the source is not a Hub id ('owner/name')",
      text,
    );
    assert.equal(requests.length, from, `${text}: nothing was fetched`);
  }
  await assert.rejects(
    attn.loadModel({ 'config.json': '{}' }, { revision: 'main' }),
    /^TypeError: loadModel: options.revision is for a Hub id, but the source is not a Hub id/,
  );
  // The longest names the Hub allows are ids.
  await assert.rejects(attn.loadModel(`${'o'.repeat(96)}/${'n'.repeat(96)}`, { hubUrl }), /HTTP 401/);
  await assert.rejects(attn.loadModel('A_1.b-c/D_2.e-f', { hubUrl }), /HTTP 401/);
});

test('in Node a folder that exists wins over an id (as transformers decides); a file of that name does not', async () => {
  mkdirSync(`${scratch}tiny`, { recursive: true });
  cpSync(`${fixtures}tiny-gpt2`, `${scratch}tiny/gpt2`, { recursive: true });
  writeFileSync(`${scratch}tiny/llama`, 'not a folder');
  const cwd = process.cwd();
  process.chdir(scratch);
  try {
    const from = requests.length;
    const model = await attn.loadModel('tiny/gpt2', { hubUrl: 'http://127.0.0.1:9/' });
    assert.equal(model.modelType, 'gpt2');
    model.dispose();
    assert.equal(requests.length, from, 'the folder was read, nothing fetched');
    await assert.rejects(
      attn.loadModel('tiny/gpt2', { revision: 'v1.0', hubUrl }),
      (e) =>
        e instanceof TypeError &&
        e.message ===
          `loadModel: options.revision is for a Hub id, but 'tiny/gpt2' is a folder here (a folder that exists wins over a Hub id; give the Hub's URL, ${hubUrl}/tiny/gpt2/resolve/v1.0/, to load from the Hub)`,
    );
    await assert.rejects(
      attn.loadModel('tiny/llama', { hubUrl }),
      /^RangeError: loadModel: could not fetch http:\/\/127\.0\.0\.1:\d+\/tiny\/llama\/resolve\/main\/config\.json: HTTP 401/,
    );
    assert.deepEqual(paths(from), ['/tiny/llama/resolve/main/config.json']);
  } finally {
    process.chdir(cwd);
  }
});

test('bad revision and hubUrl options: typed errors before any request', async () => {
  const from = requests.length;
  const cases = [
    [
      { revision: 42 },
      TypeError,
      /^loadModel: options.revision must be a string \(a branch, tag or commit\), got a number \(42\)$/,
    ],
    [{ revision: '' }, RangeError, /^loadModel: options.revision "" is not a branch, tag or commit name/],
    ...['..', '.', 'a/../b', 'a/./b', '.hidden', 'a/', '/a', 'a//b', 'a b', 'a?b', 'a#b', 'a%2Fb', 'x'.repeat(256)].map(
      (revision) => [{ revision }, RangeError, /^loadModel: options.revision .* is not a branch, tag or commit name/],
    ),
    [{ hubUrl: 42 }, TypeError, /^loadModel: options.hubUrl must be a string or URL/],
    [{ hubUrl: 'huggingface.co' }, RangeError, /^loadModel: options.hubUrl "huggingface.co" is not an absolute URL/],
    [
      { hubUrl: 'ftp://example.org/' },
      RangeError,
      /^loadModel: options.hubUrl must be an http\(s\) URL, got a ftp: URL/,
    ],
    [
      { hubUrl: 'https://user:pass@example.org/' },
      RangeError,
      /^loadModel: options.hubUrl may not hold a query, a fragment or credentials/,
    ],
    [{ hubUrl: 'https://example.org/?x=1' }, RangeError, /may not hold a query/],
    [{ hubUrl: 'https://example.org/#x' }, RangeError, /may not hold a query/],
  ];
  for (const [options, type, pattern] of cases) {
    await assert.rejects(
      attn.loadModel('tiny/gpt2', options),
      (e) => e instanceof type && pattern.test(e.message),
      JSON.stringify(options),
    );
  }
  assert.equal(requests.length, from, 'nothing was fetched');
});
