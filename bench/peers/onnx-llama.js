// A Llama-family model (SmolLM2, Qwen2.5 without biases) as an ONNX graph the way optimum
// exports it for transformers.js (onnx-community's model.onnx, and model_quantized.onnx through
// bench/peers/onnx-quantize.js): RMSNorm as Pow / ReduceMean / Add / Sqrt / Div / Mul (which
// onnxruntime fuses into SimplifiedLayerNormalization), RoPE on cos/sin tables gathered by
// position, grouped key/value heads repeated to the query heads (repeat_kv), an additive causal
// mask, SiLU-gated MLP, the tied embeddings as the LM head, and the logits of EVERY position (as
// the exported graph returns them, so as transformers.js's generate runs its prefill).
//   prefill: input_ids [1, T], position_ids [1, T] → logits [1, T, V], present keys/values
//            [1, kvH, T, hd] per layer (T free: one graph for every prompt length)
//   decode:  input_ids [1, 1], position_ids [1, 1], past keys/values [1, kvH, P, hd] per layer
//            → logits [1, 1, V], present keys/values [1, kvH, P + 1, hd]
// Weights (`w`) in nn.Linear's [out, in] layout, row-major, keyed by GGUF tensor name
// (token_embd.weight, blk.{i}.attn_q.weight, …) with q and k in GGUF's row order, as
// bench/wllama-model.js makes them.
import { Graph, INT64, valueInfo } from './onnx-models.js';
import { quantizeDynamic } from './onnx-quantize.js';

/** [out, in] row-major → [in, out] (the MatMul's B). */
function transposed(w, out, inner) {
  const t = new Float32Array(w.length);
  for (let o = 0; o < out; o++) for (let i = 0; i < inner; i++) t[i * out + o] = w[o * inner + i];
  return t;
}

// A GGUF q or k matrix → Hugging Face's row order: llama.cpp's converter interleaves each head's
// two halves (row h·hd + 2i + half holds HF's row h·hd + half·hd/2 + i) for its adjacent-pair
// rotation; the ONNX graph rotates HF's way (rotate_half), so it takes the rows back.
//   w: [heads · hd, inner] row-major
function unpermuted(w, heads, hd, inner) {
  const out = new Float32Array(w.length);
  for (let h = 0; h < heads; h++)
    for (let half = 0; half < 2; half++)
      for (let i = 0; i < hd / 2; i++) {
        const from = (h * hd + 2 * i + half) * inner,
          to = (h * hd + half * (hd / 2) + i) * inner;
        out.set(w.subarray(from, from + inner), to);
      }
  return out;
}

// HF's rotary tables [P, hd]: cos/sin of position · base^(−2i/hd), the half repeated (emb =
// cat(freqs, freqs)), computed in float64 and rounded once.
function ropeTables(P, hd, base) {
  const cos = new Float32Array(P * hd),
    sin = new Float32Array(P * hd);
  for (let p = 0; p < P; p++)
    for (let i = 0; i < hd / 2; i++) {
      const angle = p * Math.pow(base, (-2 * i) / hd);
      cos[p * hd + i] = cos[p * hd + i + hd / 2] = Math.cos(angle);
      sin[p * hd + i] = sin[p * hd + i + hd / 2] = Math.sin(angle);
    }
  return { cos, sin };
}

// x · rsqrt(mean(x²) + eps) · weight, over the last axis.
function rmsNorm(g, x, weight, name, d, eps) {
  const meanSquare = g.op('ReduceMean', [g.op('Pow', [x, g.init(`${name}.two`, [], Float32Array.of(2))])], {
    axes: [-1],
    keepdims: 1,
  });
  const rms = g.op('Sqrt', [g.op('Add', [meanSquare, g.init(`${name}.eps`, [], Float32Array.of(eps))])]);
  return g.op('Mul', [g.op('Div', [x, rms]), g.init(`${name}.w`, [d], weight)]);
}

// x·cos + rotate_half(x)·sin, rotate_half(x) = cat(−x[hd/2:], x[:hd/2]) on [1, heads, T, hd].
function rotate(g, x, cos, sin, hd) {
  const half = (from, to) =>
    g.op('Slice', [x, g.ints(`from${g.count}`, [from]), g.ints(`to${g.count}`, [to]), g.ints(`axis${g.count}`, [3])]);
  const rotated = g.op('Concat', [g.op('Neg', [half(hd / 2, hd)]), half(0, hd / 2)], { axis: 3 });
  return g.op('Add', [g.op('Mul', [x, cos]), g.op('Mul', [rotated, sin])]);
}

// [1, kvH, S, hd] → [1, H, S, hd], each key/value head repeated for its group (repeat_kv).
function repeatHeads(g, x, H, kvH, hd) {
  if (H === kvH) return x;
  const grown = g.op('Tile', [
    g.op('Unsqueeze', [x, g.ints(`ax${g.count}`, [2])]),
    g.ints(`rep${g.count}`, [1, 1, H / kvH, 1, 1]),
  ]);
  return g.op('Reshape', [grown, g.ints(`shape${g.count}`, [1, H, -1, hd])]);
}

