// GGUF files (issue 34, item 2a): llama.cpp's single-file checkpoints read into the same
// descriptor, weights and tokenizer as the Hugging Face folder they were converted from.
// The fixtures (scripts/make-gguf-fixtures.py, written with Python's struct, independent of the
// reader) are tests/fixtures/hf's tiny models as convert_hf_to_gguf.py writes them: Llama's q/k
// rows permuted, Gemma's norms stored as 1 + w, GPT-2's Conv1D transposed, the tokenizer as
// tokenizer.ggml.*. A float32 file gives the folder's logits exactly; Q8_0 and Q4_0 files the
// float64 PyTorch forward of their dequantized weights; the K-quant dequantizers the float64
// Python dequantization of random blocks bit for bit. A hostile file is refused by name, fast.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { ggufBytes, decoderGguf } from './helpers/gguf.js';
import { fixtureFiles, readSafetensors } from './helpers/safetensors.js';
import { parseGguf, StreamReader } from '../bindings/js/models/gguf.js';
import { dequantize } from '../bindings/js/models/gguf_quants.js';

const attn = await init({ simd: 'baseline' });
const ggufDir = fileURLToPath(new URL('./fixtures/gguf/', import.meta.url));
const hfDir = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const bytesOf = (name) => new Uint8Array(readFileSync(`${ggufDir}${name}`));
const json = (name) => JSON.parse(readFileSync(`${ggufDir}${name}`, 'utf8'));
const TEXTS = [
  'The cat sat on the mat.',
  'Attention is all you need!',
  'Transformers attend, unbelievably.',
  'Café ☕ naïve',
  '  two  spaces\nand a line',
];

async function withModels(gguf, hf, body, options) {
  const a = await attn.loadModel(`${ggufDir}${gguf}`, options);
  const b = hf === null ? null : await attn.loadModel(`${hfDir}${hf}`);
  try {
    await body(a, b);
  } finally {
    a.dispose();
    b?.dispose();
  }
}

for (const family of ['llama', 'qwen2', 'gpt2', 'gemma2']) {
  test(`a float32 ${family} GGUF is the Hugging Face model: the same descriptor, logits and token ids`, async () => {
    await withModels(`tiny-${family}-f32.gguf`, `tiny-${family}`, (gguf, hf) => {
      assert.deepEqual(gguf.descriptor, hf.descriptor);
      assert.equal(gguf.modelType, hf.modelType);
      // The GGUF's tensor element counts against the safetensors' shapes (two readers).
      assert.equal(gguf.parameterCount, hf.parameterCount, 'parameterCount');
      assert.ok(hf.parameterCount > 0);
      for (const text of TEXTS) {
        assert.deepEqual(
          gguf.tokenizer.encode(text).ids,
          hf.tokenizer.encode(text).ids,
          `ids of ${JSON.stringify(text)}`,
        );
        assertClose(gguf.forward(text).logits, hf.forward(text).logits, { atol: 1e-6, rtol: 0, label: text });
      }
      const ids = hf.tokenizer.encode(TEXTS[0]).ids;
      assert.equal(
        gguf.tokenizer.decode(ids, { skipSpecialTokens: true }),
        hf.tokenizer.decode(ids, { skipSpecialTokens: true }),
      );
      assert.deepEqual(gguf.generationDefaults.eosTokenId, hf.generationDefaults.eosTokenId);
    });
  });
}

test("a Llama GGUF's chat template comes from tokenizer.chat_template", async () => {
  await withModels('tiny-llama-f32.gguf', null, (model) => {
    assert.match(model.chatTemplates.default, /^\{% for m in messages %\}<\|\{\{ m.role \}\}\|>/);
    const messages = [{ role: 'user', content: 'hi' }];
    const text = model.applyChatTemplate(messages, { addGenerationPrompt: true, tokenize: false });
    assert.equal(text, '<|user|>hi</s><|assistant|>');
    const ids = model.applyChatTemplate(messages, { addGenerationPrompt: true });
    assert.deepEqual(ids, model.tokenizer.encode(text, { addSpecialTokens: false }).ids);
    assert.ok(ids.includes(2), "the template's </s> is the eos token");
  });
});

