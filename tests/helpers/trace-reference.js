// A float64 forward pass of a GPT-2 or a Llama checkpoint written from their definitions
// (GPT2LMHeadModel: learned positions, LayerNorm, tanh GELU, Conv1D weights [in, out], tied
// head; LlamaForCausalLM: RMSNorm, rotate_half RoPE, grouped-query heads, SiLU-gated MLP,
// nn.Linear weights [out, in]), keeping every stage of one position: the reference of
// forward's `trace` option (tests/model-trace.test.js). Rows are plain arrays; x: [T][d].
import { readFileSync } from 'node:fs';
import { readSafetensors } from './safetensors.js';

/** name → { shape, data: Float64Array } of a fixture folder's float32 weights. */
export function fixtureWeights(dir) {
  const weights = {};
  for (const [name, t] of Object.entries(readSafetensors(readFileSync(`${dir}/model.safetensors`)))) {
    const f32 = new Float32Array(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength / 4);
    weights[name.replace(/^transformer\./, '')] = { shape: t.shape, data: Float64Array.from(f32) };
  }
  return weights;
}

// y = x·W + b, W [in, out] (Conv1D), or x·Wᵀ + b with W [out, in] (nn.Linear: transposed).
function linear(x, w, b, transposed) {
  const [rows, cols] = w.shape;
  const [inDim, out] = transposed ? [cols, rows] : [rows, cols];
  return x.map((row) =>
    Array.from({ length: out }, (_, j) => {
      let s = b ? b.data[j] : 0;
      for (let i = 0; i < inDim; i++) s += row[i] * w.data[transposed ? j * inDim + i : i * out + j];
      return s;
    }),
  );
}

const layerNorm = (gamma, beta, eps) => (x) =>
  x.map((row) => {
    const mean = row.reduce((a, b) => a + b, 0) / row.length;
    const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / row.length;
    return row.map((v, c) => ((v - mean) / Math.sqrt(variance + eps)) * gamma.data[c] + beta.data[c]);
  });
const rmsNorm = (gamma, eps) => (x) =>
  x.map((row) => {
    const ms = row.reduce((a, b) => a + b * b, 0) / row.length;
    return row.map((v, c) => (v / Math.sqrt(ms + eps)) * gamma.data[c]);
  });
const geluNew = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
const silu = (x) => x / (1 + Math.exp(-x));
const add = (a, b) => a.map((row, i) => row.map((v, c) => v + b[i][c]));

// Llama's rotate_half RoPE of every head of every row (position t = row t).   x: [T][heads·hd]
function rope(x, heads, hd, base) {
  const half = hd / 2;
  return x.map((row, t) => {
    const out = row.slice();
    for (let h = 0; h < heads; h++)
      for (let i = 0; i < half; i++) {
        const angle = t * base ** ((-2 * i) / hd);
        const a = row[h * hd + i],
          b = row[h * hd + i + half];
        out[h * hd + i] = a * Math.cos(angle) - b * Math.sin(angle);
        out[h * hd + i + half] = b * Math.cos(angle) + a * Math.sin(angle);
      }
    return out;
  });
}

// One family's pieces: its norms, projections, MLP, embedding and head, from its names.
function familyOf(w, config) {
  if (config.model_type === 'gpt2') {
    const d = config.n_embd,
      eps = config.layer_norm_epsilon;
    const ln = (name) => layerNorm(w[`${name}.weight`], w[`${name}.bias`], eps);
    return {
      layers: config.n_layer,
      heads: config.n_head,
      kvHeads: config.n_head,
      hd: d / config.n_head,
      parts: (id, t) => [
        Array.from(w['wte.weight'].data.subarray(id * d, id * d + d)),
        Array.from(w['wpe.weight'].data.subarray(t * d, t * d + d)),
      ],
      embed: (ids) =>
        ids.map((id, t) =>
          Array.from({ length: d }, (_, c) => w['wte.weight'].data[id * d + c] + w['wpe.weight'].data[t * d + c]),
        ),
      norm1: (l) => ln(`h.${l}.ln_1`),
      norm2: (l) => ln(`h.${l}.ln_2`),
      qkv: (l, u) => {
        const all = linear(u, w[`h.${l}.attn.c_attn.weight`], w[`h.${l}.attn.c_attn.bias`], false);
        return [0, 1, 2].map((part) => all.map((row) => row.slice(part * d, (part + 1) * d)));
      },
      out: (l, c) => linear(c, w[`h.${l}.attn.c_proj.weight`], w[`h.${l}.attn.c_proj.bias`], false),
      mlp: (l, u) => {
        const pre = linear(u, w[`h.${l}.mlp.c_fc.weight`], w[`h.${l}.mlp.c_fc.bias`], false);
        const hidden = pre.map((row) => row.map(geluNew));
        return {
          pre,
          up: null,
          hidden,
          out: linear(hidden, w[`h.${l}.mlp.c_proj.weight`], w[`h.${l}.mlp.c_proj.bias`], false),
        };
      },
      final: ln('ln_f'),
      head: (x) => linear(x, w['wte.weight'], null, true),
    };
  }
  const d = config.hidden_size,
    eps = config.rms_norm_eps,
    hd = d / config.num_attention_heads;
  const p = (l) => `model.layers.${l}.`;
  const lin = (name) => (x) => linear(x, w[`${name}.weight`], null, true);
  return {
    layers: config.num_hidden_layers,
    heads: config.num_attention_heads,
    kvHeads: config.num_key_value_heads,
    hd,
    parts: (id) => [Array.from(w['model.embed_tokens.weight'].data.subarray(id * d, id * d + d)), null],
    embed: (ids) => ids.map((id) => Array.from(w['model.embed_tokens.weight'].data.subarray(id * d, id * d + d))),
    norm1: (l) => rmsNorm(w[`${p(l)}input_layernorm.weight`], eps),
    norm2: (l) => rmsNorm(w[`${p(l)}post_attention_layernorm.weight`], eps),
    qkv: (l, u) => {
      const [q, k, v] = ['q', 'k', 'v'].map((n) => lin(`${p(l)}self_attn.${n}_proj`)(u));
      return [
        rope(q, config.num_attention_heads, hd, config.rope_theta),
        rope(k, config.num_key_value_heads, hd, config.rope_theta),
        v,
      ];
    },
    out: (l, c) => lin(`${p(l)}self_attn.o_proj`)(c),
    mlp: (l, u) => {
      const pre = lin(`${p(l)}mlp.gate_proj`)(u);
      const up = lin(`${p(l)}mlp.up_proj`)(u);
      const hidden = pre.map((row, i) => row.map((g, c) => silu(g) * up[i][c]));
      return { pre, up, hidden, out: lin(`${p(l)}mlp.down_proj`)(hidden) };
    },
    final: rmsNorm(w['model.norm.weight'], eps),
    head: lin('lm_head'),
  };
}

