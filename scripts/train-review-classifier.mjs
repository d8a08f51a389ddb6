// Trains the review classifier the package ships (web/elements/models/review-sentiment/)
// from the shipped data, in Node, on the baseline build, one thread: the same bits on every
// machine (tests/review-classifier.test.js retrains it and compares model.safetensors byte
// for byte). Then measures it as shipped (float16 weights, read back with TextClassifier.load)
// on the held-out sentences of each source, and with --cross also trains three more models,
// each without one source, and measures them on all 1,000 sentences of the source they never saw.
// Then scripts/calibrate-review-classifier.mjs fits its calibration temperature.
//   node scripts/train-review-classifier.mjs [--cross] [--out <folder>]
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { trainReview, measureReview, readReviewFiles, withMetrics } from './review-training.mjs';

const args = process.argv.slice(2);
const cross = args.includes('--cross');
const outIndex = args.indexOf('--out');
const out =
  outIndex >= 0
    ? args[outIndex + 1]
    : fileURLToPath(new URL('../web/elements/models/review-sentiment/', import.meta.url));
const attn = await init({ simd: 'baseline', threads: 1 });
const files = readReviewFiles();
const log = (p) =>
  process.stderr.write(`step ${p.step}/${p.steps}: loss ${p.loss.toFixed(4)} (${p.seconds.toFixed(1)} s)\n`);

const shipped = await trainReview(attn, files, { onProgress: log });
const metrics = await measureReview(attn, shipped.files, files);
if (cross) {
  metrics.crossSource = {};
  for (const source of Object.keys(metrics.heldOut)) {
    const model = await trainReview(attn, files, { exclude: source });
    const m = await measureReview(attn, model.files, files, { exclude: source });
    metrics.crossSource[source] = m.heldOut[source];
    process.stderr.write(
      `without ${source}: ${(100 * m.heldOut[source].accuracy).toFixed(1)}% of its ${m.heldOut[source].count} sentences\n`,
    );
  }
} else {
  // Keep the cross-source numbers a --cross run measured, if the folder has them.
  try {
    metrics.crossSource = JSON.parse(readFileSync(`${out}/config.json`, 'utf8')).metrics?.crossSource;
  } catch {
    /* none yet */
  }
}
const final = { ...shipped.files, 'config.json': withMetrics(shipped.files['config.json'], metrics) };
mkdirSync(out, { recursive: true });
for (const [name, content] of Object.entries(final)) writeFileSync(`${out}/${name}`, content);
console.log(JSON.stringify(metrics, null, 2));
// A new model needs its own temperature (config.json is written here without one).
process.stderr.write(
  'Next: node scripts/calibrate-review-classifier.mjs (fits the calibration temperature of this model)\n',
);
