// Fuzzing checkpoints that lie (issue 32): folders on disk and URL prefixes whose index, shard
// names, config.json, tokenizer.json and safetensors headers are mutated at random, drawn from
// pools of hostile values (names that leave the folder, other origins, huge ids, values float32
// cannot hold, catastrophic regexes). The rules, checked on every call:
//   - it loads (and a forward runs), or throws a TypeError/RangeError starting 'loadModel: ';
//   - a folder load opens, stats and resolves only paths inside the folder (fs is watched);
//   - a URL load requests only paths under its prefix, and the other origin is never asked
//     (nor sent the caller's Authorization header);
//   - no call takes more than 1 s (every file but the weights is under 10 KB);
//   - no wasm memory is left behind.
// FUZZ_ROUNDS (default 150 per source) and FUZZ_SEED repeat a run.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { rng } from './helpers/assert.js';
import { writeSafetensors, readSafetensors, fixtureFiles } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const fixtures = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const sandbox = fileURLToPath(new URL('../build/checkpoint-fuzz/', import.meta.url));
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const LIMIT_MS = 1000;

const base = fixtureFiles(`${fixtures}tiny-gpt2`);
const baseConfig = JSON.parse(new TextDecoder().decode(base['config.json']));
const baseTokenizer = JSON.parse(new TextDecoder().decode(base['tokenizer.json']));
const tensors = readSafetensors(base['model.safetensors']);
const tensorNames = Object.keys(tensors);

// Hostile values, by where they go.
const BAD_NAMES = [
  '../secret.safetensors',
  '../../../../etc/passwd',
  '/etc/passwd',
  '',
  '.',
  '..',
  'a/b.safetensors',
  'a\\b.safetensors',
  'C:x.safetensors',
  'file:///etc/passwd',
  '%2e%2e%2fsecret.safetensors',
  'x?y',
  'x#y',
  'x\u0000y',
  ' x',
  'x.',
  'x'.repeat(300),
  '\u202ex',
  'model-00009-of-00009.safetensors',
  'config.json',
  'tokenizer.json',
  42,
  null,
  {},
  [],
  true,
];
const ODD = [
  0,
  1,
  -1,
  2 ** 31,
  2 ** 53,
  1e300,
  1e-300,
  5e-324,
  0.5,
  NaN,
  null,
  '3',
  '',
  [],
  {},
  true,
  128,
  4096,
  32,
  55,
  'gelu',
  'x'.repeat(5000),
];
const CONFIG_KEYS = [
  'vocab_size',
  'n_positions',
  'n_embd',
  'n_layer',
  'n_head',
  'n_inner',
  'activation_function',
  'layer_norm_epsilon',
  'model_type',
  'architectures',
  'tie_word_embeddings',
  'eos_token_id',
  'pad_token_id',
  'scale_attn_weights',
  'id2label',
];
const PATTERNS = [
  '\\s+',
  ' ?\\p{L}+| ?\\p{N}+',
  '(a|aa)+$',
  '^(\\w+\\s?)*$',
  '(.*)*',
  '(a+)+b',
  '[',
  '(?<=x)y',
  '\\1(a)',
  'x{1,100000}',
  '(?:x|y)*?z',
];

function folderOf(name) {
  return `${sandbox}${name}/`;
}

