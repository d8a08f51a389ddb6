// A Llama-layout model of bench/real-shape-models.js as the Q4_K_M GGUF file llama.cpp's
// llama-quantize writes (the file most people download): every matrix Q4_K but the output
// (Q6_K; the token embeddings when they are tied to it) and the attn_v and ffn_down of the
// layers llama.cpp's use_more_bits picks (the first and last eighth, and every third between:
// Q6_K); norms and Llama 3's rope_freqs F32 (first, as convert_hf_to_gguf.py writes it). The blocks are seeded random bytes with small
// positive float16 scales. Streamed to disk, so a 1B model's 0.8 GB is never one array.
import { closeSync, openSync, writeSync } from 'node:fs';
import { llama3Factors } from '../bindings/js/models/gguf_model.js';

const [F32, Q4_K, Q6_K] = [0, 12, 14];
const BLOCK = { [Q4_K]: 144, [Q6_K]: 210 }; // bytes of 256 weights
const ALIGN = 32;

// llama.cpp's use_more_bits(i_layer, n_layers): the layers Q4_K_M gives Q6_K attn_v and ffn_down.
const moreBits = (i, n) => i < n / 8 || i >= (7 * n) / 8 || (i - Math.floor(n / 8)) % 3 === 2;

// The tensors: { name, type, dims (GGUF's order: [inner, rows]), fill(bytes) }.
function tensorsOf(c) {
  const d = c.hidden_size,
    hd = c.head_dim ?? d / c.num_attention_heads,
    q = c.num_attention_heads * hd,
    kv = c.num_key_value_heads * hd,
    f = c.intermediate_size,
    n = c.num_hidden_layers;
  const t = [];
  const matrix = (name, type, inner, rows) => t.push({ name, type, dims: [inner, rows] });
  const norm = (name) => t.push({ name, type: F32, dims: [d], values: () => new Float32Array(d).fill(1) });
  matrix('token_embd.weight', c.tie_word_embeddings ? Q6_K : Q4_K, d, c.vocab_size);
  for (let l = 0; l < n; l++) {
    const more = moreBits(l, n) ? Q6_K : Q4_K;
    matrix(`blk.${l}.attn_q.weight`, Q4_K, d, q);
    matrix(`blk.${l}.attn_k.weight`, Q4_K, d, kv);
    matrix(`blk.${l}.attn_v.weight`, more, d, kv);
    matrix(`blk.${l}.attn_output.weight`, Q4_K, q, d);
    matrix(`blk.${l}.ffn_gate.weight`, Q4_K, d, f);
    matrix(`blk.${l}.ffn_up.weight`, Q4_K, d, f);
    matrix(`blk.${l}.ffn_down.weight`, more, f, d);
    norm(`blk.${l}.attn_norm.weight`);
    norm(`blk.${l}.ffn_norm.weight`);
  }
  norm('output_norm.weight');
  if (!c.tie_word_embeddings) matrix('output.weight', Q6_K, d, c.vocab_size);
  // Llama 3's factors first, where convert_hf_to_gguf.py writes its extra tensors (a streamed
  // load reads them before the rest).
  if (c.rope_scaling?.rope_type === 'llama3') {
    const factors = llama3Factors(c.rope_scaling, c.rope_theta, hd);
    t.unshift({ name: 'rope_freqs.weight', type: F32, dims: [hd / 2], values: () => Float32Array.from(factors) });
  }
  for (const x of t) {
    const count = x.dims.reduce((a, b) => a * b, 1);
    if (x.type !== F32 && x.dims[0] % 256 !== 0)
      throw new Error(`${x.name}: rows of ${x.dims[0]} are not K-quant blocks`);
    x.bytes = x.type === F32 ? 4 * count : (count / 256) * BLOCK[x.type];
  }
  return t;
}

// GGUF v3 header pieces (little-endian).
const enc = new TextEncoder();
const u32 = (v) => new Uint8Array(new Uint32Array([v]).buffer);
const u64 = (v) => new Uint8Array(new BigUint64Array([BigInt(v)]).buffer);
const f32 = (v) => new Uint8Array(new Float32Array([v]).buffer);
const str = (s) => [u64(enc.encode(s).length), enc.encode(s)];