// With dtype 'float32': these files keep ffn_down (rows of 48, no whole blocks) in F32, so
// 'auto' holds them as blocks and re-quantizes ffn_down (gguf-auto.test.js).
for (const type of ['q8_0', 'q4_0']) {
  test(`a ${type.toUpperCase()} Llama GGUF widened to float32 gives the PyTorch logits of its dequantized weights`, async () => {
    const ref = json(`tiny-llama-${type}.json`);
    await withModels(
      `tiny-llama-${type}.gguf`,
      'tiny-llama',
      (gguf, hf) => {
        assert.equal(gguf.matrixDtype, 'float32');
        assert.deepEqual(gguf.tokenizer.encode(ref.text).ids, ref.ids);
        const logits = gguf.forward(ref.text).logits;
        assertClose(logits, ref.logits, { atol: 1e-4, rtol: 1e-4, label: type });
        // The quantization moved the logits (so the reference is not the float model's).
        const float = hf.forward(ref.text).logits.data;
        const drift = logits.data.reduce((m, v, i) => Math.max(m, Math.abs(v - float[i])), 0);
        assert.ok(drift > 1e-3, `${type} logits drift ${drift} from the float model`);
      },
      { dtype: 'float32' },
    );
  });
}

// A stream with no Content-Length and a body with no end (issue 44, item 5): a tensor placed at
// 2^40 made the reader skip forward until the caller's signal fired (up to 1 TB); now the
// header is refused, since ggml writes each tensor right after the one before. A good file
// followed by endless bytes is read to its last tensor and the connection closed.
test('a GGUF stream without a length and with an endless body: refused at the header, or read only as far as it accounts for', async () => {
  const good = bytesOf('tiny-llama-q8_0.gguf');
  const hostile = ggufBytes({
    metadata: [{ key: 'general.architecture', type: 8, value: 'llama' }],
    tensors: [
      { name: 'token_embd.weight', type: 0, dims: [4, 4], bytes: new Uint8Array(64) },
      { name: 'output.weight', type: 0, dims: [4, 4], offset: 2 ** 40, bytes: new Uint8Array(64) },
    ],
  });
  const sent = new Map();
  const closed = new Set();
  const server = createServer((req, res) => {
    const bytes = req.url.startsWith('/good') ? good : hostile;
    res.writeHead(200, {}); // chunked: no length
    const junk = new Uint8Array(1 << 16).fill(0x5a);
    let at = 0;
    res.on('close', () => closed.add(req.url));
    const next = () => {
      if (res.destroyed || at > 256 << 20) return res.end();
      const piece = at < bytes.length ? bytes.subarray(at, at + 65536) : junk;
      at += piece.length;
      sent.set(req.url, at);
      res.write(piece, next);
    };
    next();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = (path) => `http://127.0.0.1:${server.address().port}${path}`;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
  try {
    await assert.rejects(
      attn.loadModel(url('/hostile.gguf')),
      (e) => e instanceof RangeError && /tensor 'output.weight' starts at data offset 1099511627776/.test(e.message),
    );
    // Refused at the header: the server had written a few MB (socket buffers) of its 256 MiB,
    // not the stream (a wall-clock bound here failed on a busy machine and proved nothing more).
    const atRefusal = sent.get('/hostile.gguf');
    assert.ok(atRefusal < 32 << 20, `refused after ${atRefusal} bytes were sent`);
    const model = await attn.loadModel(url('/good.gguf'));
    const reference = await attn.loadModel(good);
    assert.deepEqual(model.forward(TEXTS[0]).logits.data, reference.forward(TEXTS[0]).logits.data);
    model.dispose();
    reference.dispose();
    await settle();
    for (const path of ['/hostile.gguf', '/good.gguf']) {
      assert.ok(closed.has(path), `${path}: the connection was closed`);
      // What the server wrote includes what the sockets buffered, unread: a few MB at most.
      assert.ok(sent.get(path) < 32 << 20, `${path}: ${sent.get(path)} bytes sent before the close`);
    }
  } finally {
    server.close();
  }
});

test("a GGUF's Q8_0 matrices stay its blocks: with dtype 'q8' they are the runner's own quantization of the float model", async () => {
  // tiny-gpt2-q8_0.gguf: every layer matrix Q8_0 by ggml's reference quantizer (Python), the
  // embeddings (and so the tied head) float32. The runner keeps the file's blocks (repacked);
  // from the Hugging Face folder with dtype 'q8' it quantizes the same floats itself.
  const gguf = await attn.loadModel(`${ggufDir}tiny-gpt2-q8_0.gguf`, { dtype: 'q8' });
  const hf = await attn.loadModel(`${hfDir}tiny-gpt2`, { dtype: 'q8' });
  try {
    assert.equal(gguf.matrixDtype, 'q8');
    assert.equal(gguf.parameterBytes, hf.parameterBytes);
    const ids = [[263, 220, 66, 259, 282, 281, 262, 279, 259, 13]];
    assert.deepEqual(gguf.forward(ids).logits.data, hf.forward(ids).logits.data);
  } finally {
    gguf.dispose();
    hf.dispose();
  }
});

// The tensor `name` of a fixture, dequantized by the reader.
async function dequantized(file, name) {
  const bytes = bytesOf(file);
  const { tensors } = await parseGguf(
    'test',
    file,
    new StreamReader(
      (async function* () {
        yield bytes;
      })(),
    ),
    bytes.length,
  );
  const t = tensors.get(name);
  return dequantize(t.type, bytes.subarray(t.begin, t.end), new Float32Array(t.count));
}

test('the dequantizers give ggml float32 values exactly: Q8_0, Q4_0, Q4_K, Q6_K', async () => {
  const cases = [
    ...['q8_0', 'q4_0'].map((type) => {
      const { tensor, values } = json(`tiny-llama-${type}.json`).dequantized;
      return [`tiny-llama-${type}.gguf`, tensor, values];
    }),
    ['kquants.gguf', 'q4_k', json('kquants.json').q4_k],
    ['kquants.gguf', 'q6_k', json('kquants.json').q6_k],
  ];
  for (const [file, name, expected] of cases) {
    const got = await dequantized(file, name);
    const want = expected.map((v) => Math.fround(Number(v)));
    const first = want.findIndex((v, i) => !Object.is(got[i], v));
    assert.equal(first, -1, `${file} ${name}: element ${first} is ${got[first]}, expected ${want[first]}`);
    assert.ok(new Set(want).size > 16, `${name}: the values are not trivial`);
  }
});

test('F16 and BF16 tensors are widened exactly', async () => {
  const values = [1, -2, 0.5, 65280, 2 ** -24, -(2 ** -14), 0, 3.140625];
  const half = new Uint16Array([0x3c00, 0xc000, 0x3800, 0x7bf8, 0x0001, 0x8400, 0x0000, 0x4248]);
  const bf = new Uint16Array(new Float32Array(values).buffer.slice(0)).filter((_, i) => i % 2 === 1);
  for (const [type, bits] of [
    [1, half],
    [30, bf],
  ]) {
    const out = dequantize(type, new Uint8Array(bits.buffer), new Float32Array(values.length));
    assert.deepEqual(Array.from(out), values, `type ${type}`);
  }
});

test('a GGUF file loads from its path, a file: URL, bytes, an ArrayBuffer, a Blob, a File list and an http URL (streamed, with and without its length)', async () => {
  const bytes = bytesOf('tiny-llama-q8_0.gguf');
  const expected = (await attn.loadModel(`${ggufDir}tiny-llama-q8_0.gguf`)).forward(TEXTS[0]).logits.data;
  const server = createServer((req, res) => {
    if (req.url !== '/models/tiny.gguf' && req.url !== '/chunked/tiny.gguf') return res.writeHead(404).end();
    // Sent in small pieces: the header and the tensors arrive across chunks; /chunked/ without
    // a length (the reader then learns the file's end as it comes).
    res.writeHead(200, req.url.startsWith('/chunked/') ? {} : { 'content-length': bytes.length });
    let at = 0;
    const next = () => {
      if (at >= bytes.length) return res.end();
      res.write(bytes.subarray(at, (at += 7001)), next);
    };
    next();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const progress = [];
  try {
    const sources = [
      pathToFileURL(`${ggufDir}tiny-llama-q8_0.gguf`),
      bytes,
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
      new Blob([bytes]),
      [new File([bytes], 'tiny-llama-q8_0.gguf')],
      `http://127.0.0.1:${server.address().port}/models/tiny.gguf`,
      new URL(`http://127.0.0.1:${server.address().port}/chunked/tiny.gguf`),
    ];
    for (const source of sources) {
      const options = typeof source === 'string' ? { onProgress: (e) => progress.push(e) } : undefined;
      const model = await attn.loadModel(source, options);
      assert.deepEqual(model.forward(TEXTS[0]).logits.data, expected, String(source).slice(0, 60));
      model.dispose();
    }
    assert.ok(progress.length > 5 && progress.at(-1).loaded === progress.at(-1).total);
  } finally {
    server.close();
  }
});

// ---- hostile files ----
function assertIntact(inUse) {
  assert.equal(attn.memory().inUseBytes, inUse, 'no wasm memory left allocated');
  assert.deepEqual(
    Array.from(
      attn.attention(
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
      ).output.data,
    ),
    [2, 3],
  );
}

async function refuses(source, pattern) {
  const inUse = attn.memory().inUseBytes;
  const started = performance.now();
  await assert.rejects(attn.loadModel(source), (e) => {
    assert.ok(e instanceof RangeError, `${e.constructor.name}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });
  const ms = performance.now() - started;
  assertIntact(inUse);
  return ms;
}

const F32 = 0;
const floats = (n) => new Uint8Array(new Float32Array(n).buffer);
const arch = { key: 'general.architecture', type: 8, value: 'llama' };

test('hostile GGUF files are refused by name before anything is allocated, in milliseconds', async () => {
  const good = bytesOf('tiny-llama-q4_0.gguf');
  const times = [];
  // Truncated anywhere: in the header, in the tensor infos, in the data (the last tensor: its
  // padding is at most 31 bytes).
  for (const cut of [3, 10, 30, 200, 5000, Math.floor(good.length / 2), good.length - 32]) {
    times.push(await refuses(good.subarray(0, cut), /^loadModel: the GGUF bytes given|does not start with 'GGUF'/));
  }
  const lies = [
    [{ tensorCount: 2 ** 40 }, /claims 1099511627776 tensors; at most 65536/],
    [{ kvCount: 2 ** 50 }, /claims 1125899906842624 metadata entries; at most 65536/],
    [{ version: 1 }, /: GGUF version 1; versions 2 and 3 are read/],
    [{ version: 0x03000000 }, /big-endian/],
    // A string or array that claims more bytes than the file has.
    [
      { metadata: [{ key: 'general.name', type: 8, value: new Uint8Array([...new Uint8Array(8).fill(255)]) }] },
      /past 2\^53|claims/,
    ],
    [
      {
        metadata: [
          {
            key: 'general.name',
            type: 8,
            value: (() => {
              const b = new Uint8Array(8);
              new DataView(b.buffer).setUint32(0, 1e9, true);
              return b;
            })(),
          },
        ],
      },
      /metadata 'general.name' claims 1000000000 bytes/,
    ],
    [
      { metadata: [{ key: 'tokenizer.ggml.tokens', type: 9, value: { type: 8, items: [], length: 2 ** 40 } }] },
      /'tokenizer.ggml.tokens' claims 1099511627776 elements/,
    ],
    [{ metadata: [{ key: 'x', type: 9, value: { type: 9, items: [] } }] }, /is an array of arrays/],
    [{ metadata: [{ key: 'x', type: 13, value: new Uint8Array(8) }] }, /metadata 'x' has unknown value type 13/],
    [{ metadata: [arch, arch] }, /metadata key 'general.architecture' appears twice/],
    [{ metadata: [{ key: 'general.alignment', type: 4, value: 3 }] }, /general.alignment must be a power of two/],
    // Tensors that lie about where they are or what they hold.
    [
      { tensors: [{ name: 'token_embd.weight', type: F32, dims: [64, 4], bytes: floats(16) }] },
      /tensor 'token_embd.weight' \(F32 \[64, 4\]\) ends at byte \d+ but the file has \d+/,
    ],
    // A tensor far past the others (an offset of 2^40 once made a stream with no length read
    // and skip for a terabyte): ggml writes each right after the one before.
    [
      { tensors: [{ name: 'token_embd.weight', type: F32, dims: [4, 4], offset: 2 ** 40, bytes: floats(16) }] },
      /tensor 'token_embd.weight' starts at data offset 1099511627776, but the tensors listed before it end at 0; ggml writes each tensor right after the one before \(aligned to 32\)/,
    ],
    [
      { tensors: [{ name: 'a', type: F32, dims: [4], offset: 4, bytes: floats(4) }] },
      /tensor 'a' starts at data offset 4, not a multiple of the alignment 32/,
    ],
    [{ tensors: [{ name: 'a', type: 99, dims: [4], bytes: floats(4) }] }, /tensor 'a' has unknown ggml type 99/],
    [
      { tensors: [{ name: 'a', type: F32, dims: [1, 1, 1, 1, 1], bytes: floats(1) }] },
      /tensor 'a' has 5 dimensions; ggml has 1 to 4/,
    ],
    [{ tensors: [{ name: 'a', type: F32, dims: [0], bytes: floats(0) }] }, /tensor 'a' has dimension 0 of 0/],
    [
      { tensors: [{ name: 'a', type: 8, dims: [33], bytes: new Uint8Array(68) }] },
      /tensor 'a' is Q8_0 with rows of 33 elements; Q8_0 needs whole blocks of 32/,
    ],
    [
      { tensors: [{ name: 'x'.repeat(64), type: F32, dims: [1], bytes: floats(1) }] },
      /the name of tensor 0 is 64 bytes long; at most 63/,
    ],
    [
      {
        tensors: [
          { name: 'a', type: F32, dims: [16], offset: 0, bytes: floats(16) },
          { name: 'b', type: F32, dims: [16], offset: 32, bytes: floats(16) },
        ],
      },
      /tensor 'b' starts at data offset 32, but the tensors listed before it end at 64/,
    ],
    [
      {
        tensors: [
          { name: 'a', type: F32, dims: [8], bytes: floats(8) },
          { name: 'a', type: F32, dims: [8], bytes: floats(8) },
        ],
      },
      /tensor 'a' appears twice/,
    ],
  ];
  for (const [spec, pattern] of lies)
    times.push(await refuses(ggufBytes({ metadata: [arch], ...spec, metadata: spec.metadata ?? [arch] }), pattern));
  // A well-formed file of something this package does not run.
  times.push(
    await refuses(
      ggufBytes({ metadata: [{ key: 'general.architecture', type: 8, value: 'mamba' }] }),
      /general.architecture "mamba" is not supported \(supported: gpt2, llama, qwen2/,
    ),
  );
  // A tensor type that is known but not read: named with the types that are.
  const iq4 = rewriteType(good, 'blk.0.attn_v.weight', 20); // IQ4_NL: Q4_0's block size, not read
  times.push(
    await refuses(
      iq4,
      /: tensor 'blk.0.attn_v.weight' is IQ4_NL; GGUF weights must be F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K/,
    ),
  );
  const slowest = Math.max(...times);
  console.log(
    `# ${times.length} refusals, the slowest ${slowest.toFixed(1)} ms`,
    times.map((t) => t.toFixed(1)).join(' '),
  );
  assert.ok(slowest < 1000, `the slowest refusal took ${slowest.toFixed(1)} ms`);
});

// The fixture with one tensor's type id changed (to one of the same block size and bytes).
function rewriteType(bytes, name, type) {
  const copy = bytes.slice();
  const needle = new TextEncoder().encode(name);
  outer: for (let i = 0; i < copy.length - needle.length; i++) {
    for (let k = 0; k < needle.length; k++) if (copy[i + k] !== needle[k]) continue outer;
    const view = new DataView(copy.buffer);
    const nDims = view.getUint32(i + needle.length, true);
    view.setUint32(i + needle.length + 4 + 8 * nDims, type, true);
    return copy;
  }
  throw new Error(`no tensor ${name}`);
}

// Phi-3 (q, k, v fused in attn_qkv, gate and up in ffn_up, partial rotary, longrope in two
// tensors), Qwen3 (q/k norms, head_dim of its own), Gemma 3 ((1 + w) q/k norms stored as 1 + w,
// sliding pattern, linear RoPE scaling) and Llama 3's RoPE scaling (the rope_freqs tensor): GGUF files written from the Hugging Face fixtures here (no tokenizer), as
// convert_hf_to_gguf.py writes them.
const floatBytes = (values) => new Uint8Array(Float32Array.from(values).buffer);

function llama3Factors(
  { factor, low_freq_factor: low, high_freq_factor: high, original_max_position_embeddings: orig },
  base,
  dim,
) {
  const out = [];
  for (let i = 0; i < dim; i += 2) {
    const wavelen = (2 * Math.PI) / base ** (-i / dim);
    if (wavelen < orig / high) out.push(1);
    else if (wavelen > orig / low) out.push(factor);
    else {
      const smooth = (orig / wavelen - low) / (high - low);
      out.push(1 / ((1 - smooth) / factor + smooth));
    }
  }
  return out;
}

const written = {
  phi3: (c) => ({
    metadata: [
      { key: 'phi3.rope.scaling.original_context_length', type: 4, value: c.original_max_position_embeddings },
    ],
    tensors: ['long', 'short'].map((k) => ({
      name: `rope_factors_${k}.weight`,
      type: 0,
      dims: [c.rope_scaling[`${k}_factor`].length],
      bytes: floatBytes(c.rope_scaling[`${k}_factor`]),
    })),
  }),
  qwen3: () => ({}),
  gemma3: (c) => ({
    metadata: [
      { key: 'gemma3.attention.sliding_window', type: 4, value: c.sliding_window },
      { key: 'gemma3.attention.sliding_window_pattern', type: 4, value: c.sliding_window_pattern },
      { key: 'gemma3.rope.scaling.type', type: 8, value: c.rope_scaling.rope_type },
      { key: 'gemma3.rope.scaling.factor', type: 6, value: c.rope_scaling.factor },
    ],
  }),
  llama: (c) => ({
    metadata: [
      {
        key: 'llama.rope.scaling.original_context_length',
        type: 4,
        value: c.rope_scaling.original_max_position_embeddings,
      },
    ],
    tensors: [
      {
        name: 'rope_freqs.weight',
        type: 0,
        dims: [4],
        bytes: floatBytes(llama3Factors(c.rope_scaling, c.rope_theta, 8)),
      },
    ],
  }),
};

for (const [fixture, arch] of [
  ['tiny-phi3', 'phi3'],
  ['tiny-qwen3', 'qwen3'],
  ['tiny-gemma3', 'gemma3'],
  ['tiny-llama-rope-scaling', 'llama'],
]) {
  test(`a ${fixture} GGUF (${arch}) is the Hugging Face model`, async () => {
    const files = fixtureFiles(`${hfDir}${fixture}`);
    const config = JSON.parse(new TextDecoder().decode(files['config.json']));
    const bytes = decoderGguf(arch, config, readSafetensors(files['model.safetensors']), written[arch](config));
    const gguf = await attn.loadModel(bytes);
    const hf = await attn.loadModel(`${hfDir}${fixture}`);
    try {
      assert.deepEqual(gguf.descriptor, hf.descriptor);
      assert.equal(gguf.tokenizer, null);
      // Past the original context too (Phi-3's long factors, Llama 3's low frequencies).
      const ids = [Array.from({ length: 40 }, (_, i) => (i * 37 + 5) % config.vocab_size)];
      assertClose(gguf.forward(ids).logits, hf.forward(ids).logits, { atol: 1e-6, rtol: 0, label: fixture });
    } finally {
      gguf.dispose();
      hf.dispose();
    }
  });
}

// Random corruption of a real file's header (counts, lengths, types, offsets, text): every
// outcome is a model or an error of loadModel's own, never an error from deep inside (a typed
// array too long, a stack overflow) or wasm memory left behind.
test('a GGUF header with random bytes changed loads or is refused by loadModel, nothing else', async () => {
  const good = bytesOf('tiny-llama-q4_0.gguf');
  const { dataStart: headerEnd } = await parseGguf(
    'test',
    'q4_0',
    new StreamReader(
      (async function* () {
        yield good;
      })(),
    ),
    good.length,
  ); // the metadata and tensor infos end here
  let seed = 34;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const outcomes = { loaded: 0, refused: 0 };
  for (let round = 0; round < 150; round++) {
    const bytes = good.slice();
    for (let k = 0; k < 1 + Math.floor(random() * 4); k++) {
      const at = Math.floor(random() * Math.min(headerEnd, bytes.length));
      bytes[at] = random() < 0.5 ? Math.floor(random() * 256) : bytes[at] ^ (1 << Math.floor(random() * 8));
    }
    const inUse = attn.memory().inUseBytes;
    try {
      const model = await attn.loadModel(bytes);
      model.forward([[1, 2, 3]]);
      model.dispose();
      outcomes.loaded++;
    } catch (error) {
      assert.ok(error instanceof RangeError || error instanceof TypeError, `round ${round}: ${error.stack}`);
      assert.match(error.message, /^loadModel: /, `round ${round}: ${error.stack}`);
      outcomes.refused++;
    }
    assert.equal(attn.memory().inUseBytes, inUse, `round ${round}: wasm memory left allocated`);
  }
  console.log(`# ${JSON.stringify(outcomes)}`);
  assert.ok(outcomes.refused > 20 && outcomes.loaded > 5, JSON.stringify(outcomes));
});

// Where the GGUF string `text` (its uint64 length, then its bytes) starts in `bytes`.
function findString(bytes, text) {
  const needle = new Uint8Array([
    ...new Uint8Array(new BigUint64Array([BigInt(new TextEncoder().encode(text).length)]).buffer),
    ...new TextEncoder().encode(text),
  ]);
  outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
    for (let k = 0; k < needle.length; k++) if (bytes[i + k] !== needle[k]) continue outer;
    return i;
  }
  throw new Error(`no string ${text}`);
}

test("metadata a model cannot have is named as the file's; a piece named '__proto__' is a token like any other", async () => {
  const good = bytesOf('tiny-llama-f32.gguf');
  // A context of no tokens.
  const bad = good.slice();
  const key = 'llama.context_length';
  new DataView(bad.buffer).setUint32(findString(bad, key) + 8 + key.length + 4, 0, true);
  await refuses(
    bad,
    /^loadModel: the config read from the GGUF bytes given's metadata: max_position_embeddings must be an integer in \[1, 2\^31\), got 0$/,
  );
  // '▁the▁' (9 bytes) renamed '__proto__' (9 bytes): every offset stays.
  const renamed = good.slice();
  renamed.set(new TextEncoder().encode('__proto__'), findString(renamed, '▁the▁') + 8);
  const model = await attn.loadModel(renamed);
  const hf = await attn.loadModel(`${hfDir}tiny-llama`);
  try {
    assert.equal(model.tokenizer.tokenToId('__proto__'), hf.tokenizer.tokenToId('▁the▁'));
    assert.equal(model.tokenizer.decode([model.tokenizer.tokenToId('__proto__')]), '__proto__');
  } finally {
    model.dispose();
    hf.dispose();
  }
});
