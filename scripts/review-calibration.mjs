// Temperature scaling for the review classifier (issue 35): one temperature T divides the
// logits before the softmax. T is fitted on a validation split carved from the training
// sentences (the last tenth of each source's); the held-out sentences are not touched. The
// shipped model trained on those sentences, so its logits there are sharper than on new text
// (fitted on them, T comes out 0.59: sharper still); T is therefore fitted on the logits of a
// sibling model, trained by the same recipe on the other nine tenths, and applied to the
// shipped weights, which stay as they are. Measured by the expected calibration error (15
// equal-width bins over the top probability) and the mean negative log-likelihood, in
// float64 from raw logits. Shared by scripts/calibrate-review-classifier.mjs and
// tests/review-classifier.test.js.

import { SOURCES, readUciFile, splitRows } from '../web/elements/training/review-recipe.js';

/** Equal-width bins over the top probability, the usual count (Guo et al. 2017). */
export const ECE_BINS = 15;

/** The last share of each source's training sentences (in the split's order) set aside to fit T. */
export const VALIDATION_SHARE = 0.1;

/**
 * The review data's training sentences → { fit, validation }: the last VALIDATION_SHARE of
 * each source's (in the split's order) are validation, the rest fit; the held-out sentences
 * are not touched. A validation sentence another source also trains on is dropped.
 */
export function calibrationSplit(uciFiles) {
  const fit = [],
    validation = [];
  for (const source of Object.keys(SOURCES)) {
    const { train } = splitRows(readUciFile(uciFiles[source]));
    const cut = Math.round(train.length * (1 - VALIDATION_SHARE));
    fit.push(...train.slice(0, cut));
    validation.push(...train.slice(cut));
  }
  const fitTexts = new Set(fit.map((r) => r.text));
  return { fit, validation: validation.filter((r) => !fitTexts.has(r.text)) };
}

/** softmax(logits / T) in float64. */
export function softmax64(logits, temperature = 1) {
  const z = logits.map((x) => x / temperature);
  const top = Math.max(...z);
  const e = z.map((x) => Math.exp(x - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/** Mean −log p(true label) of softmax(logits / T) over rows of { logits, labelId }. */
export function meanNll(rows, temperature = 1) {
  let sum = 0;
  for (const { logits, labelId } of rows) {
    const z = logits.map((x) => x / temperature);
    const top = Math.max(...z);
    const logSum = top + Math.log(z.reduce((a, x) => a + Math.exp(x - top), 0));
    sum += logSum - z[labelId];
  }
  return sum / rows.length;
}

/**
 * Expected calibration error: rows binned by their top probability into `bins` equal-width
 * bins ((0, 1/bins], …, the first including 0); the mean over rows of |accuracy − confidence|
 * of each row's bin, i.e. Σ_b (n_b / n)·|acc_b − conf_b|.
 */
export function expectedCalibrationError(rows, temperature = 1, bins = ECE_BINS) {
  const count = new Array(bins).fill(0),
    correct = new Array(bins).fill(0),
    confidence = new Array(bins).fill(0);
  for (const { logits, labelId } of rows) {
    const p = softmax64(logits, temperature);
    const top = Math.max(...p);
    const b = Math.min(bins - 1, Math.max(0, Math.ceil(top * bins) - 1));
    count[b]++;
    confidence[b] += top;
    if (p.indexOf(top) === labelId) correct[b]++;
  }
  return count.reduce((s, n, b) => (n === 0 ? s : s + Math.abs(correct[b] - confidence[b]) / rows.length), 0);
}

/**
 * The T that minimises meanNll(rows, T): golden-section search on log T over [1/20, 20]
 * (the NLL is convex in 1/T, so unimodal in log T), to 1e-9 in log T.
 */
export function fitTemperature(rows) {
  const phi = (Math.sqrt(5) - 1) / 2;
  let a = Math.log(1 / 20),
    b = Math.log(20);
  let c = b - phi * (b - a),
    d = a + phi * (b - a);
  let fc = meanNll(rows, Math.exp(c)),
    fd = meanNll(rows, Math.exp(d));
  while (b - a > 1e-9) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - phi * (b - a);
      fc = meanNll(rows, Math.exp(c));
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + phi * (b - a);
      fd = meanNll(rows, Math.exp(d));
    }
  }
  return Math.exp((a + b) / 2);
}

/** Rows of { logits, labelId }: the classifier's raw logits for { text, label } rows. */
export function logitRows(classifier, rows) {
  return rows.map(({ text, label }) => ({
    logits: classifier.predict(text).logits,
    labelId: classifier.labels.indexOf(label),
  }));
}

/** ECE and NLL of the raw logits (T = 1) and of the calibrated ones, over rows of { logits, labelId }. */
export function calibrationMetrics(rows, temperature) {
  return {
    eceBefore: expectedCalibrationError(rows, 1),
    eceAfter: expectedCalibrationError(rows, temperature),
    nllBefore: meanNll(rows, 1),
    nllAfter: meanNll(rows, temperature),
    bins: ECE_BINS,
    count: rows.length,
  };
}
