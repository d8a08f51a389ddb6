// dtype 'auto' on GGUF files that mix tensor types (issue 34), as llama.cpp writes them: a Q4_0
// file with a Q6_K output matrix, a Q4_K_M file (Q4_K and Q6_K), a Q8_0 file with an F16 output.
// Every matrix in blocks the runner has a kernel for (Q8_0, Q4_0, Q4_K, Q6_K) keeps them; the
// others (a float output) are quantized into the storage most of the file's matrix weights are
// in, with ggml's reference quantizer. A file with such a tensor, or loaded with dtype 'q4' /
// 'q8', has a twin written by the test: the same file with every such tensor re-quantized in JS
// (helpers/quantized-reference.js), so all its matrices are kept as they are. The files are a one-layer Llama with d_model 256 (K-quant
// rows are blocks of 256) and random blocks; the Q4_0 and Q8_0 ones never re-quantize to
// themselves, so a matrix re-quantized by mistake changes the logits.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { ggufBytes } from './helpers/gguf.js';
import { quantizeBlock, ggufBytes as blockBytes, roundToHalf, halfBits } from './helpers/quantized-reference.js';
import { dequantize, GGML_TYPES } from '../bindings/js/models/gguf_quants.js';

const attn = await init({ simd: 'baseline' });

const [F32, F16, Q4_0, Q8_0, Q4_K, Q6_K] = [0, 1, 2, 8, 12, 14];
const D = 256;
const HEADS = 4;
const KV_HEADS = 2;
const HEAD_DIM = 64;
const FF = 256;
const VOCAB = 64;

