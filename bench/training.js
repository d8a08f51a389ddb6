// Training throughput (issue 10): tokens per second of the same transformer (2 layers,
// dModel 64, 4 heads, dFF 256, pre-norm, exact GELU, learned positions, vocabulary 16) on
// batches of 32 sequences of 16 tokens (the reverse task), forward + backward + optimizer:
// attn.TinyTransformer (one wasm call per step, AdamW) against the same model in tfjs-core
// ops on tfjs-backend-wasm (autodiff, Adam). Both must be learning (loss falls over the first
// 60 steps) before they are timed. Runnable alone: node bench/training.js
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import * as tfjsTrain from './peers/tfjs-train.js';

export const TRAINING_MODEL = {
  vocabSize: 16,
  maxLen: 16,
  dModel: 64,
  numHeads: 4,
  numLayers: 2,
  dFF: 256,
  norm: 'pre',
  activation: 'gelu',
  positional: 'learned',
  seed: 1,
};
const B = 32,
  L = 16;

// A seeded pool of reverse-task batches (mulberry32).
function batches(count) {
  let s = 42;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => {
    const tokens = Array.from({ length: B }, () => Array.from({ length: L }, () => Math.floor(random() * 16)));
    return { tokens, targets: tokens.map((row) => row.slice().reverse()) };
  });
}

// 60 steps must bring the loss down (mean of the last 10 below 95% of the first 10's).
function checkLearning(name, losses) {
  const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  const first = mean(losses.slice(0, 10)),
    last = mean(losses.slice(-10));
  if (!(last < 0.95 * first))
    throw new Error(
      `${name} is not learning: loss ${first.toFixed(3)} -> ${last.toFixed(3)} over ${losses.length} steps`,
    );
  return { first, last };
}

// Median tokens/s over `windows` windows of `steps` steps each.
function measure(step, pool, { windows = 5, steps = 20 } = {}) {
  const rates = [];
  let k = 0;
  for (let w = 0; w < windows; w++) {
    const t0 = performance.now();
    for (let i = 0; i < steps; i++) step(pool[k++ % pool.length]);
    rates.push((steps * B * L) / ((performance.now() - t0) / 1000));
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)];
}

/** Runs both sides; returns { rows, versions } and prints progress to `log`. */
export async function trainingBench(log = () => {}) {
  const pool = batches(40);
  const attn = await init();
  log('training: attention-wasm');
  const model = new attn.TinyTransformer(TRAINING_MODEL);
  const ours = checkLearning(
    'attention-wasm',
    pool
      .slice(0, 60 % 41)
      .concat(pool)
      .slice(0, 60)
      .map((b) => model.trainStep(b, { lr: 1e-3 }).loss),
  );
  const oursRate = measure((b) => model.trainStep(b, { lr: 1e-3 }), pool, { windows: 5, steps: 40 });
  model.dispose();
  log('training: tfjs-backend-wasm');
  const version = await tfjsTrain.setup();
  const tf = tfjsTrain.trainer(TRAINING_MODEL, { lr: 1e-3 });
  const theirs = checkLearning(
    'tfjs',
    pool
      .concat(pool)
      .slice(0, 60)
      .map((b) => tf.step(b.tokens, b.targets)),
  );
  const theirRate = measure((b) => tf.step(b.tokens, b.targets), pool, { windows: 5, steps: 5 });
  tf.dispose();
  return {
    versions: { tfjsTrain: version },
    rows: [
      {
        batch: B,
        length: L,
        ours: oursRate,
        tfjs: theirRate,
        ratio: oursRate / theirRate,
        oursMs: (B * L * 1000) / oursRate,
        tfjsMs: (B * L * 1000) / theirRate,
        oursLoss: ours,
        tfjsLoss: theirs,
        build: attn.info.build,
      },
    ],
  };
}

/** The markdown table. */
export function trainingTable({ rows }) {
  const lines = [
    '| model | batch × length | attention-wasm tokens/s (ms/step) | tfjs-backend-wasm tokens/s (ms/step) | ratio |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| 2 layers, dModel 64, 4 heads, dFF 256 | ${r.batch} × ${r.length} | ${Math.round(r.ours).toLocaleString('en')} (${r.oursMs.toFixed(1)}) | ${Math.round(r.tfjs).toLocaleString('en')} (${r.tfjsMs.toFixed(1)}) | ${r.ratio.toFixed(2)}× |`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await trainingBench((m) => process.stderr.write(`${m}\n`));
  console.log(trainingTable(result));
  const r = result.rows[0];
  console.log(
    `\nLoss over the first 60 steps: attention-wasm ${r.oursLoss.first.toFixed(3)} -> ${r.oursLoss.last.toFixed(3)}, tfjs ${r.tfjsLoss.first.toFixed(3)} -> ${r.tfjsLoss.last.toFixed(3)} nats.`,
  );
}
