// Attention in plain JS loops on Float32Arrays, the baseline a page would write itself:
// per query row, scores → softmax → weighted sum (one row buffer, no N×N matrix).

/** q, k, v: flat [heads, n, d]; returns [heads, n, d]. */
export function plainAttention(q, k, v, heads, n, d) {
  const out = new Float32Array(heads * n * d);
  const scores = new Float32Array(n);
  const scale = 1 / Math.sqrt(d);
  for (let h = 0; h < heads; h++) {
    const base = h * n * d;
    for (let i = 0; i < n; i++) {
      let max = -Infinity;
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let t = 0; t < d; t++) s += q[base + i * d + t] * k[base + j * d + t];
        scores[j] = s * scale;
        if (scores[j] > max) max = scores[j];
      }
      let sum = 0;
      for (let j = 0; j < n; j++) {
        scores[j] = Math.exp(scores[j] - max);
        sum += scores[j];
      }
      const o = base + i * d;
      for (let j = 0; j < n; j++) {
        const w = scores[j] / sum;
        for (let t = 0; t < d; t++) out[o + t] += w * v[base + j * d + t];
      }
    }
  }
  return out;
}

/** x [n, dModel]·w [dModel, m] + b. */
export function plainLinear(x, w, b, n, dModel, m) {
  const out = new Float32Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) out[i * m + j] = b[j];
    for (let p = 0; p < dModel; p++) {
      const xv = x[i * dModel + p];
      for (let j = 0; j < m; j++) out[i * m + j] += xv * w[p * m + j];
    }
  }
  return out;
}
