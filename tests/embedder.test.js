// Sentence embedders (issue 33 B): a sentence-transformers folder (modules.json, 1_Pooling,
// Normalize, sentence_bert_config.json) loaded by loadModel embeds texts as
// sentence-transformers does, against float64 PyTorch embeddings written by
// scripts/make-hf-fixtures.py from its Transformer/Pooling/Normalize semantics: a MiniLM-style
// folder (mean pooling, Normalize, max_seq_length 9, which truncates the third text) and a
// BGE-style one (CLS pooling, Normalize, do_lower_case), from a folder, bytes, Files and a URL.
// A padded batch gives each text's embedding alone; every pooling mode and the six together
// match; options override the folder's; any encoder without modules.json embeds too. Bad
// input names PretrainedModel.embed before anything is allocated; a module path that leaves
// the folder is a RangeError with nothing read or requested outside it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync, readFileSync, symlinkSync, cpSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { startServer } from '../scripts/server.js';

const attn = await init();
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const scratch = fileURLToPath(new URL('../build/test-embedder/', import.meta.url));
const tol = { rtol: 1e-4, atol: 1e-5 };
const reference = (name) => JSON.parse(readFileSync(`${root}${name}/reference.json`, 'utf8'));
const MINILM = 'tiny-minilm-embedder';
const BGE = 'tiny-bge-embedder';
// sentence-transformers' mode names (reference.json) → embed's.
const MODES = {
  cls: 'cls',
  max: 'max',
  mean: 'mean',
  mean_sqrt_len_tokens: 'meanSqrtLen',
  weightedmean: 'weightedMean',
  lasttoken: 'last',
};
const FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'model.safetensors',
  'modules.json',
  'sentence_bert_config.json',
  '1_Pooling/config.json',
];

