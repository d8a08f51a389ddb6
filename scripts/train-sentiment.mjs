// Trains the sentiment classifier the demo ships (web/elements/models/sentiment.json) on the
// synthetic review corpus, in Node, single-threaded, deterministically:
//   node scripts/train-sentiment.mjs [steps]
// The file is getWeights() output with every weight rounded to 6 significant digits (half
// the size of exact float32 text; the rounded weights are the model, and its held-out
// accuracy is measured after rounding), plus how it was made.
import { writeFileSync } from 'node:fs';
import { init } from 'attention-wasm';
import { SENTIMENT_CONFIG, sentimentData, trainSentiment } from '../web/elements/training/sentiment-training.js';
import { encodeBatch } from '../web/elements/training/sentiment-corpus.js';

const steps = Number(process.argv[2] ?? 800);
const attn = await init({ simd: 'baseline' });
const model = new attn.TinyTransformer(SENTIMENT_CONFIG);
const data = sentimentData();
const started = performance.now();
let last;
for (const progress of trainSentiment(model, data, { steps })) {
  last = progress;
  process.stderr.write(`step ${progress.step}: loss ${progress.loss.toFixed(4)}, held-out accuracy ${(100 * progress.accuracy).toFixed(1)}%\n`);
}
const seconds = (performance.now() - started) / 1000;
const weights = model.getWeights();
for (const t of Object.values(weights.tensors)) t.data = t.data.map((v) => Number(v.toPrecision(6)));
model.setWeights(weights);
const shipped = model.evaluate(encodeBatch(data.heldOut, model.config.maxLen));
const file = {
  ...weights,
  trained: { steps, seconds: Number(seconds.toFixed(1)), corpusSeed: 2026, trainSentences: data.train.length, heldOutSentences: data.heldOut.length, heldOutAccuracy: shipped.accuracy, heldOutAccuracyBeforeRounding: last.accuracy, script: 'scripts/train-sentiment.mjs' },
};
const json = JSON.stringify(file);
writeFileSync(new URL('../web/elements/models/sentiment.json', import.meta.url), `${json}\n`);
console.log(`trained ${steps} steps in ${seconds.toFixed(1)} s; held-out accuracy ${(100 * shipped.accuracy).toFixed(2)}% on ${data.heldOut.length} sentences after rounding (${(100 * last.accuracy).toFixed(2)}% before); ${(json.length / 1024).toFixed(0)} KB`);
