// Float64 references for the layers around attention, written from the formulas.
import { referenceAttention } from './reference.js';

/** a [..., m, k] · b [k, n] (+ bias [n]) in float64. */
export function refMatmul(a, b, bias) {
  const [k, n] = b.shape;
  const m = a.data.length / k;
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = bias ? bias.data[j] : 0;
      for (let p = 0; p < k; p++) s += a.data[i * k + p] * b.data[p * n + j];
      out[i * n + j] = s;
    }
  return { data: out, shape: [...a.shape.slice(0, -1), n] };
}

// Columns [c0, c0 + w) of a [rows, cols] matrix (flattened leading dims), as [rows, w].
function columns(t, c0, w) {
  const cols = t.shape.at(-1);
  const rows = t.data.length / cols;
  const out = new Float64Array(rows * w);
  for (let r = 0; r < rows; r++) for (let c = 0; c < w; c++) out[r * w + c] = t.data[r * cols + c0 + c];
  return out;
}

/**
 * Multi-head attention by the definition: per head h, Attention(Q_h, K_g, V_g) with
 * Q_h = columns of query·W_Q, g = h / (numHeads / numKvHeads); concat; ·W_O.
 * query: [B, Lq, dModel] (batched only); options as MultiHeadAttention.forward.
 */
export function refMultiHead(query, key, value, w, numHeads, numKvHeads, options = {}) {
  const [B, Lq, dModel] = query.shape;
  const Lk = key.shape[1];
  const hd = dModel / numHeads;
  const group = numHeads / numKvHeads;
  const Q = refMatmul(query, w.wq, w.bq),
    K = refMatmul(key, w.wk, w.bk),
    V = refMatmul(value, w.wv, w.bv);
  const concat = new Float64Array(B * Lq * dModel);
  const weights = new Float64Array(B * numHeads * Lq * Lk);
  for (let b = 0; b < B; b++) {
    const slice = (t, L) => ({
      data: t.data.slice(b * L * t.shape.at(-1), (b + 1) * L * t.shape.at(-1)),
      shape: [L, t.shape.at(-1)],
    });
    const Qb = slice(Q, Lq),
      Kb = slice(K, Lk),
      Vb = slice(V, Lk);
    for (let h = 0; h < numHeads; h++) {
      const g = Math.floor(h / group);
      let mask;
      if (options.mask) mask = headMask(options.mask, b, h, B, numHeads, Lq, Lk);
      const r = referenceAttention(
        { data: columns(Qb, h * hd, hd), shape: [Lq, hd] },
        { data: columns(Kb, g * hd, hd), shape: [Lk, hd] },
        { data: columns(Vb, g * hd, hd), shape: [Lk, hd] },
        {
          mask,
          causal: options.causal,
          causalAlign: options.causalAlign,
          window: options.window,
          keyLengths: options.keyLengths ? [options.keyLengths[b]] : undefined,
        },
      );
      for (let i = 0; i < Lq; i++)
        for (let c = 0; c < hd; c++) concat[(b * Lq + i) * dModel + h * hd + c] = r.output.data[i * hd + c];
      weights.set(r.weights.data, (b * numHeads + h) * Lq * Lk);
    }
  }
  const out = refMatmul({ data: concat, shape: [B, Lq, dModel] }, w.wo, w.bo);
  return {
    output: out,
    weights: { data: weights, shape: [B, numHeads, Lq, Lk] },
    concat: { data: concat, shape: [B, Lq, dModel] },
    Q,
    K,
    V,
  };
}

// The [Lq, Lk] slice of a mask broadcast to [B, H, Lq, Lk] for (b, h).
function headMask(mask, b, h, B, H, Lq, Lk) {
  const shape = [...new Array(4 - mask.shape.length).fill(1), ...mask.shape];
  const data = new Float64Array(Lq * Lk);
  for (let i = 0; i < Lq; i++)
    for (let j = 0; j < Lk; j++) {
      const idx = [b, h, i, j].map((x, a) => (shape[a] === 1 ? 0 : x));
      const flat = ((idx[0] * shape[1] + idx[1]) * shape[2] + idx[2]) * shape[3] + idx[3];
      data[i * Lk + j] = mask.data[flat];
    }
  return { data, shape: [Lq, Lk], boolean: mask.boolean };
}

/** Layer norm over the last axis in float64. */
export function refLayerNorm(x, gamma, beta, eps = 1e-5) {
  const d = x.shape.at(-1);
  const out = new Float64Array(x.data.length);
  for (let r = 0; r < x.data.length / d; r++) {
    const row = Array.from(x.data.slice(r * d, (r + 1) * d));
    const mean = row.reduce((a, b) => a + b, 0) / d;
    const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / d;
    row.forEach((v, c) => {
      out[r * d + c] =
        ((v - mean) / Math.sqrt(variance + eps)) * (gamma ? gamma.data[c] : 1) + (beta ? beta.data[c] : 0);
    });
  }
  return { data: out, shape: x.shape };
}

/** erf by its Maclaurin series (|x| < 3) or continued fraction tail; ~1e-15. */
export function erf(x) {
  const sign = Math.sign(x);
  const a = Math.abs(x);
  if (a < 3) {
    let term = a,
      sum = a;
    for (let n = 1; n < 100; n++) {
      term *= (-a * a) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17) break;
    }
    return ((sign * 2) / Math.sqrt(Math.PI)) * sum;
  }
  // erfc continued fraction (Lentz), then erf = 1 - erfc
  let f = a,
    C = a,
    D = 0;
  for (let n = 1; n < 200; n++) {
    const an = n / 2;
    D = a + an * D;
    D = 1 / D;
    C = a + an / C;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return sign * (1 - Math.exp(-a * a) / (f * Math.sqrt(Math.PI)));
}

/** act(x·w1 + b1)·w2 + b2 in float64. */
export function refFeedForward(x, { w1, b1, w2, b2, activation = 'relu' }) {
  const h = refMatmul(x, w1, b1);
  for (let i = 0; i < h.data.length; i++) {
    const v = h.data[i];
    h.data[i] = activation === 'relu' ? Math.max(0, v) : 0.5 * v * (1 + erf(v / Math.SQRT2));
  }
  return refMatmul(h, w2, b2);
}

/** Elementwise sum. */
export function refAdd(a, b) {
  return { data: Float64Array.from(a.data, (v, i) => v + b.data[i]), shape: a.shape };
}
