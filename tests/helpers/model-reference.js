// A float64 TinyTransformer written from its definition (bindings/js/index.d.ts,
// src/train/tiny_transformer.h), reading the weights of getWeights(): the reference the
// model's forward pass and, through central finite differences, its gradients are checked
// against. Rows are plain arrays; x: [T][d].
import { erf } from './reference-layers.js';

// y = x·W + b.   x: [n][in]  W: { shape: [in, out], data }  b: [out]
function linear(x, w, b) {
  const [inDim, out] = w.shape;
  return x.map((row) =>
    Array.from({ length: out }, (_, j) => {
      let s = b ? b.data[j] : 0;
      for (let i = 0; i < inDim; i++) s += row[i] * w.data[i * out + j];
      return s;
    }),
  );
}

// (x − mean)/√(var + 1e-5)·γ + β per row (biased variance).
function layerNorm(x, gamma, beta) {
  return x.map((row) => {
    const mean = row.reduce((a, b) => a + b, 0) / row.length;
    const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / row.length;
    return row.map((v, c) => ((v - mean) / Math.sqrt(variance + 1e-5)) * gamma.data[c] + beta.data[c]);
  });
}

const add = (a, b) => a.map((row, i) => row.map((v, c) => v + b[i][c]));
const gelu = (v) => 0.5 * v * (1 + erf(v / Math.SQRT2));

// Multi-head self-attention with the key limit and causal rule; returns [output, P per head].
function selfAttention(u, w, prefix, heads, limit, causal) {
  const q = linear(u, w[`${prefix}wq`], w[`${prefix}bq`]);
  const k = linear(u, w[`${prefix}wk`], w[`${prefix}bk`]);
  const v = linear(u, w[`${prefix}wv`], w[`${prefix}bv`]);
  const T = u.length,
    d = u[0].length,
    hd = d / heads;
  const concat = u.map(() => new Array(d).fill(0));
  const weights = [];
  for (let h = 0; h < heads; h++) {
    const P = [];
    for (let i = 0; i < T; i++) {
      const seen = (j) => j < limit && (!causal || j <= i);
      const s = Array.from({ length: T }, (_, j) => {
        if (!seen(j)) return -Infinity;
        let dot = 0;
        for (let c = 0; c < hd; c++) dot += q[i][h * hd + c] * k[j][h * hd + c];
        return dot / Math.sqrt(hd);
      });
      const max = Math.max(...s);
      const e = s.map((x) => (x === -Infinity ? 0 : Math.exp(x - max)));
      const sum = e.reduce((a, b) => a + b, 0);
      const p = e.map((x) => x / sum);
      P.push(p);
      for (let c = 0; c < hd; c++) concat[i][h * hd + c] = p.reduce((acc, pj, j) => acc + pj * v[j][h * hd + c], 0);
    }
    weights.push(P);
  }
  return [linear(concat, w[`${prefix}wo`], w[`${prefix}bo`]), weights];
}

function feedForward(u, w, prefix, activation) {
  const hidden = linear(u, w[`${prefix}w1`], w[`${prefix}b1`]).map((row) =>
    row.map((v) => (activation === 'relu' ? Math.max(0, v) : gelu(v))),
  );
  return linear(hidden, w[`${prefix}w2`], w[`${prefix}b2`]);
}

function sinusoid(t, c, d) {
  const angle = t / 10000 ** ((c - (c % 2)) / d);
  return c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
}

/**
 * The model on a batch: { logits: [B][L][C] or [B][C], attention: [layer][B][head][T][T],
 * loss, count, accuracy }. `weights` is getWeights() output (numbers may be float64).
 */
export function referenceModel(weights, { tokens, lengths, targets }) {
  const c = weights.config,
    w = weights.tensors;
  const classify = c.head === 'classify',
    shift = classify ? 1 : 0;
  const d = c.dModel;
  const logits = [],
    attention = Array.from({ length: c.numLayers }, () => []);
  let lossSum = 0,
    count = 0,
    correct = 0;
  tokens.forEach((seq, b) => {
    const L = seq.length,
      T = L + shift;
    const limit = (lengths ? lengths[b] : L) + shift;
    // Embeddings: token (or [CLS]) + position.
    let x = Array.from({ length: T }, (_, t) =>
      Array.from({ length: d }, (_, col) => {
        const e = t < shift ? w.cls.data[col] : w.tokenEmbedding.data[seq[t - shift] * d + col];
        const p = c.positional === 'learned' ? w.positionEmbedding.data[t * d + col] : sinusoid(t, col, d);
        return e + p;
      }),
    );
    for (let l = 0; l < c.numLayers; l++) {
      const p = `layers.${l}.`;
      const ln = (u, n) => layerNorm(u, w[`${p}${n}.gamma`], w[`${p}${n}.beta`]);
      if (c.norm === 'pre') {
        const [a, P] = selfAttention(ln(x, 'ln1'), w, `${p}attn.`, c.numHeads, limit, c.causal);
        const h = add(x, a);
        x = add(h, feedForward(ln(h, 'ln2'), w, `${p}ffn.`, c.activation));
        attention[l].push(P);
      } else {
        const [a, P] = selfAttention(x, w, `${p}attn.`, c.numHeads, limit, c.causal);
        const h = ln(add(x, a), 'ln1');
        x = ln(add(h, feedForward(h, w, `${p}ffn.`, c.activation)), 'ln2');
        attention[l].push(P);
      }
    }
    if (c.norm === 'pre') x = layerNorm(x, w['finalNorm.gamma'], w['finalNorm.beta']);
    const out = linear(classify ? [x[0]] : x, w['head.w'], w['head.b']);
    logits.push(classify ? out[0] : out);
    // Softmax cross-entropy over the counted positions.
    out.forEach((z, r) => {
      const target = classify ? targets[b] : targets[b][r];
      if (target < 0 || (!classify && r >= limit)) return;
      const max = Math.max(...z);
      lossSum += max + Math.log(z.reduce((a, v) => a + Math.exp(v - max), 0)) - z[target];
      count++;
      if (z.indexOf(max) === target) correct++;
    });
  });
  return { logits, attention, loss: count ? lossSum / count : 0, count, accuracy: count ? correct / count : 0 };
}
