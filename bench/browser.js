// npm run bench:browser: the benchmark where the package runs, in headless Chromium (Debian's
// chromium through playwright-core), the page served cross-origin isolated so both this
// library and onnxruntime-web can use threads. The same cases and checks as `npm run bench`
// (bench/session.js), ours against onnxruntime-web in the same page, one page per thread
// count (1, 2). Prints the table and records the run in bench/results/latest.json
// ("browser" part).
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/server.js';
import { comparisonTable, modelTable, quantizedTable } from './table.js';
import { browserModelSessions, runPage } from './browser-models.js';
import { browserProbeSessions, browserProbeTable } from './browser-probe.js';
import { recordResults, progressWriter } from './results.js';

const progress = progressWriter(process.stderr);
const root = new URL('..', import.meta.url);

// onnx-proto (protobufjs, CommonJS) as one ES module the page can import.
await build({
  stdin: { contents: "export { default } from 'onnx-proto';", resolveDir: root.pathname, loader: 'js' },
  bundle: true,
  format: 'esm',
  outfile: new URL('build/bench/onnx-proto.js', root).pathname,
  logLevel: 'error',
});

const { server, url } = await startServer({
  port: 0,
  served: ['bench', 'bindings', 'dist', 'node_modules', 'build', 'web'],
});
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  // --expose-gc: measureInterleaved starts each runner's turn with a collected heap.
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--js-flags=--expose-gc',
  ],
});
// BENCH_ONLY=models runs the whole-model pages alone (printed, not recorded); BENCH_ONLY=
// quantized, their quantized GPT-2 rows alone. BENCH_QUICK=1: every case timed once, briefly
// (a check that each path runs and the tables print; not a measurement).
const quantizedOnly = process.env.BENCH_ONLY === 'quantized';
const modelsOnly = process.env.BENCH_ONLY === 'models' || quantizedOnly;
const modelOptions = { only: quantizedOnly ? 'quantized' : null, quick: process.env.BENCH_QUICK === '1' };
// BENCH_ONLY=reviews: the review classifier's pages alone (printed, not recorded).
const reviewsOnly = process.env.BENCH_ONLY === 'reviews';
// BENCH_ONLY=probe: the linear probe's pages alone (printed, and recorded into the browser part
// of bench/results/latest.json as browser.probe with its own date); with BENCH_QUICK=1,
// 64 sentences and 2 epochs.
const probeOnly = process.env.BENCH_ONLY === 'probe';
const onlyOne = modelsOnly || reviewsOnly || probeOnly;
const sessions = [];
let models = [];
const reviews = [];
let probe = null;
const chromiumVersion = browser.version();
try {
  for (const threads of onlyOne ? [] : [1, 2])
    sessions.push(await runPage({ browser, url, path: 'bench/browser.html', run: 'runBenchmark', threads, progress }));
  if (!onlyOne || modelsOnly) models = await browserModelSessions({ browser, url, progress, options: modelOptions });
  for (const threads of onlyOne && !reviewsOnly ? [] : [1, 2])
    reviews.push(await runPage({ browser, url, path: 'bench/reviews.html', run: 'runReviews', threads, progress }));
  if (!onlyOne || probeOnly) probe = await browserProbeSessions({ browser, url, progress, quick: modelOptions.quick });
} finally {
  await browser.close();
  server.close();
}
progress('');

const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores`;
if (modelsOnly) {
  printModels();
  process.exit(0);
}
if (reviewsOnly) {
  printReviews();
  process.exit(0);
}
if (probeOnly) {
  printProbe();
  // Recorded into the browser part of the last full run, with its own date and runtime.
  if (!probe.quick) {
    const browserPart = JSON.parse(readFileSync(new URL('results/latest.json', import.meta.url), 'utf8')).browser;
    recordResults('browser', {
      ...browserPart,
      probe: { ...probe, date: new Date().toISOString(), runtime: `Chromium ${chromiumVersion}` },
    });
  }
  process.exit(0);
}
const versions = Object.assign({}, ...sessions.map((s) => s.versions));
console.log(
  `Chromium ${chromiumVersion} (headless), page cross-origin isolated: attention, float32, d = 64; FLOPs = 4·N²·d per head (MHA adds 4 projections of 2·N·dModel²). Time: best per-round median over 8 interleaved rounds after warm-up (a full GC and 30 ms idle before each runner's turn), JS call included. attention-wasm: the ${sessions[0].build} build (what init() loads in Chromium), ${sessions.map((s) => `${s.threads} thread${s.threads > 1 ? 's' : ''}`).join(' and ')}; onnxruntime-web (wasm) with numThreads to match, in the same page.`,
);
console.log(`Machine: ${machine}. ${Object.values(versions).join('; ')}.\n`);
console.log(comparisonTable(sessions));
printModels();
printReviews();
printProbe();