// An additive causal mask [T, T] for the prompt's length: 0 on and below the diagonal, the
// float32 minimum above it (as HF builds it), made at run time from input_ids' shape.
function causalMask(g) {
  const T = g.op('Gather', [g.op('Shape', ['input_ids']), g.ints(`one${g.count}`, [1])]);
  const full = g.op('ConstantOfShape', [g.op('Concat', [T, T], { axis: 0 })]);
  g.nodes.at(-1).attribute.push({
    name: 'value',
    type: 4, // TENSOR
    t: { dims: [1], dataType: 1, rawData: new Uint8Array(Float32Array.of(-3.4028234663852886e38).buffer) },
  });
  return g.op('Trilu', [full, g.ints(`k${g.count}`, [1])], { upper: 1 });
}

/**
 * The graph's bytes.
 * @param {object} c the config.json keys: hidden_size, intermediate_size, num_hidden_layers,
 *   num_attention_heads, num_key_value_heads, vocab_size, max_position_embeddings, rope_theta,
 *   rms_norm_eps
 * @param {Record<string, Float32Array>} w the weights by GGUF name ([out, in] row-major)
 * @param {{ decode: boolean, q8?: boolean }} mode q8: quantize_dynamic's form (transformers.js's
 *   default model_quantized.onnx)
 */
export function llamaModel(c, w, { decode, q8 = false }) {
  const g = new Graph();
  const d = c.hidden_size,
    H = c.num_attention_heads,
    kvH = c.num_key_value_heads,
    L = c.num_hidden_layers,
    f = c.intermediate_size,
    V = c.vocab_size;
  const hd = d / H,
    kv = kvH * hd;
  const linear = (x, name, out, inner, heads = 0) => {
    const rows = heads ? unpermuted(w[name], heads, hd, inner) : w[name];
    return g.linear(x, transposed(rows, out, inner), null, name, inner, out);
  };
  const { cos, sin } = ropeTables(c.max_position_embeddings, hd, c.rope_theta);
  const table = (name, data) =>
    g.op('Unsqueeze', [
      g.op('Gather', [g.init(name, [c.max_position_embeddings, hd], data), 'position_ids']),
      g.ints(`${name}.axis`, [1]),
    ]); // [1, 1, T, hd]
  const cosT = table('rope.cos', cos),
    sinT = table('rope.sin', sin);
  const mask = decode ? null : causalMask(g);
  let x = g.op('Gather', [g.init('token_embd', [V, d], w['token_embd.weight']), 'input_ids']);
  const presents = [];
  for (let i = 0; i < L; i++) {
    const p = `blk.${i}.`;
    const n = rmsNorm(g, x, w[`${p}attn_norm.weight`], `${p}attn_norm`, d, c.rms_norm_eps);
    const q = rotate(g, g.heads(linear(n, `${p}attn_q.weight`, d, d, H), H, hd), cosT, sinT, hd);
    let k = rotate(g, g.heads(linear(n, `${p}attn_k.weight`, kv, d, kvH), kvH, hd), cosT, sinT, hd);
    let v = g.heads(linear(n, `${p}attn_v.weight`, kv, d), kvH, hd);
    if (decode) {
      k = g.op('Concat', [`past_key_${i}`, k], { axis: 2 });
      v = g.op('Concat', [`past_value_${i}`, v], { axis: 2 });
    }
    presents.push(k, v);
    let scores = g.op('Mul', [
      g.op('MatMul', [q, g.op('Transpose', [repeatHeads(g, k, H, kvH, hd)], { perm: [0, 1, 3, 2] })]),
      g.init(`scale${g.count}`, [], Float32Array.of(1 / Math.sqrt(hd))),
    ]);
    if (mask) scores = g.op('Add', [scores, mask]);
    const heads = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), repeatHeads(g, v, H, kvH, hd)]);
    x = g.op('Add', [x, linear(g.merge(heads, d), `${p}attn_output.weight`, d, d)]);
    const m = rmsNorm(g, x, w[`${p}ffn_norm.weight`], `${p}ffn_norm`, d, c.rms_norm_eps);
    const gate = linear(m, `${p}ffn_gate.weight`, f, d);
    const silu = g.op('Mul', [gate, g.op('Sigmoid', [gate])]);
    const up = linear(m, `${p}ffn_up.weight`, f, d);
    x = g.op('Add', [x, linear(g.op('Mul', [silu, up]), `${p}ffn_down.weight`, d, f)]);
  }
  x = rmsNorm(g, x, w['output_norm.weight'], 'output_norm', d, c.rms_norm_eps);
  const logits = g.op('MatMul', [x, g.init('lm_head', [d, V], transposed(w['token_embd.weight'], V, d))]);
  const rename = (from, to) => {
    for (const node of g.nodes) {
      node.output = node.output.map((o) => (o === from ? to : o));
      node.input = node.input.map((o) => (o === from ? to : o));
    }
  };
  rename(logits, 'logits');
  const T = decode ? 1 : 'T';
  const outputs = [valueInfo('logits', [1, T, V])];
  presents.forEach((name, j) => {
    const to = `present_${j % 2 ? 'value' : 'key'}_${j >> 1}`;
    rename(name, to);
    outputs.push(valueInfo(to, [1, kvH, decode ? 'total' : T, hd]));
  });
  if (q8) ({ nodes: g.nodes, inits: g.inits } = quantizeDynamic(g.nodes, g.inits));
  const inputs = [valueInfo('input_ids', [1, T], INT64), valueInfo('position_ids', [1, T], INT64)];
  if (decode)
    for (let i = 0; i < L; i++)
      inputs.push(valueInfo(`past_key_${i}`, [1, kvH, 'past', hd]), valueInfo(`past_value_${i}`, [1, kvH, 'past', hd]));
  return g.model(inputs, outputs);
}