// Causal attention of every row; position p's stages kept.   q: [T][H·hd]   k, v: [T][Hkv·hd]
function attention(f, q, k, v, p) {
  const { heads, kvHeads, hd } = f;
  const T = q.length,
    group = heads / kvHeads;
  const concat = q.map(() => new Array(heads * hd).fill(0));
  const kept = { scores: [], maskedScores: [], weights: [] };
  for (let h = 0; h < heads; h++) {
    const kh = Math.floor(h / group);
    for (let i = 0; i < T; i++) {
      const s = Array.from({ length: T }, (_, j) => {
        let dot = 0;
        for (let c = 0; c < hd; c++) dot += q[i][h * hd + c] * k[j][kh * hd + c];
        return dot / Math.sqrt(hd);
      });
      const masked = s.map((x, j) => (j <= i ? x : -Infinity));
      const max = Math.max(...masked);
      const e = masked.map((x) => Math.exp(x - max));
      const sum = e.reduce((a, b) => a + b, 0);
      const weights = e.map((x) => x / sum);
      for (let c = 0; c < hd; c++)
        concat[i][h * hd + c] = weights.reduce((acc, wj, j) => acc + wj * v[j][kh * hd + c], 0);
      if (i === p) (kept.scores.push(s), kept.maskedScores.push(masked), kept.weights.push(weights));
    }
  }
  return { concat, kept };
}

/**
 * Every stage of position p of `ids` through the checkpoint in `dir` (float64), in the
 * shape of forward's trace with plain nested arrays: { embedding, tokenEmbedding,
 * positionEmbedding (null with RoPE), layers: [{ norm1, query
 * [H][hd], keys [Hkv][T][hd], values, scores [H][T], maskedScores, weights, heads [H][hd],
 * attentionOutput, attentionResidual, norm2, mlpPre, mlpUp, mlpHidden, mlpOutput, residual }],
 * final, logits }.
 */
export function traceReference(dir, ids, p) {
  const config = JSON.parse(readFileSync(`${dir}/config.json`, 'utf8'));
  const f = familyOf(fixtureWeights(dir), config);
  const byHead = (row, heads) => Array.from({ length: heads }, (_, h) => row.slice(h * f.hd, (h + 1) * f.hd));
  const perHead = (rows, heads) =>
    Array.from({ length: heads }, (_, h) => rows.map((r) => r.slice(h * f.hd, (h + 1) * f.hd)));
  let x = f.embed(ids);
  const [tokenEmbedding, positionEmbedding] = f.parts(ids[p], p);
  const trace = { embedding: x[p], tokenEmbedding, positionEmbedding, layers: [] };
  for (let l = 0; l < f.layers; l++) {
    const n1 = f.norm1(l)(x);
    const [q, k, v] = f.qkv(l, n1);
    const { concat, kept } = attention(f, q, k, v, p);
    const a = f.out(l, concat);
    x = add(x, a);
    const residualAfterAttention = x[p];
    const n2 = f.norm2(l)(x);
    const m = f.mlp(l, n2);
    x = add(x, m.out);
    trace.layers.push({
      norm1: n1[p],
      query: byHead(q[p], f.heads),
      keys: perHead(k, f.kvHeads),
      values: perHead(v, f.kvHeads),
      ...kept,
      heads: byHead(concat[p], f.heads),
      attentionOutput: a[p],
      attentionResidual: residualAfterAttention,
      norm2: n2[p],
      mlpPre: m.pre[p],
      mlpUp: m.up ? m.up[p] : null,
      mlpHidden: m.hidden[p],
      mlpOutput: m.out[p],
      residual: x[p],
    });
  }
  const final = f.final(x);
  trace.final = final[p];
  trace.logits = f.head([final[p]])[0];
  return trace;
}