// One random checkpoint: { files, kind } where files maps names to bytes or strings.
function randomCheckpoint(random) {
  const int = (n) => Math.floor(random(0, n));
  const pick = (list) => list[int(list.length)];
  const files = { 'config.json': JSON.stringify(baseConfig), 'tokenizer.json': JSON.stringify(baseTokenizer) };
  const kind = pick(['index', 'config', 'tokenizer', 'header', 'files']);
  // Sharded (with an index) half the time.
  if (kind === 'index' || int(2)) {
    const split = 1 + int(tensorNames.length - 1);
    const map = {};
    tensorNames.forEach((n, i) => {
      map[n] = i < split ? 'model-00001-of-00002.safetensors' : 'model-00002-of-00002.safetensors';
    });
    files['model-00001-of-00002.safetensors'] = writeSafetensors(
      Object.fromEntries(tensorNames.slice(0, split).map((n) => [n, tensors[n]])),
    );
    files['model-00002-of-00002.safetensors'] = writeSafetensors(
      Object.fromEntries(tensorNames.slice(split).map((n) => [n, tensors[n]])),
    );
    let index = { metadata: { total_size: 1 }, weight_map: map };
    if (kind === 'index') {
      for (let k = 0, count = 1 + int(3); k < count; k++) map[pick(tensorNames)] = pick(BAD_NAMES);
      if (!int(8)) index = pick([{}, { weight_map: null }, { weight_map: [] }, { weight_map: 'x' }, [], null, 7]);
      if (!int(8)) map[`extra.${int(99)}`] = pick(BAD_NAMES);
    }
    files['model.safetensors.index.json'] = int(20) ? JSON.stringify(index) : '{"weight_map": {';
  } else {
    files['model.safetensors'] = base['model.safetensors'];
  }
  if (kind === 'config') {
    const config = { ...baseConfig };
    for (let k = 0, count = 1 + int(3); k < count; k++) config[pick(CONFIG_KEYS)] = pick(ODD);
    files['config.json'] = int(15) ? JSON.stringify(config) : pick(['', '[]', 'null', '{', '"x"']);
  }
  if (kind === 'tokenizer') {
    const t = structuredClone(baseTokenizer);
    const what = int(5);
    if (what === 0)
      t.added_tokens = [
        ...(t.added_tokens ?? []),
        { id: pick([1e9, 2 ** 31, -1, 1.5, 305, 99999, '7', null]), content: 'x', special: true },
      ];
    else if (what === 1)
      t.pre_tokenizer = {
        type: 'Sequence',
        pretokenizers: [
          { type: 'Split', pattern: { Regex: pick(PATTERNS) }, behavior: 'Isolated', invert: false },
          t.pre_tokenizer,
        ],
      };
    else if (what === 2) t.normalizer = { type: 'Replace', pattern: { Regex: pick(PATTERNS) }, content: 'b' };
    else if (what === 3) t.model.vocab = { ...t.model.vocab, [`tok${int(9)}`]: pick([1e9, -1, 0.5, 2 ** 31, 'x']) };
    else t.model = pick([null, 7, {}, { type: 'BPE' }, { ...t.model, merges: pick([null, 7, [['a']]]) }]);
    files['tokenizer.json'] = int(15) ? JSON.stringify(t) : '{"model": ';
  }
  if (kind === 'header') {
    const name = files['model.safetensors'] ? 'model.safetensors' : 'model-00001-of-00002.safetensors';
    const own = readSafetensors(files[name]);
    const names = Object.keys(own);
    files[name] = writeSafetensors(own, {
      headerOverride: (h) => {
        const entry = h[pick(names)];
        const field = pick(['shape', 'data_offsets', 'dtype', 'empty']);
        if (field === 'shape') entry.shape = [pick(ODD)];
        else if (field === 'data_offsets')
          entry.data_offsets = entry.data_offsets.map((o) => (int(2) ? o : pick([...ODD, o - 4, o + 4])));
        else if (field === 'dtype') entry.dtype = pick(['F16', 'BF16', 'F64', 'I8', 'f32', '', 7]);
        else
          h[`zero.${int(9)}`] = {
            dtype: 'F32',
            shape: [0],
            data_offsets: [entry.data_offsets[0] + 4, entry.data_offsets[0] + 4],
          };
        return h;
      },
    });
  }
  if (kind === 'files') {
    // A file missing, or a name the loader reads replaced by a folder.
    const name = pick(Object.keys(files));
    if (int(2)) delete files[name];
    else files[name] = null; // written as a folder
  }
  return { files, kind };
}

function writeCheckpoint(folder, files) {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) {
    if (bytes === null) mkdirSync(`${folder}${name}`);
    else writeFileSync(`${folder}${name}`, bytes);
  }
}

// Node's fs/promises as the loader reaches it, watched: every path it opens, stats or resolves.
function watchFs() {
  const fs = process.getBuiltinModule('node:fs/promises');
  const touched = [];
  const originals = {};
  for (const name of ['open', 'stat', 'lstat', 'realpath', 'readFile']) {
    originals[name] = fs[name];
    fs[name] = (path, ...rest) => {
      touched.push(String(path));
      return originals[name].call(fs, path, ...rest);
    };
  }
  return { touched, restore: () => Object.assign(fs, originals) };
}

async function recordingServer(route) {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push({ path: decodeURIComponent(req.url), authorization: req.headers.authorization ?? null });
    route(req, res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, requests, url: `http://127.0.0.1:${server.address().port}` };
}

function named(error) {
  return (error instanceof TypeError || error instanceof RangeError) && error.message.startsWith('loadModel: ');
}

