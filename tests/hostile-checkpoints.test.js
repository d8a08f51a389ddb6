// A checkpoint is data from a stranger (issue 32). What it names stays inside the folder or URL
// prefix it came from: shard names that leave it (../, /abs, http://other, '', '.') are
// RangeErrors naming the index and the value, before any read or request, and the caller's
// fetchOptions (an Authorization header) never reach another server; links out of the folder,
// devices and pipes are not read. Safetensors tensors may not overlap (a zero-length tensor in
// between hides nothing); config values float32 cannot hold are named; caller code that runs
// inside a call (getters, iterators, signals) cannot pull the model out from under it; a tiny
// temperature is greedy, not the least likely token; unknown options say what they meant.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync, readFileSync, symlinkSync, copyFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { writeSafetensors, readSafetensors, fixtureFiles } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const fixtures = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const scratch = fileURLToPath(new URL('../build/test-hostile/', import.meta.url));
const gpt2 = fixtureFiles(`${fixtures}tiny-gpt2`);
const gpt2Config = JSON.parse(new TextDecoder().decode(gpt2['config.json']));
const tensors = readSafetensors(gpt2['model.safetensors']);
const names = Object.keys(tensors);

// The module still computes, and nothing is left allocated.
function assertIntact(inUse) {
  assert.equal(attn.memory().inUseBytes, inUse, 'no wasm memory left allocated');
  const out = attn.attention(
    [[1, 0]],
    [
      [1, 0],
      [0, 1],
    ],
    [
      [1, 2],
      [3, 4],
    ],
    { scale: 0 },
  ).output;
  assert.deepEqual(Array.from(out.data), [2, 3]);
}

