// Training the course's application (seed 001: a text classifier, embedding → encoding →
// linear & softmax) on the synthetic review corpus (sentiment-corpus.js), shared by the
// in-browser demo (its Worker), scripts/train-sentiment.mjs (the shipped model) and the tests.
// A TinyTransformer with a [CLS] head: the [CLS] row's attention is the "pooled query".
import { VOCABULARY, makeCorpus, splitCorpus, encodeBatch } from './sentiment-corpus.js';

/** The classifier's configuration (small enough to train in seconds, ~23k parameters). */
export const SENTIMENT_CONFIG = Object.freeze({
  vocabSize: VOCABULARY.length, maxLen: 16, dModel: 32, numHeads: 2, numLayers: 2, dFF: 64,
  norm: 'pre', causal: false, head: 'classify', numClasses: 2, activation: 'gelu', positional: 'learned', seed: 1,
});

/** Labels by class id. */
export const LABELS = Object.freeze(['negative', 'positive']);

/** The corpus of a seed, split into training and held-out sentences (disjoint texts). */
export function sentimentData(seed = 2026, count = 6000) {
  return splitCorpus(makeCorpus(seed, count));
}

// A seeded stream of batch indices (a linear congruential generator: plain and portable).
function sampler(seed, size) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % size;
  };
}

/**
 * Trains `model` (a TinyTransformer with SENTIMENT_CONFIG) step by step: a generator that
 * yields after each chunk of `every` steps with { step, loss, accuracy (held-out), done }, so
 * a Worker or a script can interleave it with messages. Deterministic for given seeds.
 */
export function* trainSentiment(model, { train, heldOut }, { steps = 600, batchSize = 32, lr = 3e-3, every = 25, seed = 7 } = {}) {
  const next = sampler(seed, train.length);
  const evaluation = encodeBatch(heldOut, model.config.maxLen);
  let loss = NaN;
  for (let step = 1; step <= steps; step++) {
    const batch = encodeBatch(Array.from({ length: batchSize }, () => train[next()]), model.config.maxLen);
    loss = model.trainStep(batch, { lr, clipNorm: 1, weightDecay: 0.01 }).loss;
    if (step % every === 0 || step === steps) {
      const { accuracy } = model.evaluate(evaluation);
      yield { step, loss, accuracy, done: step === steps };
    }
  }
}

/**
 * The prediction for one text: { words, ids, unknown, probabilities, label, attention }, where
 * attention[layer][head] is the [CLS] row's weights over [CLS] and the words.
 */
export function classify(model, tokenize, text) {
  const { ids, words, unknown } = tokenize(text);
  const kept = ids.slice(0, model.config.maxLen);
  if (kept.length === 0) return { words: [], ids: [], unknown, probabilities: [0.5, 0.5], label: null, attention: [] };
  const { logits, attention } = model.forward([kept]);
  const [a, b] = logits.data;
  const top = Math.max(a, b);
  const ea = Math.exp(a - top), eb = Math.exp(b - top);
  const probabilities = [ea / (ea + eb), eb / (ea + eb)];
  const T = kept.length + 1;
  const rows = attention.map((t) => Array.from({ length: t.shape[1] }, (_, h) => Array.from(t.data.subarray(h * T * T, h * T * T + T))));
  return { words: words.slice(0, kept.length), ids: kept, unknown, probabilities, label: probabilities[1] > probabilities[0] ? 1 : 0, attention: rows };
}
