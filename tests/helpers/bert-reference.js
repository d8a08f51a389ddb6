// A float64 BertForSequenceClassification written from transformers' modeling_bert.py: the
// reference for text pairs (token types), which the fixtures' PyTorch references do not cover.
// It is checked against tiny-bert's PyTorch hidden states before it is trusted.
//   x = LN(E[id] + P[t] + TT[type]); per layer x = LN(x + Attn(x)); x = LN(x + W2·gelu(W1·x))
//   logits = classifier(tanh(pooler(x[0])))
// W: tensor name → { data, shape } (nn.Linear weights [out, in]); rows are plain arrays.
import { erf } from './reference-layers.js';

// y = W·x + b for one row (nn.Linear).
function dense(W, b, x) {
  const [out, inDim] = W.shape;
  return Array.from({ length: out }, (_, o) => {
    let s = b ? b.data[o] : 0;
    for (let i = 0; i < inDim; i++) s += W.data[o * inDim + i] * x[i];
    return s;
  });
}

function layerNorm(x, gamma, beta, eps) {
  const mean = x.reduce((a, b) => a + b, 0) / x.length;
  const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / x.length;
  return x.map((v, c) => ((v - mean) / Math.sqrt(variance + eps)) * gamma.data[c] + beta.data[c]);
}

const gelu = (v) => 0.5 * v * (1 + erf(v / Math.SQRT2));

/**
 * @param {Record<string, { data: ArrayLike<number>, shape: number[] }>} W 'bert.…' tensors and 'classifier.*'
 * @param {object} config config.json @param {number[]} ids @param {number[]} types
 * @returns {{ hidden: number[][], logits: number[] }} the last hidden state [T][d] and the logits
 */
export function bertClassify(W, config, ids, types) {
  const d = config.hidden_size,
    H = config.num_attention_heads,
    hd = d / H,
    eps = config.layer_norm_eps;
  const w = (name) => W[`bert.${name}`];
  const row = (t, i) => Array.from(t.data.slice(i * d, (i + 1) * d));
  let x = ids.map((id, t) => {
    const [e, p, tt] = [
      row(w('embeddings.word_embeddings.weight'), id),
      row(w('embeddings.position_embeddings.weight'), t),
      row(w('embeddings.token_type_embeddings.weight'), types[t]),
    ];
    return layerNorm(
      e.map((v, c) => v + p[c] + tt[c]),
      w('embeddings.LayerNorm.weight'),
      w('embeddings.LayerNorm.bias'),
      eps,
    );
  });
  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = (name) => w(`encoder.layer.${l}.${name}`);
    const q = x.map((v) => dense(p('attention.self.query.weight'), p('attention.self.query.bias'), v));
    const k = x.map((v) => dense(p('attention.self.key.weight'), p('attention.self.key.bias'), v));
    const v = x.map((u) => dense(p('attention.self.value.weight'), p('attention.self.value.bias'), u));
    const context = x.map(() => new Array(d).fill(0));
    for (let h = 0; h < H; h++)
      for (let i = 0; i < x.length; i++) {
        const s = x.map((_, j) => {
          let dot = 0;
          for (let c = 0; c < hd; c++) dot += q[i][h * hd + c] * k[j][h * hd + c];
          return dot / Math.sqrt(hd);
        });
        const top = Math.max(...s);
        const e = s.map((z) => Math.exp(z - top));
        const sum = e.reduce((a, b) => a + b, 0);
        for (let c = 0; c < hd; c++)
          context[i][h * hd + c] = e.reduce((acc, ej, j) => acc + (ej / sum) * v[j][h * hd + c], 0);
      }
    x = x.map((u, i) => {
      const a = dense(p('attention.output.dense.weight'), p('attention.output.dense.bias'), context[i]);
      return layerNorm(
        u.map((z, c) => z + a[c]),
        p('attention.output.LayerNorm.weight'),
        p('attention.output.LayerNorm.bias'),
        eps,
      );
    });
    x = x.map((u) => {
      const f = dense(
        p('output.dense.weight'),
        p('output.dense.bias'),
        dense(p('intermediate.dense.weight'), p('intermediate.dense.bias'), u).map(gelu),
      );
      return layerNorm(
        u.map((z, c) => z + f[c]),
        p('output.LayerNorm.weight'),
        p('output.LayerNorm.bias'),
        eps,
      );
    });
  }
  const pooled = dense(w('pooler.dense.weight'), w('pooler.dense.bias'), x[0]).map(Math.tanh);
  return { hidden: x, logits: dense(W['classifier.weight'], W['classifier.bias'], pooled) };
}