// A fixture's files as names → bytes; `edit` may replace or drop (undefined) some.
function filesOf(name, edit = {}) {
  const files = Object.fromEntries(FILES.map((f) => [f, new Uint8Array(readFileSync(`${root}${name}/${f}`))]));
  for (const [f, value] of Object.entries(edit)) {
    if (value === undefined) delete files[f];
    else files[f] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return files;
}
const json = (name, file) => JSON.parse(readFileSync(`${root}${name}/${file}`, 'utf8'));

// Rows [B, w] scaled to unit length in float64 (F.normalize).
function normalized({ data, shape: [B, w] }) {
  const out = new Float64Array(data.length);
  for (let b = 0; b < B; b++) {
    const row = data.slice(b * w, (b + 1) * w);
    const norm = Math.max(Math.hypot(...row), 1e-12);
    row.forEach((v, i) => {
      out[b * w + i] = v / norm;
    });
  }
  return { data: out, shape: [B, w] };
}

async function refuses(call, type, pattern) {
  const inUse = attn.memory().inUseBytes;
  await assert.rejects(call, (e) => {
    assert.ok(e instanceof type, `${e.constructor.name}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });
  assert.equal(attn.memory().inUseBytes, inUse, 'no wasm memory left allocated');
}

test.before(() => rmSync(scratch, { recursive: true, force: true }));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

for (const name of [MINILM, BGE]) {
  test(`${name}: the folder's pooling and normalisation match PyTorch, one text and a padded batch`, async () => {
    const ref = reference(name);
    const model = await attn.loadModel(`${root}${name}`);
    try {
      assert.deepEqual(model.sentenceEmbedding, {
        pooling: ref.modes.map((m) => MODES[m]),
        dense: [],
        normalize: true,
        maxSeqLength: ref.max_seq_length,
        lowerCase: name === BGE,
        unsupported: null,
      });
      const batch = model.embed(ref.batch.texts);
      const max = assertClose(batch, ref.batch.embeddings, { ...tol, label: `${name} batch` });
      const d = model.descriptor.dModel;
      ref.batch.texts.forEach((text, i) => {
        const alone = model.embed(text);
        assertClose(alone, ref.single[i], { ...tol, label: `${name} ${JSON.stringify(text)}` });
        // The padded batch gives each text what it gives alone.
        assertClose(batch.data.subarray(i * d, (i + 1) * d), alone.data, {
          atol: 1e-6,
          rtol: 0,
          label: `batch row ${i} = alone`,
        });
        assert.ok(Math.abs(Math.hypot(...alone.data) - 1) < 1e-6, 'unit length');
      });
      console.log(`# ${name}: max |embed − PyTorch| ${max.toExponential(2)}`);
    } finally {
      model.dispose();
    }
  });
}

test("more texts than one forward call takes (32): each row is its text's, in the order given", async () => {
  const model = await attn.loadModel(`${root}${BGE}`);
  const words = [
    'the cat',
    'sat on the mat',
    'attention',
    'is all you need',
    'a film',
    'not bad at all',
    'i would watch it again',
  ];
  // 70 texts of 3 to 15 tokens, lengths mixed (the batches are formed longest first).
  const texts = Array.from(
    { length: 70 },
    (_, i) => `${words[i % 7]} ${words[(i * 3) % 7]}${i % 2 ? ` ${words[(i * 5) % 7]}` : ''}.`,
  );
  const all = model.embed(texts);
  const d = model.descriptor.dModel;
  assert.deepEqual(all.shape, [70, d]);
  texts.forEach((text, i) =>
    assertClose(all.data.subarray(i * d, (i + 1) * d), model.embed(text).data, {
      atol: 1e-6,
      rtol: 0,
      label: `text ${i}`,
    }),
  );
  model.dispose();
});

test('max_seq_length truncates keeping [CLS] … [SEP]: raised, only the truncated text moves', async () => {
  const ref = reference(MINILM);
  // The third text has 10 tokens; max_seq_length 9 keeps [CLS], 7 of its own and [SEP].
  assert.deepEqual(ref.batch.lengths, [9, 8, 9]);
  assert.equal(ref.tokens[ref.batch.texts[2]].at(-1), 3, '[SEP] kept');
  const model = await attn.loadModel(
    filesOf(MINILM, { 'sentence_bert_config.json': { max_seq_length: 40, do_lower_case: false } }),
  );
  const out = model.embed(ref.batch.texts);
  model.dispose();
  const d = out.shape[1];
  for (const i of [0, 1])
    assertClose(out.data.subarray(i * d, (i + 1) * d), ref.single[i].data, { ...tol, label: `text ${i}` });
  const moved = Math.max(...Array.from(out.data.subarray(2 * d), (v, k) => Math.abs(v - ref.single[2].data[k])));
  assert.ok(moved > 1e-3, `the untruncated third text gives another embedding (moved ${moved})`);
});

test("options override the folder: every pooling mode, several at once (in sentence-transformers' order), normalize", async () => {
  const ref = reference(MINILM);
  const model = await attn.loadModel(`${root}${MINILM}`);
  try {
    for (const [st, mode] of Object.entries(MODES)) {
      assertClose(model.embed(ref.batch.texts, { pooling: mode, normalize: false }), ref.pooled[st], {
        ...tol,
        label: mode,
      });
    }
    // The folder's mean pooling without its Normalize.
    assertClose(model.embed(ref.batch.texts, { normalize: false }), ref.pooled.mean, {
      ...tol,
      label: 'normalize: false',
    });
    // A mode of the caller's, the folder's Normalize kept.
    assertClose(model.embed(ref.batch.texts, { pooling: 'max' }), normalized(ref.pooled.max), {
      ...tol,
      label: 'max, normalized',
    });
    // Several modes concatenate as Pooling.forward does (cls, max, mean, …), whatever the order given.
    const d = model.descriptor.dModel;
    const both = model.embed(ref.batch.texts, { pooling: ['mean', 'cls'], normalize: false });
    assert.deepEqual(both.shape, [3, 2 * d]);
    for (let b = 0; b < 3; b++) {
      assertClose(both.data.subarray(b * 2 * d, b * 2 * d + d), ref.pooled.cls.data.slice(b * d, (b + 1) * d), {
        ...tol,
        label: `cls part ${b}`,
      });
      assertClose(both.data.subarray(b * 2 * d + d, (b + 1) * 2 * d), ref.pooled.mean.data.slice(b * d, (b + 1) * d), {
        ...tol,
        label: `mean part ${b}`,
      });
    }
    assertClose(model.embed(ref.batch.texts, { pooling: Object.values(MODES).reverse() }), ref.all_modes, {
      ...tol,
      label: 'all six',
    });
  } finally {
    model.dispose();
  }
});

test('a folder with several pooling modes, or pooling_mode as a string, pools as sentence-transformers does', async () => {
  const ref = reference(MINILM);
  const all = {
    word_embedding_dimension: 32,
    pooling_mode_cls_token: true,
    pooling_mode_mean_tokens: true,
    pooling_mode_max_tokens: true,
    pooling_mode_mean_sqrt_len_tokens: true,
    pooling_mode_weightedmean_tokens: true,
    pooling_mode_lasttoken: true,
  };
  const six = await attn.loadModel(filesOf(MINILM, { '1_Pooling/config.json': all }));
  assert.deepEqual(six.sentenceEmbedding.pooling, ['cls', 'max', 'mean', 'meanSqrtLen', 'weightedMean', 'last']);
  assertClose(six.embed(ref.batch.texts), ref.all_modes, { ...tol, label: 'six modes' });
  six.dispose();
  // pooling_mode replaces the booleans; a missing boolean takes Pooling's default (mean on, others off).
  const last = await attn.loadModel(
    filesOf(MINILM, { '1_Pooling/config.json': { word_embedding_dimension: 32, pooling_mode: 'lasttoken' } }),
  );
  assertClose(last.embed(ref.batch.texts), normalized(ref.pooled.lasttoken), {
    ...tol,
    label: 'pooling_mode lasttoken',
  });
  last.dispose();
  const defaults = await attn.loadModel(
    filesOf(MINILM, { '1_Pooling/config.json': { word_embedding_dimension: 32, pooling_mode_cls_token: true } }),
  );
  assert.deepEqual(defaults.sentenceEmbedding.pooling, ['cls', 'mean']);
  defaults.dispose();
});

test("bytes, Files (a folder picked whole) and a URL give the folder's embeddings", async () => {
  const ref = reference(BGE);
  const expected = ref.batch.embeddings;
  const check = async (source, label) => {
    const model = await attn.loadModel(source);
    assertClose(model.embed(ref.batch.texts), expected, { ...tol, label });
    model.dispose();
  };
  await check(filesOf(BGE), 'bytes');
  await check(new Map(Object.entries(filesOf(BGE))), 'a Map');
  // <input webkitdirectory>: each File carries its path under the folder picked; the root's
  // config.json and 1_Pooling's keep their places (the Pooling one comes last here).
  const files = FILES.slice()
    .reverse()
    .map((f) => {
      const file = new File([readFileSync(`${root}${BGE}/${f}`)], f.split('/').pop());
      Object.defineProperty(file, 'webkitRelativePath', { value: `${BGE}/${f}` });
      return file;
    });
  await check(files, 'Files');
  const { server, url } = await startServer({ port: 0, served: ['tests'] });
  try {
    await check(`${url}tests/fixtures/hf/${BGE}/`, 'URL');
  } finally {
    server.close();
  }
});

test('without modules.json any model embeds: mean pooling by default, options as given (an encoder, a decoder)', async () => {
  // tiny-bert (a masked-LM checkpoint): its PyTorch last hidden state [B, T, 32], pooled here in float64.
  const ref = reference('tiny-bert').cases[1];
  const model = await attn.loadModel(`${root}tiny-bert`);
  try {
    assert.equal(model.sentenceEmbedding, null);
    const last = ref.hidden_states.at(-1);
    const [B, T, d] = last.shape;
    const row = (b, t) => last.data.slice((b * T + t) * d, (b * T + t + 1) * d);
    const mean = { data: [], shape: [B, d] };
    const cls = { data: [], shape: [B, d] };
    for (let b = 0; b < B; b++) {
      const sum = new Array(d).fill(0);
      for (let t = 0; t < ref.lengths[b]; t++)
        row(b, t).forEach((v, i) => {
          sum[i] += v;
        });
      mean.data.push(...sum.map((v) => v / ref.lengths[b]));
      cls.data.push(...row(b, 0));
    }
    assertClose(model.embed(ref.texts), mean, { ...tol, label: 'mean' });
    assertClose(model.embed(ref.texts, { pooling: 'cls', normalize: true }), normalized(cls), {
      ...tol,
      label: 'cls, normalized',
    });
  } finally {
    model.dispose();
  }
  // A decoder (tiny-gpt2): the last real token's state (after ln_f), as SGPT-style embedders pool.
  const gpt2 = reference('tiny-gpt2').cases[1];
  const decoder = await attn.loadModel(`${root}tiny-gpt2`);
  const {
    data,
    shape: [B, T, d],
  } = gpt2.hidden_states.at(-1);
  const lastTokens = {
    data: gpt2.lengths.flatMap((n, b) => data.slice((b * T + n - 1) * d, (b * T + n) * d)),
    shape: [B, d],
  };
  assertClose(decoder.embed(gpt2.texts, { pooling: 'last' }), lastTokens, { ...tol, label: 'gpt2 last' });
  decoder.dispose();
});

test('bad texts and options are errors naming PretrainedModel.embed, before anything is allocated', async () => {
  const model = await attn.loadModel(`${root}${MINILM}`);
  const inUse = attn.memory().inUseBytes;
  const cases = [
    [[[]], RangeError, /^PretrainedModel\.embed: texts is empty/],
    [[], TypeError, /^PretrainedModel\.embed: texts must be a string or an array of strings, got undefined/],
    [[['a', 3]], TypeError, /^PretrainedModel\.embed: texts\[1\] must be a string, got a number \(3\)/],
    [[42], TypeError, /^PretrainedModel\.embed: texts must be a string or an array of strings, got a number/],
    [[null], TypeError, /^PretrainedModel\.embed: texts must be a string or an array of strings, got null/],
    [
      ['a', { pooling: 'median' }],
      RangeError,
      /^PretrainedModel\.embed: options\.pooling "median" is not a pooling mode \(known: cls, max, mean, meanSqrtLen, weightedMean, last\)/,
    ],
    [
      ['a', { pooling: 3 }],
      TypeError,
      /^PretrainedModel\.embed: options\.pooling must be a pooling mode or a non-empty array/,
    ],
    [['a', { pooling: [] }], TypeError, /options\.pooling must be a pooling mode or a non-empty array/],
    [
      ['a', { pooling: ['mean', 1] }],
      TypeError,
      /^PretrainedModel\.embed: options\.pooling must hold strings, got a number/,
    ],
    [['a', { pooling: ['mean', 'mean'] }], RangeError, /^PretrainedModel\.embed: options\.pooling names a mode twice/],
    [['a', { normalize: 'yes' }], TypeError, /^PretrainedModel\.embed: options\.normalize must be a boolean/],
    [
      ['a', { pool: 'mean' }],
      TypeError,
      /^PretrainedModel\.embed: unknown option 'pool' \(.*known: pooling, normalize\)/,
    ],
    [['a', null], TypeError, /^PretrainedModel\.embed: options must be an object, got null/],
  ];
  for (const [args, type, pattern] of cases) {
    assert.throws(
      () => model.embed(...args),
      (e) => e instanceof type && pattern.test(e.message),
      `${JSON.stringify(args)}`,
    );
    assert.equal(attn.memory().inUseBytes, inUse);
  }
  model.dispose();
  assert.throws(() => model.embed('a'), /^Error: PretrainedModel\.embed: this model was disposed/);
  const idsOnly = await attn.loadModel(
    filesOf(MINILM, { 'tokenizer.json': undefined, 'tokenizer_config.json': undefined }),
  );
  assert.throws(
    () => idsOnly.embed('a'),
    /^RangeError: PretrainedModel\.embed: this checkpoint has no tokenizer\.json/,
  );
  idsOnly.dispose();
});

test('a pipeline embed does not run loads (forward works) but embed says which module; bad module files are refused', async () => {
  // (A Dense module runs: tests/embeddinggemma.test.js; a LayerNorm module does not.)
  const layerNorm = [
    ...json(MINILM, 'modules.json').slice(0, 2),
    { idx: 2, name: '2', path: '2_LayerNorm', type: 'sentence_transformers.models.LayerNorm' },
    { idx: 3, name: '3', path: '3_Normalize', type: 'sentence_transformers.models.Normalize' },
  ];
  const model = await attn.loadModel(filesOf(MINILM, { 'modules.json': layerNorm }));
  assert.equal(model.sentenceEmbedding.unsupported, 'a sentence_transformers.models.LayerNorm module (2_LayerNorm)');
  assert.throws(
    () => model.embed('a'),
    /^RangeError: PretrainedModel\.embed: this folder's modules\.json lists a sentence_transformers\.models\.LayerNorm module \(2_LayerNorm\), which embed does not run; pass options\.pooling/,
  );
  assert.deepEqual(model.embed('a', { pooling: 'mean' }).shape, [1, 32]);
  model.dispose();
  const pooling = (config) => filesOf(MINILM, { '1_Pooling/config.json': config });
  await refuses(
    attn.loadModel(pooling({ word_embedding_dimension: 16 })),
    RangeError,
    /^loadModel: 1_Pooling\/config\.json has word_embedding_dimension 16 but the model's hidden size is 32/,
  );
  await refuses(
    attn.loadModel(pooling({ word_embedding_dimension: 32, pooling_mode_mean_tokens: false })),
    RangeError,
    /1_Pooling\/config\.json turns every pooling mode off/,
  );
  await refuses(
    attn.loadModel(pooling({ word_embedding_dimension: 32, pooling_mode_max_tokens: 'yes' })),
    RangeError,
    /1_Pooling\/config\.json has pooling_mode_max_tokens 'yes'; it must be true or false/,
  );
  await refuses(
    attn.loadModel(pooling({ word_embedding_dimension: 32, pooling_mode: 'median' })),
    RangeError,
    /pooling_mode "median"; known: cls, max, mean/,
  );
  await refuses(
    attn.loadModel(filesOf(MINILM, { '1_Pooling/config.json': undefined })),
    RangeError,
    /the files given has no 1_Pooling\/config\.json/,
  );
  await refuses(
    attn.loadModel(filesOf(MINILM, { 'modules.json': { modules: [] } })),
    RangeError,
    /modules\.json must be a list of modules/,
  );
  await refuses(
    attn.loadModel(filesOf(MINILM, { 'sentence_bert_config.json': { max_seq_length: 0 } })),
    RangeError,
    /sentence_bert_config\.json has max_seq_length 0; it must be a positive integer/,
  );
});

// modules.json with the Pooling module's path replaced.
const hostileModules = (path) => json(MINILM, 'modules.json').map((m) => (m.idx === 1 ? { ...m, path } : m));
const HOSTILE = [
  '../outside',
  '/etc',
  '..',
  '.',
  '1_Pooling/../../outside',
  '1_Pooling/',
  'a//b',
  '%2e%2e/outside',
  'C:\\outside',
  'http://127.0.0.1:1/x',
  '\\\\server\\share',
  'a/b/c/d/e',
];

test('a module path that leaves the folder is a RangeError; nothing outside the URL prefix is requested', async () => {
  const requests = [];
  let files = null;
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(path);
    const body = path.startsWith('/ckpt/') ? files[path.slice(6)] : undefined;
    if (body === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/ckpt/`;
  try {
    for (const path of HOSTILE) {
      files = filesOf(MINILM, { 'modules.json': hostileModules(path) });
      const where = /^loadModel: modules\.json's entry 1 path is .*, not a path inside the checkpoint: /;
      await refuses(attn.loadModel(url, { cache: false }), RangeError, where);
      await refuses(attn.loadModel(files), RangeError, where);
    }
    // Only the files sentence-transformers writes, and only inside the prefix; no weights were asked for.
    const asked = new Set(requests);
    assert.deepEqual([...asked].sort(), [
      '/ckpt/config.json',
      '/ckpt/modules.json',
      '/ckpt/tokenizer.json',
      '/ckpt/tokenizer_config.json',
    ]);
  } finally {
    server.close();
  }
});

test('a folder: a hostile module path reads nothing outside it, a linked module folder is refused', async () => {
  // Beside the checkpoint, a valid pooling config that a path leaving the folder would reach.
  mkdirSync(`${scratch}outside`, { recursive: true });
  writeFileSync(
    `${scratch}outside/config.json`,
    JSON.stringify({ word_embedding_dimension: 32, pooling_mode_cls_token: true }),
  );
  const folder = `${scratch}model/`;
  cpSync(`${root}${MINILM}`, folder, { recursive: true });
  for (const path of ['../outside', `${scratch}outside`, '1_Pooling/../../outside']) {
    writeFileSync(`${folder}modules.json`, JSON.stringify(hostileModules(path)));
    await refuses(
      attn.loadModel(folder),
      RangeError,
      /modules\.json's entry 1 path is .*, not a path inside the checkpoint/,
    );
  }
  // A plain module path whose folder is a link out of the checkpoint.
  writeFileSync(`${folder}modules.json`, JSON.stringify(hostileModules('linked')));
  symlinkSync(`${scratch}outside`, `${folder}linked`);
  await refuses(
    attn.loadModel(folder),
    RangeError,
    /linked\/config\.json is a link to .*outside\/config\.json, outside the checkpoint's folder; it is not read/,
  );
});
