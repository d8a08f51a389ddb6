// Sentence embeddings from an encoder's last hidden state: each sequence's token vectors
// pooled into one vector, as sentence-transformers' Pooling module does
// (sentence_transformers/models/Pooling.py), then, on request, scaled to unit length (its
// Normalize module). Sums in float64, results in float32.

/**
 * The pooling modes, in the order sentence-transformers concatenates them when a folder
 * asks for several:
 *   cls           the first token's vector ([CLS] in BERT)
 *   max           the largest value of each column over the real tokens
 *   mean          the mean over the real tokens (the attention mask)
 *   meanSqrtLen   the sum over the real tokens divided by √n
 *   weightedMean  the mean weighted by position, token t weighing t + 1 (SGPT)
 *   last          the last real token's vector (decoders)
 */
export const POOLING_MODES = ['cls', 'max', 'mean', 'meanSqrtLen', 'weightedMean', 'last'];

// Σ_t weight(t)·row(t) over the n real tokens, in float64: [d].
function weightedSum(row, n, d, weight) {
  const sum = new Float64Array(d);
  for (let t = 0; t < n; t++) {
    const x = row(t);
    const w = weight(t);
    for (let i = 0; i < d; i++) sum[i] += w * x[i];
  }
  return sum;
}

function scaled(v, factor) {
  for (let i = 0; i < v.length; i++) v[i] *= factor;
  return v;
}

// Each mode: one sequence's n real tokens (row(t): [d]) → its vector [d].
const POOL = {
  cls: (row) => row(0),
  max(row, n, d) {
    const v = Float64Array.from(row(0));
    for (let t = 1; t < n; t++) {
      const x = row(t);
      for (let i = 0; i < d; i++) if (!(x[i] <= v[i])) v[i] = x[i]; // a NaN wins, as torch.max's does
    }
    return v;
  },
  mean: (row, n, d) =>
    scaled(
      weightedSum(row, n, d, () => 1),
      1 / n,
    ),
  meanSqrtLen: (row, n, d) =>
    scaled(
      weightedSum(row, n, d, () => 1),
      1 / Math.sqrt(n),
    ),
  weightedMean: (row, n, d) =>
    scaled(
      weightedSum(row, n, d, (t) => t + 1),
      2 / (n * (n + 1)),
    ),
  last: (row, n) => row(n - 1),
};

/**
 * Pools each sequence's real tokens (the first lengths[b] rows: right padding; padding never
 * counts).
 *   hidden: [B, T, d] (Float32Array)   lengths: [B], each in [1, T]
 *   modes: a subset of POOLING_MODES, in that order
 *   returns [B, modes.length · d]: each row the modes' vectors one after another
 */
export function poolTokens(hidden, [B, T, d], lengths, modes) {
  const width = modes.length * d;
  const out = new Float32Array(B * width);
  for (let b = 0; b < B; b++) {
    const row = (t) => hidden.subarray((b * T + t) * d, (b * T + t + 1) * d);
    modes.forEach((mode, m) => out.set(POOL[mode](row, lengths[b], d), b * width + m * d));
  }
  return out;
}

/**
 * Scales each row to unit L2 length in place, as torch's F.normalize(x, p=2, dim=1):
 * x / max(‖x‖₂, 1e-12) (a zero row stays zero).
 *   data: [rows, width]
 */
export function normalizeRows(data, rows, width) {
  for (let r = 0; r < rows; r++) {
    const x = data.subarray(r * width, (r + 1) * width);
    let squares = 0;
    for (let i = 0; i < width; i++) squares += x[i] * x[i];
    const scale = 1 / Math.max(Math.sqrt(squares), 1e-12);
    for (let i = 0; i < width; i++) x[i] *= scale;
  }
  return data;
}
