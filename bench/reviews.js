// The review classifier's benchmark (issue 20), run by `npm run bench` (bench/run.js) or
// alone (`node bench/reviews.js`): accuracy on held-out real review sentences, per source
// (trained on all three sources' training splits) and across sources (trained on two,
// tested on all 1,000 sentences of the third), beside two baselines on the same splits: a
// word list (AFINN-165 through npm `sentiment`: score >= 0 → positive) and a bag-of-words
// logistic regression (float64, written here); then training time in Node with one and two
// threads, and inference time per sentence; the shipped model's calibration on the held-out
// sentences (expected calibration error and NLL, raw and divided by its temperature). Prints
// markdown tables.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { reviewSplits, SOURCES } from '../web/elements/training/review-recipe.js';
import { trainReview, readReviewFiles, readSuite } from '../scripts/review-training.mjs';
import { calibrationMetrics, logitRows } from '../scripts/review-calibration.mjs';

const require = createRequire(import.meta.url);

// AFINN-165: the sum of the words' scores; 0 or more reads as positive.
function wordList() {
  const Sentiment = require('sentiment');
  const s = new Sentiment();
  return (text) => (s.analyze(text).score >= 0 ? 'positive' : 'negative');
}

// Bag of words (lower-cased words and their bigrams, present or not) → logistic regression,
// L2 1e-4, 60 epochs of SGD (learning rate 0.1) in a fixed order.
function bagOfWords(train) {
  const features = (text) => {
    const words = text.toLowerCase().match(/[a-z0-9']+|[^\sa-z0-9']/g) ?? [];
    return [...new Set([...words, ...words.slice(1).map((w, i) => `${words[i]} ${w}`)])];
  };
  const index = new Map();
  const rows = train.map((r) =>
    features(r.text).map((f) => index.get(f) ?? (index.set(f, index.size), index.size - 1)),
  );
  const w = new Float64Array(index.size);
  let b = 0;
  for (let epoch = 0; epoch < 60; epoch++) {
    rows.forEach((f, i) => {
      const z = f.reduce((s, j) => s + w[j], b);
      const g = 1 / (1 + Math.exp(-z)) - (train[i].label === 'positive' ? 1 : 0);
      b -= 0.1 * g;
      for (const j of f) w[j] -= 0.1 * (g + 1e-4 * w[j]);
    });
  }
  return (text) =>
    features(text).reduce((s, f) => s + (index.has(f) ? w[index.get(f)] : 0), b) >= 0 ? 'positive' : 'negative';
}

const accuracy = (predict, rows) => rows.filter((r) => predict(r.text) === r.label).length / rows.length;
const pct = (x) => `${(100 * x).toFixed(1)}%`;

/**
 * The shipped model's calibration (its temperature from config.json) on the held-out
 * sentences: { temperature, count, bins, eceBefore, eceAfter, nllBefore, nllAfter }.
 */
export async function shippedCalibration(attn, files = readReviewFiles()) {
  const shipped = await attn.TextClassifier.load(
    fileURLToPath(new URL('../web/elements/models/review-sentiment/', import.meta.url)),
  );
  try {
    return {
      temperature: shipped.temperature,
      ...calibrationMetrics(
        logitRows(shipped, Object.values(reviewSplits(files.uci).heldOut).flat()),
        shipped.temperature,
      ),
    };
  } finally {
    shipped.dispose();
  }
}

/** Runs the benchmark; returns { rows, timing, calibration } and prints progress through `progress`. */
export async function reviewBench(progress = () => {}) {
  const files = readReviewFiles();
  const list = wordList();
  const rows = [];
  const attn1 = await init({ simd: 'baseline', threads: 1 });
  for (const exclude of [null, ...Object.keys(SOURCES)]) {
    const { train, heldOut } = reviewSplits(files.uci, { exclude });
    progress(`reviews: training ${exclude ? `without ${exclude}` : 'on all three sources'}`);
    const { files: trained } = await trainReview(attn1, files, { exclude });
    const ours = await attn1.TextClassifier.load(trained);
    const bow = bagOfWords(train);
    for (const [source, sentences] of Object.entries(heldOut)) {
      if (exclude && source !== exclude) continue;
      rows.push({
        set: exclude
          ? `${source}, never trained on (all ${sentences.length})`
          : `${source}, held out (${sentences.length})`,
        ours: ours.evaluate(sentences).accuracy,
        wordList: accuracy(list, sentences),
        bagOfWords: accuracy(bow, sentences),
      });
    }
    if (!exclude) {
      const suite = readSuite();
      rows.push({
        set: `negation and contrast suite (${suite.length})`,
        ours: ours.evaluate(suite).accuracy,
        wordList: accuracy(list, suite),
        bagOfWords: accuracy(bow, suite),
      });
    }
    ours.dispose();
  }
  const calibration = await shippedCalibration(attn1, files);
  // Training and inference time.
  const timing = [];
  for (const threads of [1, 2]) {
    const attn = threads === 1 ? attn1 : await init({ threads: 2 });
    progress(`reviews: timing training with ${threads} thread${threads > 1 ? 's' : ''} (${attn.info.build} build)`);
    const started = performance.now();
    const { files: trained } = await trainReview(attn, files);
    const seconds = (performance.now() - started) / 1000;
    const classifier = await attn.TextClassifier.load(trained);
    const sentences = Object.values(reviewSplits(files.uci).heldOut).flat();
    for (const s of sentences.slice(0, 50)) classifier.predict(s.text); // warm-up
    const t0 = performance.now();
    for (const s of sentences) classifier.predict(s.text);
    const perSentence = (performance.now() - t0) / sentences.length;
    timing.push({
      runtime: `Node ${process.version}, ${attn.info.build} build, ${attn.info.threads} thread${attn.info.threads > 1 ? 's' : ''}`,
      seconds,
      perSentence,
    });
    classifier.dispose();
  }
  return { rows, timing, calibration };
}

/** The markdown tables. */
export function reviewTables({ rows, timing, calibration: c }) {
  const lines = [
    '| review sentences | attention-wasm classifier | word list (AFINN-165) | bag-of-words logistic regression |',
    '|---|---:|---:|---:|',
  ];
  for (const r of rows) lines.push(`| ${r.set} | ${pct(r.ours)} | ${pct(r.wordList)} | ${pct(r.bagOfWords)} |`);
  lines.push(
    '',
    '| runtime | training (1,500 steps of 32) | inference per sentence (predict, attention maps included) |',
    '|---|---:|---:|',
  );
  for (const t of timing) lines.push(`| ${t.runtime} | ${t.seconds.toFixed(1)} s | ${t.perSentence.toFixed(2)} ms |`);
  if (c) lines.push('', calibrationTable(c));
  return lines.join('\n');
}

/** The shipped model's calibration as a table: ECE and NLL, raw and calibrated. */
export function calibrationTable(c) {
  return [
    `| shipped model, held-out sentences (${c.count}) | raw logits | calibrated (T = ${c.temperature.toFixed(2)}) |`,
    '|---|---:|---:|',
    `| expected calibration error (${c.bins} equal-width bins) | ${c.eceBefore.toFixed(4)} | ${c.eceAfter.toFixed(4)} |`,
    `| negative log-likelihood (nats per sentence) | ${c.nllBefore.toFixed(3)} | ${c.nllAfter.toFixed(3)} |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await reviewBench((line) => process.stderr.write(`${line}\n`));
  console.log(
    'Review classifier: accuracy on real review sentences it never trained on (UCI Sentiment Labelled Sentences; held-out splits of 20% per source, seed 2026), beside baselines on the same splits.\n',
  );
  console.log(reviewTables(result));
}