// One load (and a forward when it loads): the outcome, and the time it took.
async function tryLoad(source, options) {
  const started = performance.now();
  let outcome = 'loaded';
  try {
    const model = await attn.loadModel(source, options);
    try {
      model.forward(model.tokenizer ? 'the cat sat' : [[1, 2, 3]]);
    } finally {
      model.dispose();
    }
  } catch (error) {
    if (!named(error)) throw error;
    outcome = 'refused';
  }
  return { outcome, ms: performance.now() - started };
}

test.before(async () => {
  rmSync(sandbox, { recursive: true, force: true });
  mkdirSync(sandbox, { recursive: true });
  writeFileSync(`${sandbox}secret.safetensors`, base['model.safetensors']);
  // One load first, so that the loader's own modules (imported on first use) are not counted.
  (await attn.loadModel(`${fixtures}tiny-gpt2`)).dispose();
});
test.after(() => rmSync(sandbox, { recursive: true, force: true }));

test(`checkpoint folders that lie (${ROUNDS} rounds, seed ${SEED}): loads or named errors, nothing read outside, < 1 s`, async () => {
  const random = rng(SEED);
  const inUse = attn.memory().inUseBytes;
  const outcomes = { loaded: 0, refused: 0 };
  const folder = folderOf('ckpt');
  let slowest = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const { files, kind } = randomCheckpoint(random);
    writeCheckpoint(folder, files);
    const watch = watchFs();
    let result;
    try {
      result = await tryLoad(folder);
    } catch (error) {
      assert.fail(`round ${round} (${kind}): ${error?.constructor?.name}: ${error?.message}`);
    } finally {
      watch.restore();
    }
    outcomes[result.outcome]++;
    slowest = Math.max(slowest, result.ms);
    const outside = watch.touched.filter((p) => !p.startsWith(folder) && p !== folder.slice(0, -1) && p !== folder);
    assert.deepEqual(
      outside,
      [],
      `round ${round} (${kind}): paths outside the folder were touched: ${outside.join(', ')}`,
    );
    assert.ok(result.ms < LIMIT_MS, `round ${round} (${kind}): ${result.ms.toFixed(0)} ms`);
    assert.equal(attn.memory().inUseBytes, inUse, `round ${round} (${kind}): nothing left allocated`);
  }
  assert.ok(outcomes.refused > ROUNDS / 4 && outcomes.loaded > 0, JSON.stringify(outcomes));
  console.log(`# folders: ${JSON.stringify(outcomes)}, slowest call ${slowest.toFixed(0)} ms`);
});

test(`checkpoint URLs that lie (${ROUNDS} rounds, seed ${SEED}): requests stay under the prefix, never to another origin`, async () => {
  const random = rng(SEED + 7);
  const other = await recordingServer((req, res) =>
    res.writeHead(200, { 'content-length': base['model.safetensors'].length }).end(base['model.safetensors']),
  );
  let files = {};
  const home = await recordingServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const body = path.startsWith('/ckpt/') ? files[path.slice(6)] : base['model.safetensors'];
    if (body === undefined || body === null) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
  });
  const inUse = attn.memory().inUseBytes;
  const outcomes = { loaded: 0, refused: 0 };
  const fetchOptions = { headers: { Authorization: 'Bearer hf_fuzz' } };
  let slowest = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const checkpoint = randomCheckpoint(random);
      // Shard names that point at the other origin, absolute or protocol-relative.
      if (checkpoint.files['model.safetensors.index.json'] && !Math.floor(random(0, 3))) {
        const index = JSON.parse(
          checkpoint.files['model.safetensors.index.json'].startsWith('{"weight_map": {')
            ? '{}'
            : checkpoint.files['model.safetensors.index.json'],
        );
        if (index?.weight_map && typeof index.weight_map === 'object') {
          index.weight_map[tensorNames[0]] = [
            `${other.url}/x.safetensors`,
            `//${other.url.slice(7)}/x.safetensors`,
            '/x.safetensors',
          ][Math.floor(random(0, 3))];
          checkpoint.files['model.safetensors.index.json'] = JSON.stringify(index);
        }
      }
      files = checkpoint.files;
      home.requests.length = 0;
      let result;
      try {
        result = await tryLoad(`${home.url}/ckpt/`, { fetchOptions });
      } catch (error) {
        assert.fail(`round ${round} (${checkpoint.kind}): ${error?.constructor?.name}: ${error?.message}`);
      }
      outcomes[result.outcome]++;
      slowest = Math.max(slowest, result.ms);
      assert.deepEqual(
        home.requests.filter((r) => !r.path.startsWith('/ckpt/')),
        [],
        `round ${round} (${checkpoint.kind}): requests outside the prefix`,
      );
      assert.ok(result.ms < LIMIT_MS, `round ${round} (${checkpoint.kind}): ${result.ms.toFixed(0)} ms`);
      assert.equal(attn.memory().inUseBytes, inUse, `round ${round}: nothing left allocated`);
    }
    assert.deepEqual(other.requests, [], 'the other origin was never asked');
    assert.ok(outcomes.refused > ROUNDS / 4 && outcomes.loaded > 0, JSON.stringify(outcomes));
    console.log(`# URLs: ${JSON.stringify(outcomes)}, slowest call ${slowest.toFixed(0)} ms`);
  } finally {
    other.server.close();
    home.server.close();
  }
});

