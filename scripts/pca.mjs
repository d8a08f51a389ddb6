// Principal component projection (dev-time, for scripts/make-review-assets.mjs): the rows'
// coordinates on the k axes of largest variance, from a cyclic Jacobi eigen-decomposition of
// their covariance (float64; deterministic; fine for a 100 × 100 covariance).

/**
 * @param {number[][]} rows n rows of d numbers
 * @param {number} k axes to keep
 * @returns {number[][]} n rows of k numbers (centred), axes by decreasing variance
 */
export function principalProjection(rows, k) {
  const n = rows.length,
    d = rows[0].length;
  const mean = new Float64Array(d);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r[j] / n;
  const a = Array.from({ length: d }, () => new Float64Array(d));
  for (const r of rows) {
    for (let i = 0; i < d; i++) {
      const x = r[i] - mean[i];
      for (let j = i; j < d; j++) a[i][j] += x * (r[j] - mean[j]);
    }
  }
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) a[i][j] = a[j][i];
  const v = Array.from({ length: d }, (_, i) => Float64Array.from({ length: d }, (_, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 64; sweep++) {
    let off = 0;
    for (let i = 0; i < d; i++) for (let j = i + 1; j < d; j++) off += a[i][j] ** 2;
    if (off < 1e-20) break;
    for (let p = 0; p < d; p++) {
      for (let q = p + 1; q < d; q++) {
        if (a[p][q] === 0) continue;
        // The rotation that zeroes a[p][q].
        const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1),
          s = t * c;
        for (let i = 0; i < d; i++) {
          const x = a[i][p],
            y = a[i][q];
          a[i][p] = c * x - s * y;
          a[i][q] = s * x + c * y;
        }
        for (let i = 0; i < d; i++) {
          const x = a[p][i],
            y = a[q][i];
          a[p][i] = c * x - s * y;
          a[q][i] = s * x + c * y;
        }
        for (let i = 0; i < d; i++) {
          const x = v[i][p],
            y = v[i][q];
          v[i][p] = c * x - s * y;
          v[i][q] = s * x + c * y;
        }
      }
    }
  }
  const axes = Array.from({ length: d }, (_, i) => i)
    .sort((x, y) => a[y][y] - a[x][x])
    .slice(0, k);
  return rows.map((r) =>
    axes.map((e) => {
      let s = 0;
      for (let j = 0; j < d; j++) s += (r[j] - mean[j]) * v[j][e];
      return s;
    }),
  );
}
