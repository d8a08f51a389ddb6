// The model of the wllama comparison (issue 34, bench/browser-wllama.js): a SmolLM2-135M-shaped
// Llama as one GGUF file per storage, the file both engines load. Seeded random float32 source
// weights (the same for every storage), every matrix and the tied word embeddings quantized
// with ggml's reference rounding into GGUF's Q8_0 or Q4_0 blocks (as `llama-quantize --pure`
// writes them: no tensor kept in another type), the norms in F32. The tokenizer is a made-up
// SentencePiece ('llama') vocabulary of the model's 49,152 entries, made so that a text is
// exactly the ids it spells (bench/wllama-cases.js): wllama takes its prompt as text.
import { filler } from './model-cases.js';
import { ggufBytes } from '../tests/helpers/gguf.js';
import { quantizeBlock, dequantized, ggufBytes as blockBytesOf } from '../tests/helpers/quantized-reference.js';
import { FIRST_PLAIN_ID, pieceOf } from './wllama-cases.js';

/** SmolLM2-135M's config.json (the keys the GGUF carries). */
export const SMOLLM2_135M = {
  hidden_size: 576,
  intermediate_size: 1536,
  num_hidden_layers: 30,
  num_attention_heads: 9,
  num_key_value_heads: 3,
  vocab_size: 49152,
  max_position_embeddings: 8192,
  rope_theta: 100000,
  rms_norm_eps: 1e-5,
};

/** A tiny Llama of the same kind (2 layers of 64): the shape of the harness checks. */
export const TINY_SHAPE = {
  hidden_size: 64,
  intermediate_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 512,
};

// GGUF's tensor type of each storage, and its block size in bytes.
const BLOCKS = {
  q8_0: { ggmlType: 8, blockBytes: 34 },
  q4_0: { ggmlType: 2, blockBytes: 18 },
};

// The vocabulary: <unk>, <s>, </s>, the 256 byte pieces, then one character per id
// (wllama-cases.js's pieceOf: a text of them tokenizes to exactly their ids).
const SPECIALS = ['<unk>', '<s>', '</s>'];
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 };

function vocabulary(size) {
  const tokens = [],
    types = [];
  SPECIALS.forEach((t, i) => {
    tokens.push(t);
    types.push(i === 0 ? TOKEN_TYPE.unknown : TOKEN_TYPE.control);
  });
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TOKEN_TYPE.byte);
  }
  if (tokens.length !== FIRST_PLAIN_ID) throw new Error('wllama-model: the first plain id moved');
  for (let i = tokens.length; i < size; i++) {
    tokens.push(pieceOf(i));
    types.push(TOKEN_TYPE.normal);
  }
  return { tokens, types };
}

// An int32 array value (GGUF type 5), items as raw little-endian bytes (the writer's escape).
const int32Items = (values) =>
  values.map((v) => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, v, true);
    return b;
  });

function metadata(c) {
  const u32 = (key, value) => ({ key: `llama.${key}`, type: 4, value });
  const f32 = (key, value) => ({ key: `llama.${key}`, type: 6, value });
  const hd = c.hidden_size / c.num_attention_heads;
  const { tokens, types } = vocabulary(c.vocab_size);
  return [
    { key: 'general.architecture', type: 8, value: 'llama' },
    { key: 'general.name', type: 8, value: 'SmolLM2-135M-shaped random weights (attention-wasm bench)' },
    u32('context_length', c.max_position_embeddings),
    u32('embedding_length', c.hidden_size),
    u32('feed_forward_length', c.intermediate_size),
    u32('block_count', c.num_hidden_layers),
    u32('attention.head_count', c.num_attention_heads),
    u32('attention.head_count_kv', c.num_key_value_heads),
    u32('attention.key_length', hd),
    u32('attention.value_length', hd),
    f32('attention.layer_norm_rms_epsilon', c.rms_norm_eps),
    f32('rope.freq_base', c.rope_theta),
    u32('rope.dimension_count', hd),
    u32('vocab_size', c.vocab_size),
    { key: 'tokenizer.ggml.model', type: 8, value: 'llama' },
    { key: 'tokenizer.ggml.tokens', type: 9, value: { type: 8, items: tokens } },
    { key: 'tokenizer.ggml.scores', type: 9, value: { type: 6, items: tokens.map((_, i) => -i) } },
    { key: 'tokenizer.ggml.token_type', type: 9, value: { type: 5, items: int32Items(types) } },
    { key: 'tokenizer.ggml.unknown_token_id', type: 4, value: 0 },
    { key: 'tokenizer.ggml.bos_token_id', type: 4, value: 1 },
    { key: 'tokenizer.ggml.eos_token_id', type: 4, value: 2 },
    // Neither engine adds anything to a text: no <s>, no "▁" before it.
    { key: 'tokenizer.ggml.add_bos_token', type: 7, value: new Uint8Array([0]) },
    { key: 'tokenizer.ggml.add_space_prefix', type: 7, value: new Uint8Array([0]) },
  ];
}

