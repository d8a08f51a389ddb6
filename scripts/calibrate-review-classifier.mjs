// Calibrates the shipped review classifier (web/elements/models/review-sentiment/) by
// temperature scaling, without touching its weights: trains a sibling model by the same
// recipe on nine tenths of the training sentences, fits T on its logits for the last tenth
// (scripts/review-calibration.mjs), and writes T into config.json's `calibration`, with the
// expected calibration error and NLL of the shipped model on the held-out sentences before
// and after in `metrics.calibration`, and the made-up-word figures re-measured with T.
// Deterministic (Node, baseline build, one thread), about one minute.
//   node scripts/calibrate-review-classifier.mjs [--folder <classifier folder>]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { trainReview, readReviewFiles, madeUpWords } from './review-training.mjs';
import { reviewSplits } from '../web/elements/training/review-recipe.js';
import {
  calibrationSplit,
  fitTemperature,
  logitRows,
  calibrationMetrics,
  VALIDATION_SHARE,
} from './review-calibration.mjs';

const args = process.argv.slice(2);
const folderIndex = args.indexOf('--folder');
const folder =
  folderIndex >= 0
    ? args[folderIndex + 1]
    : fileURLToPath(new URL('../web/elements/models/review-sentiment/', import.meta.url));
const attn = await init({ simd: 'baseline', threads: 1 });
const files = readReviewFiles();

// 1. The sibling model and its logits on the validation sentences it never saw.
const { fit, validation } = calibrationSplit(files.uci);
const log = (p) => process.stderr.write(`sibling step ${p.step}/${p.steps}: loss ${p.loss.toFixed(4)}\n`);
const sibling = await attn.TextClassifier.load((await trainReview(attn, files, { rows: fit, onProgress: log })).files);
const temperature = fitTemperature(logitRows(sibling, validation));
sibling.dispose();

// 2. The shipped model on the held-out sentences, before and after.
const shipped = await attn.TextClassifier.load(folder);
const heldOut = Object.values(reviewSplits(files.uci).heldOut).flat();
const calibration = calibrationMetrics(logitRows(shipped, heldOut), temperature);
shipped.dispose();

// 3. config.json with T, then the made-up-word figures as the calibrated classifier gives them.
const configPath = `${folder}/config.json`;
const config = JSON.parse(readFileSync(configPath, 'utf8'));
const fittedOn = `the last ${100 * VALIDATION_SHARE}% of each source's training sentences (${validation.length}), through a sibling model trained by the same recipe on the other ${fit.length}`;
const withT = { ...config, calibration: { temperature, fittedOn } };
const calibrated = await attn.TextClassifier.load({
  'config.json': JSON.stringify(withT),
  'tokenizer.json': readFileSync(`${folder}/tokenizer.json`, 'utf8'),
  'model.safetensors': readFileSync(`${folder}/model.safetensors`),
});
const final = { ...withT, metrics: { ...config.metrics, madeUpWords: madeUpWords(calibrated), calibration } };
for (const text of [
  'the acting was not bad',
  'Honestly, it was not bad at all.',
  'The pasta arrived cold and the manager shrugged.',
]) {
  const raw = calibrated.predict(text);
  process.stderr.write(`${text}: ${raw.label} p = ${Math.max(...raw.probabilities).toFixed(4)} (calibrated)\n`);
}
calibrated.dispose();
writeFileSync(configPath, `${JSON.stringify(final, null, 2)}\n`);
console.log(JSON.stringify({ temperature, calibration, madeUpWords: final.metrics.madeUpWords }, null, 2));