async function refuses(call, type, pattern) {
  const inUse = attn.memory().inUseBytes;
  await assert.rejects(call, (e) => {
    assert.ok(e instanceof type, `${e.constructor.name}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });
  assertIntact(inUse);
}

// The fixture split into two shards with an index; `edit` changes the index's weight_map.
function sharded(edit = (map) => map) {
  const half = Math.ceil(names.length / 2);
  const first = Object.fromEntries(names.slice(0, half).map((n) => [n, tensors[n]]));
  const second = Object.fromEntries(names.slice(half).map((n) => [n, tensors[n]]));
  const map = {};
  for (const n of names.slice(0, half)) map[n] = 'model-00001-of-00002.safetensors';
  for (const n of names.slice(half)) map[n] = 'model-00002-of-00002.safetensors';
  return {
    'config.json': gpt2['config.json'],
    'tokenizer.json': gpt2['tokenizer.json'],
    'model-00001-of-00002.safetensors': writeSafetensors(first),
    'model-00002-of-00002.safetensors': writeSafetensors(second),
    'model.safetensors.index.json': JSON.stringify({ metadata: {}, weight_map: edit(map) }),
  };
}

function writeFolder(folder, files) {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) writeFileSync(`${folder}/${name}`, bytes);
}

// A server that records every request (path and Authorization header) and serves `files`
// under /ckpt/ (and /outside.safetensors beside it).
async function recordingServer(files) {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url, authorization: req.headers.authorization ?? null });
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const body = path.startsWith('/ckpt/')
      ? files[path.slice(6)]
      : path === '/outside.safetensors'
        ? gpt2['model.safetensors']
        : undefined;
    if (body === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, requests, url: `http://127.0.0.1:${server.address().port}` };
}

test.before(() => rmSync(scratch, { recursive: true, force: true }));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('a shard name that leaves the folder is refused before any read; a valid sharded folder loads', async () => {
  const folder = `${scratch}sharded/`;
  writeFolder(folder, sharded());
  const good = await attn.loadModel(folder);
  const reference = await attn.loadModel(`${fixtures}tiny-gpt2`);
  assert.deepEqual(good.forward('The cat').logits.data, reference.forward('The cat').logits.data);
  good.dispose();
  reference.dispose();
  // A valid safetensors file outside the folder, which the old loader read silently.
  writeFileSync(`${scratch}outside.safetensors`, gpt2['model.safetensors']);
  const hostile = [
    '../outside.safetensors',
    '../../../../etc/passwd',
    '/etc/passwd',
    `${scratch}outside.safetensors`,
    '',
    '.',
    '..',
    'sub/model.safetensors',
    'sub\\model.safetensors',
    'C:model.safetensors',
    'file:///etc/passwd',
    'http://127.0.0.1:9/x.safetensors',
    '%2e%2e%2foutside.safetensors',
    'model.safetensors?x=1',
    'model.safetensors#x',
    'model\u0000.safetensors',
    'model\n.safetensors',
    'x'.repeat(300),
  ];
  for (const value of hostile) {
    const name = names[3];
    writeFolder(
      folder,
      sharded((map) => ({ ...map, [name]: value })),
    );
    await refuses(
      attn.loadModel(folder),
      RangeError,
      new RegExp(
        `^loadModel: model\\.safetensors\\.index\\.json's weight_map\\["${name.replace(/\./g, '\\.')}"\\] is .*not a file name inside the checkpoint`,
      ),
    );
  }
  writeFolder(
    folder,
    sharded((map) => ({ ...map, [names[0]]: 42 })),
  );
  await refuses(
    attn.loadModel(folder),
    RangeError,
    /weight_map\["transformer\.wte\.weight"\] is 42, not a file name inside the checkpoint: it is not a string/,
  );
  // The same names given as bytes (a map source) are refused the same way.
  await refuses(
    attn.loadModel(sharded((map) => ({ ...map, [names[0]]: '../x.safetensors' }))),
    RangeError,
    /not a file name inside the checkpoint: it holds a folder separator/,
  );
});

// A hang guard, not a speed check: reading /dev/zero or a pipe never ends.
test(
  'links out of the folder, devices and pipes are not read; the Hugging Face cache layout is',
  { timeout: 120_000 },
  async () => {
    const folder = `${scratch}linked/`;
    writeFolder(folder, { 'config.json': gpt2['config.json'] });
    writeFileSync(`${scratch}secret.safetensors`, gpt2['model.safetensors']);
    symlinkSync(`${scratch}secret.safetensors`, `${folder}model.safetensors`);
    await refuses(
      attn.loadModel(folder),
      RangeError,
      /model\.safetensors is a link to .*secret\.safetensors, outside the checkpoint's folder; it is not read/,
    );
    // tokenizer.json → /dev/zero hung the old loader (readFile with no cap).
    writeFolder(folder, { 'config.json': gpt2['config.json'], 'model.safetensors': gpt2['model.safetensors'] });
    symlinkSync('/dev/zero', `${folder}tokenizer.json`);
    await refuses(
      attn.loadModel(folder),
      RangeError,
      /tokenizer\.json is a link to \/dev\/zero, outside the checkpoint's folder/,
    );
    // A folder named tokenizer.json is not a file.
    writeFolder(folder, { 'config.json': gpt2['config.json'], 'model.safetensors': gpt2['model.safetensors'] });
    mkdirSync(`${folder}tokenizer.json`);
    await refuses(attn.loadModel(folder), RangeError, /tokenizer\.json is not a regular file/);
    // The Hub's cache: snapshots/<revision>/<file> → ../../blobs/<hash>.
    const cache = `${scratch}hub/models--someone--tiny-gpt2/`;
    mkdirSync(`${cache}blobs`, { recursive: true });
    mkdirSync(`${cache}snapshots/abc123`, { recursive: true });
    for (const [i, name] of ['config.json', 'tokenizer.json', 'model.safetensors'].entries()) {
      copyFileSync(`${fixtures}tiny-gpt2/${name}`, `${cache}blobs/hash${i}`);
      symlinkSync(`../../blobs/hash${i}`, `${cache}snapshots/abc123/${name}`);
    }
    const cached = await attn.loadModel(`${cache}snapshots/abc123`);
    const reference = await attn.loadModel(`${fixtures}tiny-gpt2`);
    assert.deepEqual(cached.forward('The cat').logits.data, reference.forward('The cat').logits.data);
    cached.dispose();
    reference.dispose();
  },
);

test("a URL checkpoint requests nothing outside its prefix and never sends the caller's headers elsewhere", async () => {
  const other = await recordingServer({});
  const home = await recordingServer(sharded((map) => ({ ...map, [names[2]]: `${other.url}/x.safetensors` })));
  const fetchOptions = { headers: { Authorization: 'Bearer hf_secret' } };
  try {
    await refuses(
      attn.loadModel(`${home.url}/ckpt/`, { fetchOptions }),
      RangeError,
      /weight_map\[.*\] is "http:\/\/127\.0\.0\.1:\d+\/x\.safetensors", not a file name inside the checkpoint: it holds a folder separator/,
    );
    for (const value of [
      '../outside.safetensors',
      '/outside.safetensors',
      '//127.0.0.1/x',
      '%2e%2e/outside.safetensors',
      '',
    ]) {
      const files = sharded((map) => ({ ...map, [names[2]]: value }));
      home.server.removeAllListeners('request');
      home.server.on('request', (req, res) => {
        home.requests.push({ path: req.url, authorization: req.headers.authorization ?? null });
        const body = req.url.startsWith('/ckpt/')
          ? files[decodeURIComponent(req.url.slice(6))]
          : gpt2['model.safetensors'];
        if (body === undefined) return res.writeHead(404).end();
        res.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
      });
      await refuses(
        attn.loadModel(`${home.url}/ckpt/`, { fetchOptions }),
        RangeError,
        /not a file name inside the checkpoint/,
      );
    }
    assert.deepEqual(other.requests, [], 'the other server was never asked');
    assert.ok(
      home.requests.length > 0 && home.requests.every((r) => r.path.startsWith('/ckpt/')),
      `requests outside the prefix: ${JSON.stringify(home.requests.filter((r) => !r.path.startsWith('/ckpt/')))}`,
    );
    assert.ok(
      home.requests.every((r) => !/safetensors$/.test(r.path) || r.path === '/ckpt/model.safetensors'),
      'no shard was requested before its name was checked',
    );
  } finally {
    other.server.close();
    home.server.close();
  }
});

test('safetensors: a zero-length tensor between two overlapping ones does not hide the overlap', async () => {
  const a = tensors[names[0]];
  const shifted = writeSafetensors(tensors, {
    headerOverride: (header) => {
      // names[1] starts 4 bytes before names[0] ends; a zero-length tensor sits between them.
      const [, end0] = header[names[0]].data_offsets;
      header.empty = { dtype: 'F32', shape: [0], data_offsets: [end0 - 2, end0 - 2] };
      const [b1, e1] = header[names[1]].data_offsets;
      header[names[1]].data_offsets = [b1 - 4, e1 - 4];
      return header;
    },
  });
  assert.ok(a.bytes.length > 8);
  const files = { ...gpt2, 'model.safetensors': shifted };
  await refuses(
    attn.loadModel(files),
    RangeError,
    new RegExp(
      `model\\.safetensors: tensors '${names[0].replace(/\./g, '\\.')}' and '${names[1].replace(/\./g, '\\.')}' overlap`,
    ),
  );
  const folder = `${scratch}overlap/`;
  writeFolder(folder, files);
  await refuses(attn.loadModel(folder), RangeError, /overlap/);
  // A tensor inside another's bytes (not adjacent to it) is caught too.
  const nested = writeSafetensors(tensors, {
    headerOverride: (header) => {
      const [b0] = header[names[0]].data_offsets;
      header.inner = { dtype: 'F32', shape: [1], data_offsets: [b0 + 4, b0 + 8] };
      return header;
    },
  });
  await refuses(attn.loadModel({ ...gpt2, 'model.safetensors': nested }), RangeError, /overlap/);
  // The same tensor in two shards is refused, not silently replaced.
  const twice = sharded();
  twice['model-00002-of-00002.safetensors'] = writeSafetensors({
    ...Object.fromEntries(names.slice(Math.ceil(names.length / 2)).map((n) => [n, tensors[n]])),
    [names[0]]: tensors[names[0]],
  });
  await refuses(
    attn.loadModel(twice),
    RangeError,
    new RegExp(
      `tensor '${names[0].replace(/\./g, '\\.')}' is in both model-00001-of-00002\\.safetensors and model-00002-of-00002\\.safetensors`,
    ),
  );
});

test('config.json values float32 cannot hold, and sizes of zero, are named', async () => {
  const llama = fixtureFiles(`${fixtures}tiny-llama`);
  const llamaConfig = JSON.parse(new TextDecoder().decode(llama['config.json']));
  const bert = fixtureFiles(`${fixtures}tiny-bert`);
  const bertConfig = JSON.parse(new TextDecoder().decode(bert['config.json']));
  const cases = [
    [
      llama,
      llamaConfig,
      { rope_theta: -1 },
      /config\.json: rope_theta must be a positive number float32 holds .*got -1/,
    ],
    [llama, llamaConfig, { rope_theta: 1e39 }, /rope_theta must be a positive number float32 holds/],
    [
      llama,
      llamaConfig,
      { rms_norm_eps: 1e-300 },
      /config\.json: rms_norm_eps must be a positive number float32 holds .*got 1e-300/,
    ],
    [llama, llamaConfig, { rms_norm_eps: '1e-6' }, /rms_norm_eps must be a positive number/],
    [gpt2, gpt2Config, { layer_norm_epsilon: 0 }, /layer_norm_epsilon must be a positive number/],
    [gpt2, gpt2Config, { n_positions: 0 }, /config\.json: n_positions must be an integer in \[1, 2\^31\), got 0/],
    [gpt2, gpt2Config, { n_head: 0 }, /n_head must be an integer in \[1, 2\^31\)/],
    [
      bert,
      bertConfig,
      { type_vocab_size: 0 },
      /config\.json: type_vocab_size must be an integer in \[1, 2\^31\), got 0/,
    ],
    [bert, bertConfig, { layer_norm_eps: 1e-300 }, /layer_norm_eps must be a positive number float32 holds/],
  ];
  for (const [files, config, change, pattern] of cases) {
    await refuses(attn.loadModel({ ...files, 'config.json': { ...config, ...change } }), RangeError, pattern);
  }
});

test('unknown options are TypeErrors that say what was meant', async () => {
  await refuses(
    attn.loadModel(`${fixtures}tiny-gpt2`, { dtpye: 'float32' }),
    TypeError,
    /^loadModel: unknown option 'dtpye' \(did you mean 'dtype'\?/,
  );
  await refuses(
    attn.loadModel(`${fixtures}tiny-gpt2`, { fetch_options: {} }),
    TypeError,
    /did you mean 'fetchOptions'\?/,
  );
  await refuses(
    attn.loadModel(`${fixtures}tiny-gpt2`, { fetchOptions: 'x' }),
    TypeError,
    /options\.fetchOptions must be an object/,
  );
  await refuses(
    attn.loadModel(`${fixtures}tiny-gpt2`, { signal: {} }),
    TypeError,
    /options\.signal must be an AbortSignal/,
  );
  const model = await attn.loadModel(`${fixtures}tiny-gpt2`);
  const inUse = attn.memory().inUseBytes;
  await assert.rejects(
    model.generate('The cat', { max_new_tokens: 2 }),
    /^TypeError: PretrainedModel\.generate: unknown option 'max_new_tokens' \(did you mean 'maxNewTokens'\?/,
  );
  assert.throws(
    () => model.forward('The cat', { attention: true }),
    /^TypeError: PretrainedModel\.forward: unknown option 'attention' \(did you mean 'attentions'\?/,
  );
  assert.throws(
    () => model.forward('The cat', { output_hidden_states: true }),
    /^TypeError: PretrainedModel\.forward: unknown option 'output_hidden_states' \(known:/,
  );
  // 200,000 sequences: a loop, not Math.max(...200k) (which overflowed the stack).
  const many = Array.from({ length: 200_000 }, () => [1]);
  many[199_999] = [99999];
  assert.throws(
    () => model.forward(many),
    /^RangeError: PretrainedModel\.forward: token id 99999 at \[199999, 0\] is outside \[0, 305\)/,
  );
  assertIntact(inUse);
  model.dispose();
});

test('caller code inside a call (getters, iterators, the signal) cannot dispose the model under it; options are read once', async () => {
  const model = await attn.loadModel(`${fixtures}tiny-gpt2`);
  const inUse = attn.memory().inUseBytes;
  // An option that changes between reads: read once, so no hidden states (the first read said no).
  let n = 0;
  const out = model.forward('The cat', {
    get hiddenStates() {
      return ++n > 1;
    },
  });
  assert.equal(n, 1);
  assert.equal(out.hiddenStates, undefined);
  assert.equal(out.logits.shape.join(), `1,${out.ids[0].length},305`);
  assertIntact(inUse);
  // A getter that disposes the model: a clear Error, never a wasm trap.
  const disposing = await attn.loadModel(`${fixtures}tiny-gpt2`);
  const inUse2 = attn.memory().inUseBytes;
  assert.throws(
    () =>
      disposing.forward({
        get inputIds() {
          disposing.dispose();
          return [[1, 2, 3]];
        },
      }),
    /^Error: PretrainedModel\.forward: this model was disposed/,
  );
  assert.ok(attn.memory().inUseBytes < inUse2);
  assert.equal(disposing.disposed, true);
  assert.equal(model.disposed, false);
  const again = await attn.loadModel(`${fixtures}tiny-gpt2`);
  const iterable = {
    *[Symbol.iterator]() {
      again.dispose();
      yield 5;
      yield 6;
    },
  };
  assert.throws(
    () => again.forward({ inputIds: [iterable] }),
    /^Error: PretrainedModel\.forward: this model was disposed/,
  );
  const third = await attn.loadModel(`${fixtures}tiny-gpt2`);
  await assert.rejects(
    third.generate([5, 6], {
      signal: {
        get aborted() {
          third.dispose();
          return false;
        },
      },
    }),
    /^Error: PretrainedModel\.generate: this model was disposed/,
  );
  const fourth = await attn.loadModel(`${fixtures}tiny-gpt2`);
  let reads = 0;
  const signal = {
    get aborted() {
      if (++reads === 3) fourth.dispose();
      return false;
    },
  };
  await assert.rejects(
    fourth.generate([5, 6], { maxNewTokens: 5, signal }),
    /^Error: PretrainedModel\.generate: this model was disposed/,
  );
  const fifth = await attn.loadModel(`${fixtures}tiny-gpt2`);
  const prompt = [5, 6];
  prompt[Symbol.iterator] = function* iterate() {
    fifth.dispose();
    yield 5;
  };
  await assert.rejects(fifth.generate(prompt), /^Error: PretrainedModel\.generate: this model was disposed/);
  assertIntact(inUse);
  model.dispose();
});

test('a temperature too small to divide by is greedy, not the least likely token', async () => {
  const model = await attn.loadModel(`${fixtures}tiny-gpt2`);
  const greedy = await model.generate('The cat', { maxNewTokens: 6, stopAtEos: false, returnScores: true });
  for (const temperature of [1e-310, 5e-324, 1e-45, 1e-30]) {
    const tiny = await model.generate('The cat', { maxNewTokens: 6, stopAtEos: false, temperature, seed: 11 });
    assert.deepEqual(tiny.newIds, greedy.newIds, `temperature ${temperature}`);
  }
  // The greedy tokens are the arg-max of the logits (an independent check of the reference).
  greedy.scores.forEach((logits, i) => assert.equal(greedy.newIds[i], logits.indexOf(Math.max(...logits))));
  model.dispose();
});

test('a safetensors header listing more tensors than any real file is refused before it is parsed', async () => {
  const entries = Array.from({ length: 70_000 }, (_, i) => `"t.${i}":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}`);
  const text = new TextEncoder().encode(`{"__metadata__":{"a":"{[,,,]}\\",,"},${entries.join(',')}}`);
  const bytes = new Uint8Array(8 + text.length);
  new DataView(bytes.buffer).setUint32(0, text.length, true);
  bytes.set(text, 8);
  await refuses(
    attn.loadModel({ ...gpt2, 'model.safetensors': bytes }),
    RangeError,
    /^loadModel: model\.safetensors: the safetensors header lists more than 65536 tensors/,
  );
  // 65,536 entries and a metadata string full of commas and brackets are counted right: the
  // header is read (and fails later, for the missing embeddings).
  const fewer = new TextEncoder().encode(`{"__metadata__":{"a":"{[,,,]}\\",,"},${entries.slice(0, 65_536).join(',')}}`);
  const ok = new Uint8Array(8 + fewer.length);
  new DataView(ok.buffer).setUint32(0, fewer.length, true);
  ok.set(fewer, 8);
  await refuses(
    attn.loadModel({ ...gpt2, 'model.safetensors': ok }),
    RangeError,
    /the checkpoint has no tensor 'transformer\.wte\.weight'/,
  );
});
