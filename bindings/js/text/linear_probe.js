// A linear probe's mathematics, in float64 JS (it is small: d × K weights): a softmax layer
// on frozen sentence features, trained by mini-batch AdamW. No wasm, no DOM.
//   1. features standardised (each column to mean 0, standard deviation 1 over the corpus),
//      so that one learning rate suits every encoder (BERT's hidden states have a few columns
//      in the tens and many near 0)
//   2. W [d, K] and b [K] from zero (the loss is convex: no initialisation to seed); each epoch
//      visits the examples in a seeded order, mini-batch by mini-batch, AdamW steps
//      (decoupled weight decay on W, none on b)
//   3. the standardisation folded into the weights: x·W' + b' = ((x - μ) / σ)·W + b, with
//      W' = W / σ (row-wise) and b' = b - (μ / σ)·W, rounded to float32: the head saved is
//      the head predict uses
// Shapes: N examples, d features, K classes; row-major Float64Arrays.
import { seededRandom } from '../parameters.js';

// A column whose spread is below this (a constant feature) is centred, not scaled.
const MIN_STD = 1e-6;
const BETA1 = 0.9,
  BETA2 = 0.999,
  EPS = 1e-8;

/** Column means and standard deviations of X [N, d] (σ = 1 for a constant column). */
export function standardization(X, N, d) {
  const mean = new Float64Array(d);
  const std = new Float64Array(d);
  for (let n = 0; n < N; n++) for (let i = 0; i < d; i++) mean[i] += X[n * d + i];
  for (let i = 0; i < d; i++) mean[i] /= N;
  for (let n = 0; n < N; n++)
    for (let i = 0; i < d; i++) {
      const v = X[n * d + i] - mean[i];
      std[i] += v * v;
    }
  for (let i = 0; i < d; i++) {
    const s = Math.sqrt(std[i] / N);
    std[i] = s < MIN_STD ? 1 : s;
  }
  return { mean, std };
}

/** X [N, d] standardised: a new array. */
export function standardize(X, N, d, { mean, std }) {
  const Z = new Float64Array(N * d);
  for (let n = 0; n < N; n++) for (let i = 0; i < d; i++) Z[n * d + i] = (X[n * d + i] - mean[i]) / std[i];
  return Z;
}

/** logits [K] of one row x [d] (an array-like read at `at`) through W [d, K], b [K]. */
export function rowLogits(x, at, W, b, d, K) {
  const z = Array.from(b);
  for (let i = 0; i < d; i++) {
    const xi = x[at + i];
    if (xi === 0) continue;
    for (let k = 0; k < K; k++) z[k] += xi * W[i * K + k];
  }
  return z;
}

// softmax(z) in place, and log Σ exp(z) (for the loss).
function softmaxInPlace(z) {
  const top = Math.max(...z);
  let sum = 0;
  for (let k = 0; k < z.length; k++) sum += z[k] = Math.exp(z[k] - top);
  for (let k = 0; k < z.length; k++) z[k] /= sum;
  return top + Math.log(sum);
}

/**
 * Mean cross-entropy of the rows `rows` (indices into X [N, d], labels y) and its gradient:
 *   loss = mean_n [ logΣexp(z_n) - z_n[y_n] ],  z_n = X_n·W + b
 *   ∂loss/∂W = Xᵀ(P - Y) / B,  ∂loss/∂b = Σ_n (P_n - Y_n) / B   (P the softmax, Y one-hot)
 * @returns {{ loss: number, gW: Float64Array, gb: Float64Array }}
 */
export function lossAndGradient(X, y, rows, W, b, d, K) {
  const gW = new Float64Array(d * K);
  const gb = new Float64Array(K);
  let loss = 0;
  for (const n of rows) {
    const z = rowLogits(X, n * d, W, b, d, K);
    const target = z[y[n]];
    loss += softmaxInPlace(z) - target;
    z[y[n]] -= 1; // P - Y
    for (let k = 0; k < K; k++) gb[k] += z[k];
    for (let i = 0; i < d; i++) {
      const xi = X[n * d + i];
      if (xi === 0) continue;
      for (let k = 0; k < K; k++) gW[i * K + k] += xi * z[k];
    }
  }
  const B = rows.length;
  for (let j = 0; j < gW.length; j++) gW[j] /= B;
  for (let k = 0; k < K; k++) gb[k] /= B;
  return { loss: loss / B, gW, gb };
}

/** Accuracy of W, b on X [N, d] with labels y. */
export function accuracy(X, y, N, W, b, d, K) {
  let right = 0;
  for (let n = 0; n < N; n++) {
    const z = rowLogits(X, n * d, W, b, d, K);
    if (z.indexOf(Math.max(...z)) === y[n]) right++;
  }
  return right / N;
}

// One AdamW update of `p` by gradient `g` (moments m, v; t the step from 1); decay on request.
function adamw(p, g, m, v, t, lr, decay) {
  const c1 = 1 - BETA1 ** t,
    c2 = 1 - BETA2 ** t;
  for (let j = 0; j < p.length; j++) {
    m[j] = BETA1 * m[j] + (1 - BETA1) * g[j];
    v[j] = BETA2 * v[j] + (1 - BETA2) * g[j] * g[j];
    p[j] -= lr * (m[j] / c1 / (Math.sqrt(v[j] / c2) + EPS) + decay * p[j]);
  }
}

// The examples 0..N-1 in a seeded order (Fisher–Yates).
function shuffled(N, random) {
  const order = Array.from({ length: N }, (_, i) => i);
  for (let i = N - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/**
 * Trains W, b on standardised features Z [N, d] (step 2): a generator yielding after each
 * epoch { epoch, loss (the whole corpus' mean cross-entropy after it), W, b }, so that the
 * caller reports progress and can stop between epochs.
 * @param {{ epochs: number, batchSize: number, lr: number, weightDecay: number, seed: number }} o
 */
export function* trainHead(Z, y, N, d, K, o) {
  const W = new Float64Array(d * K),
    b = new Float64Array(K);
  const mW = new Float64Array(d * K),
    vW = new Float64Array(d * K),
    mb = new Float64Array(K),
    vb = new Float64Array(K);
  const random = seededRandom(o.seed);
  const all = Array.from({ length: N }, (_, i) => i);
  let t = 0;
  for (let epoch = 1; epoch <= o.epochs; epoch++) {
    const order = shuffled(N, random);
    for (let start = 0; start < N; start += o.batchSize) {
      const { gW, gb } = lossAndGradient(Z, y, order.slice(start, start + o.batchSize), W, b, d, K);
      t++;
      adamw(W, gW, mW, vW, t, o.lr, o.weightDecay);
      adamw(b, gb, mb, vb, t, o.lr, 0);
    }
    yield { epoch, loss: lossAndGradient(Z, y, all, W, b, d, K).loss, W, b };
  }
}

/**
 * Step 3: the head on raw features, float32 (its bits are what the files hold).
 * @returns {{ weight: Float32Array, bias: Float32Array }} weight [d, K], bias [K]
 */
export function foldStandardization(W, b, { mean, std }, d, K) {
  const weight = new Float32Array(d * K);
  const bias = new Float64Array(b);
  for (let i = 0; i < d; i++)
    for (let k = 0; k < K; k++) {
      const w = W[i * K + k] / std[i];
      weight[i * K + k] = w;
      bias[k] -= mean[i] * w;
    }
  return { weight, bias: Float32Array.from(bias) };
}