test(`forward and generate options that lie (${ROUNDS * 4} calls, seed ${SEED}): each option read once, named errors, disposal caught`, async () => {
  const random = rng(SEED + 13);
  const int = (n) => Math.floor(random(0, n));
  const pick = (list) => list[int(list.length)];
  const FORWARD = [
    'attentions',
    'hiddenStates',
    'logits',
    'queriesAndKeys',
    'attention',
    'hidden_states',
    'output_attentions',
    'Logits',
  ];
  const GENERATE = [
    'maxNewTokens',
    'temperature',
    'topK',
    'topP',
    'seed',
    'onToken',
    'signal',
    'useCache',
    'kvDtype',
    'stopAtEos',
    'returnScores',
    'max_new_tokens',
    'top_k',
    'do_sample',
    'temprature',
  ];
  const VALUES = [
    true,
    false,
    0,
    1,
    2,
    -1,
    0.5,
    1e-310,
    5e-324,
    1e308,
    Infinity,
    NaN,
    null,
    undefined,
    '1',
    'bfloat16',
    'float16',
    ['float16'],
    [],
    {},
    () => false,
    { aborted: false },
  ];
  const inUse = attn.memory().inUseBytes;
  let model = await attn.loadModel(`${fixtures}tiny-gpt2`);
  const outcomes = { ok: 0, named: 0, disposed: 0 };
  for (let call = 0; call < ROUNDS * 4; call++) {
    if (model.disposed) model = await attn.loadModel(`${fixtures}tiny-gpt2`);
    const generate = int(3) === 0;
    const keys = generate ? GENERATE : FORWARD;
    const reads = new Map();
    const options = {};
    let disposes = false;
    for (let k = 0, count = int(4); k < count; k++) {
      const key = pick(keys);
      const value = pick(VALUES);
      const how = int(6);
      if (how === 0) {
        disposes = true;
        Object.defineProperty(options, key, {
          enumerable: true,
          configurable: true,
          get: () => {
            model.dispose();
            return value;
          },
        });
      } else if (how === 1) {
        // A value that changes on every read: reading twice would see two answers.
        let n = 0;
        Object.defineProperty(options, key, {
          enumerable: true,
          configurable: true,
          get: () => {
            reads.set(key, (reads.get(key) ?? 0) + 1);
            return ++n > 1 ? pick(VALUES) : value;
          },
        });
      } else {
        Object.defineProperty(options, key, { enumerable: true, configurable: true, writable: true, value });
      }
    }
    if (generate && !('maxNewTokens' in options)) options.maxNewTokens = 1 + int(3);
    const fn = generate ? 'PretrainedModel.generate' : 'PretrainedModel.forward';
    try {
      if (generate) await model.generate([5, 6, 7], options);
      else model.forward([[5, 6, 7]], options);
      outcomes.ok++;
    } catch (error) {
      if (error instanceof TypeError || error instanceof RangeError) {
        assert.ok(error.message.startsWith(`${fn}: `), `call ${call}: ${error.message}`);
        outcomes.named++;
      } else {
        assert.ok(
          disposes && /this model was disposed/.test(error.message),
          `call ${call}: ${error?.constructor?.name}: ${error?.message}`,
        );
        outcomes.disposed++;
      }
    }
    for (const [key, n] of reads) assert.ok(n <= 1, `call ${call}: options.${key} read ${n} times`);
  }
  model.dispose();
  assert.equal(attn.memory().inUseBytes, inUse, 'nothing left allocated');
  assert.ok(outcomes.ok > 0 && outcomes.named > 0 && outcomes.disposed > 0, JSON.stringify(outcomes));
  console.log(`# options: ${JSON.stringify(outcomes)}`);
});