// mulberry32: the same file every run.
function randomOf(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const setHalf = (out, at, value) => {
  const bits = halfBits(roundToHalf(value));
  out[at] = bits & 0xff;
  out[at + 1] = bits >> 8;
};

// Random bytes of `count` elements of each type: weights of magnitude about 0.1.
const RANDOM = {
  [F32]: (rand, count) => new Uint8Array(Float32Array.from({ length: count }, () => 0.2 * (rand() - 0.5)).buffer),
  [F16]: (rand, count) => {
    const out = new Uint8Array(2 * count);
    for (let i = 0; i < count; i++) setHalf(out, 2 * i, 0.2 * (rand() - 0.5));
    return out;
  },
  // Codes 1..15: the largest magnitude is 7·d, so re-quantizing gives a scale of 7·d / 8.
  [Q4_0]: (rand, count) =>
    blocksOf(rand, count, 32, 18, (out, at) => {
      setHalf(out, at, 0.015 * (0.5 + rand()));
      for (let j = 0; j < 16; j++)
        out[at + 2 + j] = (1 + Math.floor(15 * rand())) | ((1 + Math.floor(15 * rand())) << 4);
    }),
  // Codes within ±120: re-quantizing gives a scale of max|code|·d / 127.
  [Q8_0]: (rand, count) =>
    blocksOf(rand, count, 32, 34, (out, at) => {
      setHalf(out, at, 0.001 * (0.5 + rand()));
      for (let j = 0; j < 32; j++) out[at + 2 + j] = (Math.floor(241 * rand()) - 120) & 0xff;
    }),
  // d, dmin, 12 bytes of 6-bit scales and mins, 128 bytes of nibbles.
  [Q4_K]: (rand, count) =>
    blocksOf(rand, count, 256, 144, (out, at) => {
      setHalf(out, at, 1.5e-4 * (0.5 + rand()));
      setHalf(out, at + 2, 1.5e-4 * (0.5 + rand()));
      for (let j = 4; j < 144; j++) out[at + j] = Math.floor(256 * rand());
    }),
  // 128 bytes of low bits, 64 of high bits, 16 int8 scales, d.
  [Q6_K]: (rand, count) =>
    blocksOf(rand, count, 256, 210, (out, at) => {
      for (let j = 0; j < 208; j++) out[at + j] = Math.floor(256 * rand());
      setHalf(out, at + 208, 5e-5 * (0.5 + rand()));
    }),
};

function blocksOf(rand, count, block, bytes, fill) {
  const out = new Uint8Array((count / block) * bytes);
  for (let at = 0; at < out.length; at += bytes) fill(out, at);
  return out;
}

// The tensors of the one-layer Llama ({ name, type, dims (GGUF's: [inner, rows]), bytes }),
// each matrix of the type typeOf(name) says; the norms F32.
function llamaTensors(seed, typeOf) {
  const rand = randomOf(seed);
  const matrices = [
    ['token_embd.weight', D, VOCAB],
    ['blk.0.attn_q.weight', D, HEADS * HEAD_DIM],
    ['blk.0.attn_k.weight', D, KV_HEADS * HEAD_DIM],
    ['blk.0.attn_v.weight', D, KV_HEADS * HEAD_DIM],
    ['blk.0.attn_output.weight', HEADS * HEAD_DIM, D],
    ['blk.0.ffn_gate.weight', D, FF],
    ['blk.0.ffn_up.weight', D, FF],
    ['blk.0.ffn_down.weight', FF, D],
    ['output.weight', D, VOCAB],
  ];
  const norm = (name) => ({
    name,
    type: F32,
    dims: [D],
    bytes: new Uint8Array(Float32Array.from({ length: D }, () => 1 + 0.2 * (rand() - 0.5)).buffer),
  });
  const tensors = matrices.map(([name, inner, rows]) => {
    const type = typeOf(name);
    return { name, type, dims: [inner, rows], bytes: RANDOM[type](rand, inner * rows) };
  });
  return [...tensors, norm('blk.0.attn_norm.weight'), norm('blk.0.ffn_norm.weight'), norm('output_norm.weight')];
}

function llamaFile(tensors) {
  const u32 = (key, value) => ({ key: `llama.${key}`, type: 4, value });
  const metadata = [
    { key: 'general.architecture', type: 8, value: 'llama' },
    u32('context_length', 64),
    u32('embedding_length', D),
    u32('feed_forward_length', FF),
    u32('block_count', 1),
    u32('attention.head_count', HEADS),
    u32('attention.head_count_kv', KV_HEADS),
    u32('attention.key_length', HEAD_DIM),
    { key: 'llama.attention.layer_norm_rms_epsilon', type: 6, value: 1e-5 },
    { key: 'llama.rope.freq_base', type: 6, value: 10000 },
    u32('rope.dimension_count', HEAD_DIM),
  ];
  return ggufBytes({ metadata, tensors });
}

// The twin: every 2-D tensor not of `type` (Q4_0 or Q8_0) dequantized and quantized again by
// ggml's reference quantizer, written in JS (quantize_row_q4_0_ref / quantize_row_q8_0_ref).
function requantized(tensors, type) {
  const storage = type === Q4_0 ? 'q4_0' : 'q8_0';
  return tensors.map((t) => {
    if (t.dims.length !== 2 || t.type === type) return t;
    const [inner, rows] = t.dims;
    const values = dequantize(t.type, t.bytes, new Float32Array(inner * rows));
    const blocks = Array.from({ length: rows }, (_, r) =>
      Array.from({ length: inner / 32 }, (_, b) =>
        quantizeBlock(values.subarray(r * inner + 32 * b, r * inner + 32 * b + 32), storage),
      ),
    );
    return { ...t, type, bytes: blockBytes(blocks, storage) };
  });
}

const PROMPT = [Array.from({ length: 20 }, (_, i) => (i * 29 + 3) % VOCAB)]; // 20 rows: a prefill
const TOKENS = [5, 17, 40, 63]; // one row each: the integer product on the blocks
const decodeLogits = (model) => TOKENS.flatMap((t) => Array.from(model.forward([[t]]).logits.data));
const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

async function loaded(bytes, options) {
  const model = await attn.loadModel(bytes, options);
  return {
    model,
    matrixDtype: model.matrixDtype,
    quantizedAtLoad: { ...model.quantizedAtLoad },
    parameterBytes: model.parameterBytes,
    prefill: Array.from(model.forward(PROMPT).logits.data),
    decode: decodeLogits(model),
  };
}

// Loads the file with 'auto' and the twin with 'auto' and 'float32', and checks what the
// storage type says: the file's model holds the twin's blocks (the same logits, bit for bit,
// in a decode step and a prefill), near the float model of the twin's dequantized weights.
async function checkAgainstTwin(tensors, type, { matrixDtype, quantizedAtLoad }, options) {
  const file = await loaded(llamaFile(tensors), options);
  const twin = await loaded(llamaFile(requantized(tensors, type)));
  const twinFloat = await loaded(llamaFile(requantized(tensors, type)), { dtype: 'float32' });
  const fileFloat = await loaded(llamaFile(tensors), { dtype: 'float32' });
  try {
    assert.equal(file.matrixDtype, matrixDtype);
    assert.deepEqual(file.quantizedAtLoad, quantizedAtLoad);
    assert.equal(twin.matrixDtype, matrixDtype);
    assert.deepEqual(twin.quantizedAtLoad, {}, "the twin's matrices are all kept");
    assert.equal(file.parameterBytes, twin.parameterBytes);
    assert.deepEqual(file.decode, twin.decode, 'decode: the blocks are the reference re-quantization');
    assert.deepEqual(file.prefill, twin.prefill, 'prefill');
    // The re-quantization moved the logits: the blocks are not the file's values widened.
    const drift = maxDiff(file.prefill, fileFloat.prefill);
    assert.ok(drift > 1e-4, `the re-quantized model drifts ${drift} from the file's float values`);
    // The float model of the twin's dequantized weights differs only by the activations' int8
    // codes (1.2-2.4% of the largest logit on these random one-layer models).
    const codeDrift = maxDiff(file.prefill, twinFloat.prefill);
    const scale = Math.max(...twinFloat.prefill.map(Math.abs));
    assert.ok(codeDrift > 0 && codeDrift < 0.04 * scale, `activation codes move the logits ${codeDrift} of ${scale}`);
    return { file, twin, fileFloat };
  } finally {
    for (const m of [file, twin, twinFloat, fileFloat]) m.model.dispose();
  }
}

// Loads a file whose matrices are all in blocks the runner keeps (Q8_0, Q4_0, Q4_K, Q6_K) with
// 'auto', and checks that nothing was re-quantized: every matrix in its own storage, the logits
// within the activation codes' drift of the float model of the file's values, and closer to it
// than the file re-quantized into one storage (what 'auto' did before K-quant kernels).
async function checkKept(tensors, { matrixDtype, matrixStorages, oneStorage }) {
  const file = await loaded(llamaFile(tensors));
  const fileFloat = await loaded(llamaFile(tensors), { dtype: 'float32' });
  const requantized = await loaded(llamaFile(tensors), { dtype: oneStorage });
  try {
    assert.equal(file.matrixDtype, matrixDtype);
    assert.deepEqual({ ...file.model.matrixStorages }, matrixStorages);
    assert.deepEqual(file.quantizedAtLoad, {}, 'every matrix kept as its blocks');
    assert.ok(
      file.parameterBytes * 3 < fileFloat.parameterBytes,
      `${file.parameterBytes} vs ${fileFloat.parameterBytes}`,
    );
    const scale = Math.max(...fileFloat.prefill.map(Math.abs));
    const codeDrift = maxDiff(file.prefill, fileFloat.prefill);
    assert.ok(codeDrift > 0 && codeDrift < 0.04 * scale, `activation codes move the logits ${codeDrift} of ${scale}`);
    const decodeDrift = maxDiff(file.decode, fileFloat.decode);
    assert.ok(decodeDrift < 0.04 * scale, `decode: ${decodeDrift} of ${scale}`);
    const rms = (a, b) => Math.sqrt(a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0) / a.length);
    const kept = rms(file.prefill, fileFloat.prefill),
      again = rms(requantized.prefill, fileFloat.prefill);
    assert.ok(kept < again, `kept blocks drift ${kept} (RMS), re-quantized ones ${again}`);
    return { kept, again, scale };
  } finally {
    for (const m of [file, fileFloat, requantized]) m.model.dispose();
  }
}