function printProbe() {
  console.log(
    `\nLinear probe (issue 35) in Chromium ${chromiumVersion}: TextClassifier.train(corpus, { encoder }) on the first ${probe.sentences.toLocaleString('en-US')} sentences of the review training split, on the page's main thread, the encoder loaded from the local server: the time to embed them (the encoder's forward and mean pooling; per sentence) and to train the softmax layer. Tokenizer: ${probe.tokenizer}. Random weights: the accuracy is meaningless.${probe.quick ? ' BENCH_QUICK=1: a smoke run, NOT a measurement.' : ''}\n`,
  );
  console.log(browserProbeTable(probe));
}

function printReviews() {
  console.log(
    `\nReview classifier in Chromium ${chromiumVersion}: training the shipped recipe (1,500 steps of 32, on the page's main thread) and predict() per held-out sentence (attention maps included).\n`,
  );
  console.log(
    '| build | threads | training | held-out accuracy (600) | inference per sentence |\n|---|---:|---:|---:|---:|',
  );
  for (const r of reviews)
    console.log(
      `| ${r.build} | ${r.threads} | ${r.seconds.toFixed(1)} s | ${(100 * r.accuracy).toFixed(1)}% | ${r.perSentence.toFixed(2)} ms |`,
    );
}

function printModels() {
  if (models[0].rows.length) printFloatModels();
  console.log(
    `\nWhole models, quantized (issue 34), in Chromium ${chromiumVersion}: the GPT-2-small-shaped weights, run four ways: attention-wasm with loadModel(url, { dtype: 'q8' | 'q4' }) (every matrix quantized at load into GGUF's Q8_0 / Q4_0 blocks), onnxruntime-web on the graphs in transformers.js's q8 form (onnxruntime's quantize_dynamic: int8 weights with one scale per matrix, activations quantized at run time by DynamicQuantizeLinear, MatMulInteger; bench/peers/onnx-quantize.js) and on the float32 graphs. Each is compared with attention-wasm's float32 model (prefill: max |logit difference| / max |logit|; decode: greedy tokens equal to the float model's). Memory bound: weight bytes read per token in each engine's storage (Q8_0 34/32 bytes a weight, Q4_0 18/32, int8 1, float32 4) ÷ the copy bandwidth measured in the same tab.${modelOptions.quick ? ' BENCH_QUICK=1: one short round each, NOT a measurement.' : ''}\n`,
  );
  console.log(quantizedTable(models));
}

function printFloatModels() {
  const load = models[0].load;
  const MB = (b) => (b / 2 ** 20).toFixed(0);
  console.log(
    `\nWhole models in Chromium ${chromiumVersion} (bench/browser-models.js, the same cases as npm run bench, both engines loading their files from the local server): ${models[0].versions['attention-wasm']} against ${models[0].versions['onnxruntime-web']}.`,
  );
  console.log(
    `GPT-2-small shape from the local server into a tab (attn.loadModel(url), download included, 1 thread): ${(load.ms / 1000).toFixed(2)} s; wasm heap ${MB(load.wasmHeapBytes)} MiB for ${MB(load.parameterBytes)} MiB of packed weights (${MB(load.wasmHeapAfterForwardBytes)} MiB after a 128-token forward with logits, ${load.firstForwardMs.toFixed(0)} ms), JS heap +${MB(load.jsHeapBytes)} MiB.\n`,
  );
  console.log(modelTable(models));
}
recordResults('browser', {
  date: new Date().toISOString(),
  machine,
  runtime: `Chromium ${chromiumVersion}`,
  userAgent: sessions[0].userAgent,
  versions,
  sessions: sessions.map(({ threads, build, target, rows }) => ({ threads, build, target, rows })),
  models,
  reviews,
  probe,
});
console.log('\nWrote bench/results/latest.json (browser)');
