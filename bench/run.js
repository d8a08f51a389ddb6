// npm run bench: attention-wasm vs plain JS vs tfjs-backend-wasm vs onnxruntime-web in Node,
// at one thread and at two (attention-wasm's threaded build and onnxruntime-web's
// numThreads = 2; plain JS and tfjs-backend-wasm run one thread). Each thread count is a
// child process (bench/node-session.js); every result is checked against a float64
// reference before it is timed. Prints markdown tables (stdout), progress (stderr), and
// records the run in bench/results/latest.json (its "node" part; bench/browser.js writes
// the "browser" part).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { init } from 'attention-wasm';
import { attentionInputs, checkAttention } from './cases.js';
import { comparisonTable, modelTable, quantizedTable } from './table.js';
import { recordResults, progressWriter } from './results.js';
import { trainingBench, trainingTable } from './training.js';
import { reviewBench, reviewTables } from './reviews.js';
import { probeBench, probeTable } from './probe.js';
import { windowBench, windowTable } from './window.js';

const progress = progressWriter(process.stderr);

// Runs one session in a child process (node-session.js, or models.js for whole models); its
// progress lines come through ours.
function session(threads, script = './node-session.js') {
  return new Promise((resolve, reject) => {
    // --expose-gc: measureInterleaved starts each runner's turn with a collected heap.
    const child = spawn(
      process.execPath,
      ['--expose-gc', fileURLToPath(new URL(script, import.meta.url)), String(threads)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const lines = err.split('\n');
      err = lines.pop();
      for (const line of lines) progress(line);
    });
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`bench session (${threads} threads) failed: ${err}`)),
    );
  });
}

// Wasm heap for N = 4096 without weights, in a fresh instance: how far the high-water mark
// rises beyond the inputs and the output.
async function memoryRow() {
  const { readFile } = await import('node:fs/promises');
  const attn = await init({ wasmBinary: await readFile(new URL('../dist/attention.wasm', import.meta.url)) });
  const c = { heads: 1, n: 4096, d: 64 };
  const inputs = attentionInputs(c);
  const t = (data) => ({ data, shape: [c.n, c.d] });
  const before = attn.memory();
  const out = attn.attention(t(inputs.q), t(inputs.k), t(inputs.v)).output.data;
  checkAttention(c, inputs, out, 'N=4096 memory run');
  const after = attn.memory();
  const ioBytes = 4 * c.n * c.d * 4;
  return {
    n: c.n,
    d: c.d,
    ioBytes,
    peakRiseBytes: after.peakBytes - before.peakBytes,
    scratchBytes: after.peakBytes - before.peakBytes - ioBytes,
    heapBytes: after.heapBytes,
    scoreMatrixBytes: c.n * c.n * 4,
  };
}

// The same for the attention backward at N = 4096: dq, dk, dv from q, k, v, dOut with no
// N × N buffer (FlashAttention-2's recipe, scores recomputed row by row).
async function backwardMemoryRow() {
  const { readFile } = await import('node:fs/promises');
  const attn = await init({ wasmBinary: await readFile(new URL('../dist/attention.wasm', import.meta.url)) });
  const c = { heads: 1, n: 4096, d: 64 };
  const inputs = attentionInputs(c);
  const t = (data) => ({ data, shape: [c.n, c.d] });
  const before = attn.memory();
  const started = performance.now();
  attn.attentionBackward(t(inputs.q), t(inputs.k), t(inputs.v), t(new Float32Array(inputs.v)));
  const ms = performance.now() - started;
  const after = attn.memory();
  const ioBytes = 7 * c.n * c.d * 4; // q, k, v, dOut in; dq, dk, dv out
  return {
    n: c.n,
    d: c.d,
    ms,
    ioBytes,
    peakRiseBytes: after.peakBytes - before.peakBytes,
    scratchBytes: after.peakBytes - before.peakBytes - ioBytes,
    scoreMatrixBytes: c.n * c.n * 4,
  };
}

const MiB = (b) => (b / 2 ** 20).toFixed(2);

// BENCH_ONLY=models runs the whole-model sessions alone, BENCH_ONLY=quantized their quantized
// GPT-2 rows alone (printed, not recorded); BENCH_QUICK=1 times every case once, briefly (a
// check that each path runs and the tables print; not a measurement).
if (process.env.BENCH_ONLY === 'models' || process.env.BENCH_ONLY === 'quantized') {
  const models = [];
  for (const threads of [1, 2]) models.push(await session(threads, './models.js'));
  progress('');
  if (models[0].rows.length) printModels(models);
  printQuantized(models);
  process.exit(0);
}

const sessions = [];
for (const threads of [1, 2]) sessions.push(await session(threads));
progress('memory at N=4096');
const memory = await memoryRow();
progress('memory of the attention backward at N=4096');
const backwardMemory = await backwardMemoryRow();
const slidingWindow = await windowBench(progress);
const training = await trainingBench(progress);
const models = [];
for (const threads of [1, 2]) models.push(await session(threads, './models.js'));
const reviews = await reviewBench(progress);
const probe = await probeBench(progress);
progress('');