test('a Q4_0 file with a Q6_K output matrix loads as q4 with its Q6_K output kept, nothing re-quantized', async () => {
  const tensors = llamaTensors(1, (name) => (name === 'output.weight' ? Q6_K : Q4_0));
  await checkKept(tensors, { matrixDtype: 'q4', matrixStorages: { q4_0: 8, q6_k: 1 }, oneStorage: 'q4' });
});

test('a Q4_K_M-like file (Q4_K, with Q6_K attn_v, ffn_down and output) keeps every K-quant block', async () => {
  const q6 = ['blk.0.attn_v.weight', 'blk.0.ffn_down.weight', 'output.weight'];
  const tensors = llamaTensors(2, (name) => (q6.includes(name) ? Q6_K : Q4_K));
  // Q4_K: the embeddings (blocks too with quantized matrices), q, k, attn_output, gate, up.
  await checkKept(tensors, { matrixDtype: 'q4_k', matrixStorages: { q4_k: 6, q6_k: 3 }, oneStorage: 'q4' });
});

test('a Q4_K_M-like file with dtype q4 is re-quantized into Q4_0, as asked', async () => {
  const q6 = ['blk.0.attn_v.weight', 'blk.0.ffn_down.weight', 'output.weight'];
  const tensors = llamaTensors(2, (name) => (q6.includes(name) ? Q6_K : Q4_K));
  await checkAgainstTwin(tensors, Q4_0, { matrixDtype: 'q4', quantizedAtLoad: { Q4_K: 6, Q6_K: 3 } }, { dtype: 'q4' });
});

