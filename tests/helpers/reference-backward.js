// Float64 closed forms of the backward steps (the chain rule written out), for the API fuzzer.
// Shapes: x [..., in] flattened to rows; every result is { data: Float64Array, shape }.
import { erf } from './reference-layers.js';

const rowsOf = (t) => (t.shape.at(-1) === 0 ? 0 : t.data.length / t.shape.at(-1));

/** y = x·w + b → dx = dy·wᵀ, dw = xᵀ·dy, db = Σ dy. */
export function refLinearBackward(x, w, dy) {
  const [inDim, out] = w.shape,
    rows = dy.data.length / Math.max(1, out);
  const dx = new Float64Array(x.data.length),
    dw = new Float64Array(inDim * out),
    db = new Float64Array(out);
  for (let r = 0; r < rows; r++)
    for (let j = 0; j < out; j++) {
      const g = dy.data[r * out + j];
      db[j] += g;
      for (let i = 0; i < inDim; i++) {
        dx[r * inDim + i] += g * w.data[i * out + j];
        dw[i * out + j] += x.data[r * inDim + i] * g;
      }
    }
  return { dx: { data: dx, shape: x.shape }, dw: { data: dw, shape: [inDim, out] }, db: { data: db, shape: [out] } };
}

/** LN over the last axis: dx = (g − mean g − x̂·mean(g·x̂))/σ with g = dy·γ; dγ = Σ dy·x̂; dβ = Σ dy. */
export function refLayerNormBackward(x, dy, gamma, eps = 1e-5) {
  const d = x.shape.at(-1),
    rows = rowsOf(x);
  const dx = new Float64Array(x.data.length),
    dg = new Float64Array(d),
    db = new Float64Array(d);
  for (let r = 0; r < rows; r++) {
    const row = Array.from(x.data.slice(r * d, (r + 1) * d));
    const mean = row.reduce((a, b) => a + b, 0) / d;
    const sigma = Math.sqrt(row.reduce((a, b) => a + (b - mean) ** 2, 0) / d + eps);
    const xhat = row.map((v) => (v - mean) / sigma);
    const g = xhat.map((_, c) => dy.data[r * d + c] * (gamma ? gamma.data[c] : 1));
    const meanG = g.reduce((a, b) => a + b, 0) / d;
    const meanGX = g.reduce((a, v, c) => a + v * xhat[c], 0) / d;
    for (let c = 0; c < d; c++) {
      dx[r * d + c] = (g[c] - meanG - xhat[c] * meanGX) / sigma;
      dg[c] += dy.data[r * d + c] * xhat[c];
      db[c] += dy.data[r * d + c];
    }
  }
  return { dx: { data: dx, shape: x.shape }, dgamma: { data: dg, shape: [d] }, dbeta: { data: db, shape: [d] } };
}

const PHI = (v) => 0.5 * (1 + erf(v / Math.SQRT2));
const pdf = (v) => Math.exp(-0.5 * v * v) / Math.sqrt(2 * Math.PI);

/** act(x·w1 + b1)·w2 + b2, backward: through w2, act' (ReLU: 1 above 0; GELU: Φ + x·φ), w1. */
export function refFeedForwardBackward(x, dy, { w1, b1, w2, activation = 'relu' }) {
  const [dModel, dFF] = w1.shape,
    rows = rowsOf(x);
  const pre = new Float64Array(rows * dFF);
  for (let r = 0; r < rows; r++)
    for (let j = 0; j < dFF; j++) {
      let s = b1 ? b1.data[j] : 0;
      for (let i = 0; i < dModel; i++) s += x.data[r * dModel + i] * w1.data[i * dFF + j];
      pre[r * dFF + j] = s;
    }
  const act = pre.map((v) => (activation === 'relu' ? Math.max(0, v) : v * PHI(v)));
  const second = refLinearBackward({ data: act, shape: [rows, dFF] }, w2, { data: dy.data, shape: [rows, dModel] });
  const dPre = second.dx.data.map(
    (g, i) => g * (activation === 'relu' ? (pre[i] > 0 ? 1 : 0) : PHI(pre[i]) + pre[i] * pdf(pre[i])),
  );
  const first = refLinearBackward({ data: x.data, shape: [rows, dModel] }, w1, { data: dPre, shape: [rows, dFF] });
  return { dx: { data: first.dx.data, shape: x.shape }, dw1: first.dw, db1: first.db, dw2: second.dw, db2: second.db };
}

/** Mean cross-entropy over rows with target ≥ 0, its accuracy, and dLogits = (p − onehot)/count. */
export function refSoftmaxCrossEntropy(logits, targets) {
  const C = logits.shape.at(-1),
    rows = targets.length;
  const count = targets.filter((t) => t >= 0).length;
  const d = new Float64Array(logits.data.length);
  let loss = 0,
    correct = 0;
  for (let r = 0; r < rows; r++) {
    if (targets[r] < 0) continue;
    const row = Array.from(logits.data.slice(r * C, (r + 1) * C));
    const max = Math.max(...row);
    const sum = row.reduce((s, v) => s + Math.exp(v - max), 0);
    loss += max + Math.log(sum) - row[targets[r]];
    if (row.indexOf(max) === targets[r]) correct++;
    row.forEach((v, c) => {
      d[r * C + c] = (Math.exp(v - max) / sum - (c === targets[r] ? 1 : 0)) / count;
    });
  }
  return {
    loss: count ? loss / count : 0,
    count,
    accuracy: count ? correct / count : 0,
    dLogits: { data: d, shape: logits.shape },
  };
}
