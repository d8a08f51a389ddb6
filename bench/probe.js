// The linear probe's benchmark (issue 35, item 3), run by `npm run bench` (bench/run.js) or
// alone: `node bench/probe.js [encoder folder, URL or Hub id] [--sentences N] [--epochs E]`.
// TextClassifier.train(corpus, { encoder }) on N review sentences (the UCI training split,
// in its order; default 2,000): the time to embed them (per sentence: the encoder's forward
// and pooling) and the time to train the softmax layer, with one and two threads; then the
// probe's accuracy on the held-out sentences. The default encoder is the tiny BERT fixture
// (tests/fixtures/hf/tiny-bert: random weights, 32 wide, a 55-token vocabulary), which times
// the mechanics only: its accuracy says nothing about a real encoder's. Prints a markdown table.
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { reviewSplits } from '../web/elements/training/review-recipe.js';
import { readReviewFiles } from '../scripts/review-training.mjs';
import { encoderShape, timeProbe } from './probe-timing.js';

export const FIXTURE_ENCODER = fileURLToPath(new URL('../tests/fixtures/hf/tiny-bert', import.meta.url));

/**
 * Runs the benchmark; returns { encoder, sentences, epochs, rows: [{ runtime, embedMs (per
 * sentence), trainSeconds, accuracy, heldOut }] }.
 */
export async function probeBench(
  progress = () => {},
  { encoder: source = FIXTURE_ENCODER, sentences = 2000, epochs = 30 } = {},
) {
  const { train, heldOut } = reviewSplits(readReviewFiles().uci);
  const corpus = train.slice(0, sentences);
  const held = Object.values(heldOut).flat();
  const rows = [];
  let shape = null;
  for (const threads of [1, 2]) {
    const attn = await init(threads === 1 ? { simd: 'baseline', threads: 1 } : { threads: 2 });
    const encoder = await attn.loadModel(source);
    shape = encoderShape(encoder);
    progress(`probe: ${corpus.length} sentences on ${shape}, ${attn.info.threads} thread(s)`);
    const { probe, embedMs, trainSeconds } = await timeProbe(attn, corpus, { encoder, epochs });
    rows.push({
      runtime: `Node ${process.version}, ${attn.info.build} build, ${attn.info.threads} thread${attn.info.threads > 1 ? 's' : ''}`,
      embedMs,
      trainSeconds,
      accuracy: probe.evaluate(held).accuracy,
      heldOut: held.length,
    });
    probe.dispose();
    encoder.dispose();
  }
  return { encoder: typeof source === 'string' ? source : 'given', shape, sentences: corpus.length, epochs, rows };
}

/** The markdown table. */
export function probeTable({ shape, sentences, epochs, rows }) {
  const lines = [
    `| linear probe on ${shape} | embedding, per sentence | training the head (${sentences.toLocaleString('en-US')} sentences, ${epochs} epochs) | held-out accuracy |`,
    '|---|---:|---:|---:|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.runtime} | ${r.embedMs.toFixed(3)} ms | ${r.trainSeconds.toFixed(2)} s | ${(100 * r.accuracy).toFixed(1)}% of ${r.heldOut} |`,
    );
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (name, fallback) => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args.splice(at, 2)[1]) : fallback;
  };
  const sentences = flag('--sentences', 2000);
  const epochs = flag('--epochs', 30);
  const encoder = args[0] ?? FIXTURE_ENCODER;
  const result = await probeBench((line) => process.stderr.write(`${line}\n`), { encoder, sentences, epochs });
  console.log(`Linear probe (TextClassifier.train with an encoder), encoder ${result.encoder}:\n`);
  console.log(probeTable(result));
}