// A matrix of `rows` GGUF rows of `inner` weights (ne0 = inner, ne1 = rows) → its blocks'
// bytes (and its weights as they hold them, d·q, [rows, inner]): per row, per 32 weights, the float16 scale then the codes (Q4_0: byte j holds
// element j in its low nibble and element j + 16 in its high one).
function blockBytes(w, rows, inner, storage) {
  const perRow = inner / 32;
  const blocks = Array.from({ length: rows }, (_, r) =>
    Array.from({ length: perRow }, (_, b) =>
      quantizeBlock(w.subarray((r * perRow + b) * 32, (r * perRow + b + 1) * 32), storage),
    ),
  );
  const values = new Float32Array(rows * inner);
  blocks.forEach((row, r) =>
    row.forEach((block, b) => {
      for (let j = 0; j < 32; j++) values[(r * perRow + b) * 32 + j] = dequantized(block, j, storage);
    }),
  );
  return { bytes: blockBytesOf(blocks, storage), values };
}

// The model's tensors in GGUF order, each made once from its seed: { name, dims (GGUF's: [in,
// out]), type, bytes } with, for a quantized matrix, `values`: its weights as the blocks hold
// them (d·q, [out, in] row-major). Weights: std 0.02 (seeded per tensor, so every storage
// quantizes the same values), norms 1.
function smolLmTensors(storage, c, onTensor) {
  if (!BLOCKS[storage]) throw new RangeError(`smolLmGguf: storage must be one of ${Object.keys(BLOCKS)}`);
  const d = c.hidden_size,
    hd = d / c.num_attention_heads,
    kv = c.num_key_value_heads * hd,
    f = c.intermediate_size;
  const tensors = [];
  let seed = 1;
  // [out, in] in nn.Linear's terms is GGUF's dims [in, out].
  const matrix = (name, out, inner) => {
    onTensor(name);
    const w = filler(seed++)(out * inner);
    const { bytes, values } = blockBytes(w, out, inner, storage);
    tensors.push({ name, type: BLOCKS[storage].ggmlType, dims: [inner, out], bytes, values });
  };
  const norm = (name) => {
    seed++;
    const values = new Float32Array(d).fill(1);
    tensors.push({ name, type: 0, dims: [d], bytes: new Uint8Array(values.buffer), values });
  };
  matrix('token_embd.weight', c.vocab_size, d);
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const p = `blk.${l}.`;
    norm(`${p}attn_norm.weight`);
    matrix(`${p}attn_q.weight`, d, d);
    matrix(`${p}attn_k.weight`, kv, d);
    matrix(`${p}attn_v.weight`, kv, d);
    matrix(`${p}attn_output.weight`, d, d);
    norm(`${p}ffn_norm.weight`);
    matrix(`${p}ffn_gate.weight`, f, d);
    matrix(`${p}ffn_up.weight`, f, d);
    matrix(`${p}ffn_down.weight`, d, f);
  }
  norm('output_norm.weight');
  return tensors;
}

/** The model's GGUF bytes in `storage` ('q8_0' | 'q4_0'); `onTensor(name)` reports progress. */
export function smolLmGguf(storage, { config = SMOLLM2_135M, onTensor = () => {} } = {}) {
  const tensors = smolLmTensors(storage, config, onTensor).map(({ values, ...t }) => t);
  return ggufBytes({ metadata: metadata(config), tensors });
}

/**
 * The same model's weights as float32, exactly as the GGUF's blocks hold them (d·q), by GGUF
 * name, [out, in] row-major: what the float ONNX graphs of bench/peers/onnx-llama.js are
 * built from, so that every engine runs the same numbers.
 */
export function smolLmWeights(storage, { config = SMOLLM2_135M, onTensor = () => {} } = {}) {
  return Object.fromEntries(smolLmTensors(storage, config, onTensor).map((t) => [t.name, t.values]));
}

/**
 * The weight bytes a decoded token reads in `storage`: every layer's matrices and the tied
 * LM head (the word embeddings, read whole once per token), as blocks of 32 weights; the
 * norms' floats are left out (under 0.1% of them).
 */
export function decodeWeightBytes(storage, c = SMOLLM2_135M) {
  if (!BLOCKS[storage]) throw new RangeError(`decodeWeightBytes: storage must be one of ${Object.keys(BLOCKS)}`);
  const d = c.hidden_size,
    kv = c.num_key_value_heads * (d / c.num_attention_heads),
    f = c.intermediate_size;
  const weights = c.num_hidden_layers * (2 * d * d + 2 * kv * d + 3 * f * d) + c.vocab_size * d;
  return (weights / 32) * BLOCKS[storage].blockBytes;
}