test('a Q8_0 file with an F16 output matrix loads as q8: its Q8_0 blocks kept, the output quantized', async () => {
  const tensors = llamaTensors(3, (name) => (name === 'output.weight' ? F16 : Q8_0));
  await checkAgainstTwin(tensors, Q8_0, { matrixDtype: 'q8', quantizedAtLoad: { F16: 1 } });
});

test('a file whose matrix weights are mostly Q6_K keeps them, and its Q4_0 minority', async () => {
  // Q6_K: q, k, v, attn_output, gate, up, down; Q4_0: the embeddings and the output.
  const tensors = llamaTensors(4, (name) => (/^blk\./.test(name) ? Q6_K : Q4_0));
  await checkKept(tensors, { matrixDtype: 'q6_k', matrixStorages: { q6_k: 7, q4_0: 2 }, oneStorage: 'q8' });
});

test('a file whose matrix weights are mostly float loads as float32, as before: the same bits as dtype float32', async () => {
  // F16 layer matrices (7 of 256 × 256 or 128) outweigh the Q8_0 embeddings and output (64 × 256).
  const bytes = llamaFile(llamaTensors(5, (name) => (/^blk\./.test(name) ? F16 : Q8_0)));
  const auto = await loaded(bytes);
  const float = await loaded(bytes, { dtype: 'float32' });
  try {
    assert.equal(auto.matrixDtype, 'float32');
    assert.deepEqual(auto.quantizedAtLoad, {});
    assert.equal(auto.parameterBytes, float.parameterBytes);
    assert.deepEqual(auto.prefill, float.prefill);
    assert.deepEqual(auto.decode, float.decode);
  } finally {
    auto.model.dispose();
    float.model.dispose();
  }
});