function header(c, tensors) {
  const hd = c.head_dim ?? c.hidden_size / c.num_attention_heads;
  const kv = [
    ['general.architecture', 8, 'llama'],
    ['general.file_type', 4, 15], // LLAMA_FTYPE_MOSTLY_Q4_K_M
    ['llama.context_length', 4, c.max_position_embeddings],
    ['llama.embedding_length', 4, c.hidden_size],
    ['llama.feed_forward_length', 4, c.intermediate_size],
    ['llama.block_count', 4, c.num_hidden_layers],
    ['llama.attention.head_count', 4, c.num_attention_heads],
    ['llama.attention.head_count_kv', 4, c.num_key_value_heads],
    ['llama.attention.key_length', 4, hd],
    ['llama.attention.value_length', 4, hd],
    ['llama.attention.layer_norm_rms_epsilon', 6, c.rms_norm_eps],
    ['llama.rope.freq_base', 6, c.rope_theta],
    ['llama.rope.dimension_count', 4, hd],
    ['llama.vocab_size', 4, c.vocab_size],
  ];
  const parts = [enc.encode('GGUF'), u32(3), u64(tensors.length), u64(kv.length)];
  for (const [key, type, value] of kv)
    parts.push(...str(key), u32(type), ...(type === 8 ? str(value) : [type === 6 ? f32(value) : u32(value)]));
  let offset = 0;
  for (const t of tensors) {
    parts.push(...str(t.name), u32(t.dims.length), ...t.dims.map(u64), u32(t.type), u64(offset));
    t.offset = offset;
    offset += Math.ceil(t.bytes / ALIGN) * ALIGN;
  }
  const length = parts.reduce((s, p) => s + p.length, 0);
  parts.push(new Uint8Array((ALIGN - (length % ALIGN)) % ALIGN));
  return parts;
}

// Seeded random K-quant blocks: random bytes, then each block's float16 scales set to what a
// trained model's have (weights within about ±0.1): Q4_K's d 1.2e-4 to 2.4e-4 (times 6-bit
// scales and nibbles) and dmin half that; Q6_K's d 1.5e-5 to 6e-5, a float16 subnormal (times
// int8 scales and codes of ±32).
function kBlocks(type, bytes, seed) {
  const out = new Uint8Array(bytes);
  const words = new Uint32Array(out.buffer, 0, Math.floor(bytes / 4));
  let s = seed >>> 0;
  for (let i = 0; i < words.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    words[i] = s;
  }
  const size = BLOCK[type];
  const setHalf = (at, bits) => {
    out[at] = bits & 0xff;
    out[at + 1] = bits >> 8;
  };
  for (let at = 0; at < bytes; at += size) {
    const mantissa = out[at + 100] | ((out[at + 101] & 3) << 8); // 10 random bits
    if (type === Q4_K) {
      setHalf(at, 0x0800 | mantissa); // 2^-13 · (1 + m / 1024)
      setHalf(at + 2, 0x0400 | mantissa); // 2^-14 · (1 + m / 1024)
    } else {
      setHalf(at + 208, 0x0100 + (mantissa % 0x300)); // subnormal: (256 .. 1023) · 2^-24
    }
  }
  return out;
}

/** Writes `path`; returns its bytes and the tensors' types by count ({ Q4_K: 113, Q6_K: 17, F32: 33 }). */
export function writeQ4KMGguf(path, config) {
  const tensors = tensorsOf(config);
  const fd = openSync(path, 'w');
  let written = 0;
  const write = (bytes) => {
    for (let at = 0; at < bytes.length; at += 2 ** 30) writeSync(fd, bytes.subarray(at, at + 2 ** 30));
    written += bytes.length;
  };
  try {
    for (const part of header(config, tensors)) write(part);
    tensors.forEach((t, i) => {
      write(t.type === F32 ? new Uint8Array(t.values().buffer) : kBlocks(t.type, t.bytes, 1000 + i));
      write(new Uint8Array((ALIGN - (t.bytes % ALIGN)) % ALIGN));
    });
  } finally {
    closeSync(fd);
  }
  const types = {};
  for (const t of tensors) {
    const name = { [F32]: 'F32', [Q4_K]: 'Q4_K', [Q6_K]: 'Q6_K' }[t.type];
    types[name] = (types[name] ?? 0) + 1;
  }
  return { bytes: written, types };
}
