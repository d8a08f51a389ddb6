// A float64 GPT-2 (GPT2LMHeadModel: learned positions, pre-norm blocks, tanh GELU, tied LM
// head) written from its definition, reading a safetensors file's float32 weights, with a hook
// that rounds every key and value as a key/value cache stores them: the reference of
// tests/kv-dtype.test.js. Rows are plain arrays; x: [T][d].
import { readSafetensors } from './safetensors.js';
import { roundHalfEven } from './quantized-reference.js';

// name → { shape, data: Float64Array } of every F32 tensor, without the 'transformer.' prefix.
export function gpt2Weights(bytes) {
  const weights = {};
  for (const [name, t] of Object.entries(readSafetensors(bytes))) {
    const f32 = new Float32Array(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength / 4);
    weights[name.replace(/^transformer\./, '')] = { shape: t.shape, data: Float64Array.from(f32) };
  }
  return weights;
}

// The bfloat16 nearest to v (8 significant bits, ties to even), by arithmetic; ±Infinity past
// the largest bfloat16 (its halfway point to 2^128 and beyond).
export function roundToBf16(v) {
  if (!Number.isFinite(v) || v === 0) return v;
  const a = Math.abs(v);
  const exponent = Math.max(-126, Math.floor(Math.log2(a)));
  const ulp = 2 ** (exponent - 7); // subnormals: 2^-133
  const r = roundHalfEven(a / ulp) * ulp;
  return Math.sign(v) * (r >= 2 ** 128 ? Infinity : r);
}

// y = x·W + b (Conv1D: W is [in, out]).
function linear(x, w, b) {
  const [inDim, out] = w.shape;
  return x.map((row) =>
    Array.from({ length: out }, (_, j) => {
      let s = b.data[j];
      for (let i = 0; i < inDim; i++) s += row[i] * w.data[i * out + j];
      return s;
    }),
  );
}

function layerNorm(x, gamma, beta, eps) {
  return x.map((row) => {
    const mean = row.reduce((a, b) => a + b, 0) / row.length;
    const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / row.length;
    return row.map((v, c) => ((v - mean) / Math.sqrt(variance + eps)) * gamma.data[c] + beta.data[c]);
  });
}

const geluNew = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));

// Causal multi-head attention of one block; keys and values pass through roundKv first, each
// query row through readQuery.
function attention(u, w, prefix, heads, roundKv, readQuery) {
  const qkv = linear(u, w[`${prefix}c_attn.weight`], w[`${prefix}c_attn.bias`]);
  const T = u.length,
    d = u[0].length,
    hd = d / heads;
  const q = qkv.map((row) => readQuery(row.slice(0, d)));
  const k = qkv.map((row) => row.slice(d, 2 * d).map(roundKv));
  const v = qkv.map((row) => row.slice(2 * d).map(roundKv));
  const concat = u.map(() => new Array(d).fill(0));
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < T; i++) {
      const s = [];
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let c = 0; c < hd; c++) dot += q[i][h * hd + c] * k[j][h * hd + c];
        s.push(dot / Math.sqrt(hd));
      }
      const max = Math.max(...s);
      const e = s.map((x) => Math.exp(x - max));
      const sum = e.reduce((a, b) => a + b, 0);
      for (let c = 0; c < hd; c++)
        concat[i][h * hd + c] = e.reduce((acc, ej, j) => acc + (ej / sum) * v[j][h * hd + c], 0);
    }
  }
  return linear(concat, w[`${prefix}c_proj.weight`], w[`${prefix}c_proj.bias`]);
}

const add = (a, b) => a.map((row, i) => row.map((x, c) => x + b[i][c]));

/**
 * Logits [T][V] of every position of `ids` (causal: position t's are the logits after ids
 * 0..t). roundKv: each key and value element → its stored value (default: kept); readQuery:
 * each query row (all heads) → the row the keys are scored against (default: kept).
 */
export function gpt2Logits(w, config, ids, roundKv = (x) => x, readQuery = (row) => row) {
  const d = config.n_embd,
    eps = config.layer_norm_epsilon;
  const wte = w['wte.weight'].data,
    wpe = w['wpe.weight'].data;
  let x = ids.map((id, t) => Array.from({ length: d }, (_, c) => wte[id * d + c] + wpe[t * d + c]));
  for (let l = 0; l < config.n_layer; l++) {
    const p = `h.${l}.`;
    const a = attention(
      layerNorm(x, w[`${p}ln_1.weight`], w[`${p}ln_1.bias`], eps),
      w,
      `${p}attn.`,
      config.n_head,
      roundKv,
      readQuery,
    );
    x = add(x, a);
    const n2 = layerNorm(x, w[`${p}ln_2.weight`], w[`${p}ln_2.bias`], eps);
    const up = linear(n2, w[`${p}mlp.c_fc.weight`], w[`${p}mlp.c_fc.bias`]).map((row) => row.map(geluNew));
    x = add(x, linear(up, w[`${p}mlp.c_proj.weight`], w[`${p}mlp.c_proj.bias`]));
  }
  const final = layerNorm(x, w['ln_f.weight'], w['ln_f.bias'], eps);
  const V = config.vocab_size;
  return final.map((row) =>
    Array.from({ length: V }, (_, id) => {
      let s = 0;
      for (let c = 0; c < d; c++) s += row[c] * wte[id * d + c];
      return s;
    }),
  );
}