test('the random blocks are not what re-quantizing them gives (so keeping them is observable)', () => {
  for (const [type, storage] of [
    [Q4_0, 'q4_0'],
    [Q8_0, 'q8_0'],
  ]) {
    const bytes = RANDOM[type](randomOf(9), 32 * 8);
    const values = dequantize(type, bytes, new Float32Array(32 * 8));
    for (let b = 0; b < 8; b++) {
      const again = quantizeBlock(values.subarray(32 * b, 32 * b + 32), storage);
      const d = dequantize(
        type,
        bytes.subarray(b * GGML_TYPES[type].bytes, (b + 1) * GGML_TYPES[type].bytes),
        new Float32Array(32),
      );
      assert.notDeepEqual(
        Array.from({ length: 32 }, (_, j) => again.d * (storage === 'q8_0' ? again.codes[j] : again.codes[j] - 8)),
        Array.from(d),
        `${storage} block ${b}`,
      );
    }
  }
});

test("a GGUF file too large for the heap as float32 loads with 'auto' as its blocks (it was refused as float32 first)", async () => {
  // token_embd and output of 270,000 × 1024 weights each, and one layer of 1024-wide
  // matrices: 2.24 GB as float32, past what the runner's weights may take (2 GiB); 315 MB of
  // Q4_0 blocks. (A 1B model's file was refused the same way: 5.6 GiB as float32.)
  const d = 1024,
    vocab = 270000;
  const rand = randomOf(11);
  const q4 = (count) => {
    const out = new Uint8Array((count / 32) * 18);
    const words = new Uint32Array(out.buffer, 0, out.length >>> 2);
    for (let i = 0; i < words.length; i++) words[i] = (rand() * 2 ** 32) >>> 0;
    for (let at = 0; at < out.length; at += 18) setHalf(out, at, 0.01);
    return out;
  };
  const matrix = (name, inner, rows) => ({ name, type: Q4_0, dims: [inner, rows], bytes: q4(inner * rows) });
  const norm = (name) => ({ name, type: F32, dims: [d], bytes: new Uint8Array(new Float32Array(d).fill(1).buffer) });
  const u32 = (key, value) => ({ key: `llama.${key}`, type: 4, value });
  const bytes = ggufBytes({
    metadata: [
      { key: 'general.architecture', type: 8, value: 'llama' },
      u32('context_length', 64),
      u32('embedding_length', d),
      u32('feed_forward_length', d),
      u32('block_count', 1),
      u32('attention.head_count', 16),
      u32('attention.head_count_kv', 16),
      { key: 'llama.attention.layer_norm_rms_epsilon', type: 6, value: 1e-5 },
      { key: 'llama.rope.freq_base', type: 6, value: 10000 },
      u32('rope.dimension_count', 64),
    ],
    tensors: [
      matrix('token_embd.weight', d, vocab),
      ...['attn_q', 'attn_k', 'attn_v', 'attn_output', 'ffn_gate', 'ffn_up', 'ffn_down'].map((m) =>
        matrix(`blk.0.${m}.weight`, d, d),
      ),
      norm('blk.0.attn_norm.weight'),
      norm('blk.0.ffn_norm.weight'),
      norm('output_norm.weight'),
      matrix('output.weight', d, vocab),
    ],
  });
  // As float32 the limit named is the runner's, not the heap's (which would hold it).
  await assert.rejects(attn.loadModel(bytes, { dtype: 'float32' }), {
    name: 'RangeError',
    message:
      /^loadModel: the llama weights need 2\.1 GiB of wasm memory as float32; one model's weights may take at most 2 GiB$/,
  });
  const model = await attn.loadModel(bytes);
  try {
    assert.equal(model.matrixDtype, 'q4');
    assert.deepEqual({ ...model.matrixStorages }, { q4_0: 9 }); // embeddings, 7 matrices, LM head
    // 5 bits a weight (the scales as float32), and the norms.
    const weights = 2 * vocab * d + 7 * d * d;
    assert.ok(Math.abs(model.parameterBytes - (weights * 5) / 8) < 2 ** 16, `${model.parameterBytes}`);
    const { logits } = model.forward([[3, vocab - 1]]);
    assert.equal(logits.data.length, 2 * vocab);
    assert.ok(logits.data.every(Number.isFinite));
  } finally {
    model.dispose();
  }
});
