// The review classifier's training and measurement in Node, shared by
// scripts/train-review-classifier.mjs, the benchmark and the tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SOURCES, REVIEW_OPTIONS, reviewSplits, lexiconOption } from '../web/elements/training/review-recipe.js';
import { readWordVectors } from '../bindings/js/text/word_vectors.js';

const DIR = fileURLToPath(new URL('../web/elements/models/review-sentiment/', import.meta.url));
const SUITE = fileURLToPath(new URL('../tests/fixtures/sentiment/negation-contrast.tsv', import.meta.url));

/** The shipped training files: the three UCI files by source, the lexicon text, the vectors' bytes. */
export function readReviewFiles() {
  return {
    uci: Object.fromEntries(
      Object.entries(SOURCES).map(([source, name]) => [source, readFileSync(`${DIR}training/${name}`, 'utf8')]),
    ),
    lexicon: readFileSync(`${DIR}training/vader-lexicon.tsv`, 'utf8'),
    vectors: readFileSync(`${DIR}training/word-vectors.safetensors`),
  };
}

/** The negation and contrast suite as { text, label } rows. */
export function readSuite() {
  return readFileSync(SUITE, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [text, label] = l.split('\t');
      return { text, label: label === '1' ? 'positive' : 'negative' };
    });
}

/**
 * Trains the recipe's classifier: { files } (config.json, tokenizer.json, model.safetensors,
 * float16). `rows` replaces the training rows (the calibration's sibling model trains on fewer).
 */
export async function trainReview(attn, files, { exclude = null, rows = null, onProgress, ...overrides } = {}) {
  const train = rows ?? reviewSplits(files.uci, { exclude }).train;
  const out = await attn.TextClassifier.trainFiles(train, {
    ...REVIEW_OPTIONS,
    ...overrides,
    labels: ['negative', 'positive'],
    lexicon: lexiconOption(files.lexicon),
    wordVectors: readWordVectors(files.vectors),
    onProgress,
  });
  return { files: out };
}

/** config.json's text with `metrics` set. */
export function withMetrics(configText, metrics) {
  return `${JSON.stringify({ ...JSON.parse(configText), metrics }, null, 2)}\n`;
}

/** Held-out accuracy by source, the suite's, and p(positive) on made-up words, as the files are shipped. */
export async function measureReview(attn, classifierFiles, files, { exclude = null } = {}) {
  const classifier = await attn.TextClassifier.load(classifierFiles);
  try {
    const { heldOut } = reviewSplits(files.uci, { exclude });
    const metrics = { heldOut: {} };
    for (const [source, rows] of Object.entries(heldOut)) {
      const { accuracy, count } = classifier.evaluate(rows);
      metrics.heldOut[source] = { accuracy, count };
    }
    const suite = classifier.evaluate(readSuite());
    metrics.negationSuite = { accuracy: suite.accuracy, count: suite.count };
    metrics.madeUpWords = madeUpWords(classifier);
    return metrics;
  } finally {
    classifier.dispose();
  }
}

/** p(positive) over 200 texts of 1-6 made-up words (4-8 random letters, seeded): min, max, mean. */
export function madeUpWords(classifier, seed = 99) {
  let s = seed;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  const word = () =>
    Array.from(
      { length: 4 + Math.floor(next() * 5) },
      () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(next() * 26)],
    ).join('');
  const p = Array.from(
    { length: 200 },
    () => classifier.predict(Array.from({ length: 1 + Math.floor(next() * 6) }, word).join(' ')).probabilities[1],
  );
  return { min: Math.min(...p), max: Math.max(...p), mean: p.reduce((a, b) => a + b, 0) / p.length, texts: p.length };
}