const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}`;
const versions = Object.assign({}, ...sessions.map((s) => s.versions), training.versions);
console.log(
  `Node: attention, float32, d = 64; FLOPs = 4·N²·d per head (MHA adds 4 projections of 2·N·dModel²). Time: best per-round median over 8 interleaved rounds after warm-up, a full GC and 30 ms idle before each runner's turn (plain JS: median of 3), JS call included (inputs from and outputs to JS arrays). attention-wasm: the ${sessions[0].build} build (what init() loads in Node), ${sessions.map((s) => `${s.threads} thread${s.threads > 1 ? 's' : ''}`).join(' and ')}; onnxruntime-web with numThreads to match; plain JS and tfjs-backend-wasm one thread.`,
);
console.log(`Machine: ${machine}. ${Object.values(versions).join('; ')}.\n`);
console.log(comparisonTable(sessions));
console.log(
  `\nWasm heap, N = ${memory.n}, d = ${memory.d}, no weights requested: high-water mark rose ${MiB(memory.peakRiseBytes)} MiB for ${MiB(memory.ioBytes)} MiB of inputs and output (scratch ${MiB(memory.scratchBytes)} MiB; an N×N score matrix alone would be ${MiB(memory.scoreMatrixBytes)} MiB). Heap size ${MiB(memory.heapBytes)} MiB.`,
);
console.log(
  `Attention backward, N = ${backwardMemory.n}, d = ${backwardMemory.d}: high-water mark rose ${MiB(backwardMemory.peakRiseBytes)} MiB for ${MiB(backwardMemory.ioBytes)} MiB of q, k, v, dOut, dq, dk, dv (scratch ${MiB(backwardMemory.scratchBytes)} MiB; an N×N matrix would be ${MiB(backwardMemory.scoreMatrixBytes)} MiB); ${backwardMemory.ms.toFixed(0)} ms.`,
);
console.log(
  '\nSliding-window attention (issue 22): causal, one head, N = 4096, d = 64, full against a window of w keys before each query (window: { left: w }); out reused; median of at least 5 calls and 1.5 s. The time should follow the visible (query, key) pairs.\n',
);
console.log(windowTable(slidingWindow));
console.log(
  '\nTraining, Node, one thread: forward + backward + optimizer per step on the reverse task (attention-wasm: TinyTransformer.trainStep with AdamW, one wasm call; tfjs: the same model in tfjs-core ops, autodiff and Adam). Median tokens/s of 5 timed windows after both are seen learning.\n',
);
console.log(trainingTable(training));

printModels(models);
printQuantized(models);
console.log(
  '\nReview classifier (issue 20): accuracy on real review sentences it never trained on (UCI Sentiment Labelled Sentences, held-out 20% per source, seed 2026; "never trained on": trained on the other two sources), beside a word list and a bag-of-words logistic regression on the same splits; then training and inference time; then the shipped model\'s calibration (issue 35): expected calibration error and NLL on the held-out sentences, from its raw logits and divided by its temperature.\n',
);
console.log(reviewTables(reviews));
console.log(
  `\nLinear probe (issue 35): TextClassifier.train(corpus, { encoder }) on the first ${probe.sentences.toLocaleString('en-US')} sentences of the review training split: the time to embed them (the encoder's forward, mean pooling; per sentence) and to train the softmax layer (${probe.epochs} epochs of AdamW, batches of 32), on the tiny BERT fixture (random weights: the accuracy says nothing; \`node bench/probe.js <folder or Hub id>\` times a real encoder).\n`,
);
console.log(probeTable(probe));

recordResults('node', {
  date: new Date().toISOString(),
  machine,
  runtime: `Node ${process.version}`,
  versions,
  sessions: sessions.map(({ threads, build, target, rows }) => ({ threads, build, target, rows })),
  memory,
  backwardMemory,
  slidingWindow,
  training: training.rows,
  models,
  reviews,
  probe,
});
console.log('\nWrote bench/results/latest.json (node)');

function printModels(models) {
  console.log(
    `\nWhole models, Node: attention-wasm (${models[0].versions['attention-wasm']}) loading a Hugging Face-layout checkpoint (config.json + model.safetensors) against ${models[0].versions['onnxruntime-web']} running ONNX graphs built from the same random weights (bench/peers/onnx-models.js; graph optimisation 'all'); outputs compared first (max |difference| / max |value| below 1e-3; the same greedy tokens). Prefill: best of 5 interleaved rounds' medians; decode: best of 5 runs of 32 greedy tokens after a 128-token prompt, each new token attending over the cache. Memory bound of decoding: the ${(models[0].rows[2].weightBytes / 2 ** 20).toFixed(0)} MiB of weights read per token ÷ the copy bandwidth measured in the same process (a 256 MiB Float32Array.set, which reads and writes each byte). The bfloat16 rows: the same random weights rounded to bfloat16 and saved as BF16, which attention-wasm keeps as bfloat16 panels (half the bytes, the same sums) and onnxruntime-web runs as float32 (it has no bfloat16 MatMul in wasm).\n`,
  );
  console.log(modelTable(models));
}

function printQuantized(models) {
  console.log(
    `\nWhole models, quantized (issue 34), Node: the GPT-2-small-shaped weights of the float rows, run four ways: attention-wasm with loadModel(files, { dtype: 'q8' | 'q4' }) (every matrix quantized at load into GGUF's Q8_0 / Q4_0 blocks), onnxruntime-web on the graphs in transformers.js's q8 form (onnxruntime's quantize_dynamic: int8 weights with one scale per matrix, activations quantized at run time by DynamicQuantizeLinear, MatMulInteger; bench/peers/onnx-quantize.js) and on the float32 graphs. None computes the float model's numbers: each is compared with attention-wasm's float32 model instead (prefill: max |logit difference| / max |logit|; decode: greedy tokens equal to the float model's, of ${models[0].quantized.find((r) => r.unit === 'ms/token').steps}). Memory bound: weight bytes read per token in each engine's storage (Q8_0 34/32 bytes a weight, Q4_0 18/32, int8 1, float32 4) ÷ the copy bandwidth measured in the same process.${process.env.BENCH_QUICK === '1' ? ' BENCH_QUICK=1: one short round each, NOT a measurement.' : ''}\n`,
  );
  console.log(quantizedTable(models));
}
