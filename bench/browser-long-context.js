// Long-context rows (issue 47 item 5): attention-wasm (one row per key/value cache storage)
// against wllama at its defaults and transformers.js's graphs (its default q8 form; fp32 on
// request) on onnxruntime-web in headless Chromium, on the same weights: the GGUF file, and
// ONNX graphs built from the weights its blocks hold (bench/peers/onnx-llama.js): a SmolLM2-135M
// shape with 32,768 positions and seeded random weights (bench/wllama-model.js), a prefill of
// 1k, 4k and 16k token ids and greedy tokens after each; prefill time, decode ms/token at that
// context, the cache's bytes and the tab's heap high-water mark. One page per thread count,
// served cross-origin isolated. Prints the table; a full run is recorded into the browser part
// of bench/results/latest.json as browser.longContext, with its own date.
//   node bench/browser-long-context.js [--threads=1,2] [--rounds=3] [--prompts=1024,4096,16384]
//     [--steps=16] [--storage=q8_0] [--kv=float32,bfloat16,q8] [--no-wllama]
//     [--transformers=q8[,fp32] | --transformers=none] [--warmup-up-to=4096] [--tiny]
//     [--shape=smollm2-135m|qwen2.5-0.5b] [--layers=N]
//   --warmup-up-to: longer prompts warm up on their first 2,048 tokens only (their first full run
//   is the first timed round).
//   --shape, --layers: another model's sizes, or fewer layers (a capacity check: what fits in the
//   tab's heap at 32k positions); such a run is printed, never recorded.
//   --tiny: a 2-layer model of 64 (a check that the harness runs; not a measurement), as is
//   BENCH_QUICK=1 (recorded nowhere).
import os from 'node:os';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { launchChromium } from '../tests/helpers/chromium.js';
import { startServer } from '../scripts/server.js';
import { runPage } from './browser-models.js';
import { recordResults, progressWriter } from './results.js';
import { longContextTable } from './table.js';
import { LONG_PROMPTS, LONG_STEPS, longModelPath } from './wllama-cases.js';
import { SMOLLM2_135M, TINY_SHAPE, decodeWeightBytes, smolLmGguf, smolLmWeights } from './wllama-model.js';
import { CONFIGS } from './real-shape-models.js';
import { llamaModel } from './peers/onnx-llama.js';

const progress = progressWriter(process.stderr);
const root = new URL('..', import.meta.url);
const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const flag = (name) => process.argv.includes(`--${name}`);
const tiny = flag('tiny');
const quick = tiny || process.env.BENCH_QUICK === '1';
const list = (text) => text.split(',').filter(Boolean);
const threadCounts = list(option('threads') ?? '1,2').map(Number);
const prompts = list(option('prompts') ?? LONG_PROMPTS.join(',')).map(Number);
const steps = Number(option('steps') ?? LONG_STEPS);
const rounds = Number(option('rounds') ?? 3);
const storage = option('storage') ?? 'q8_0';
const kvDtypes = list(option('kv') ?? 'float32,bfloat16,q8');
const withWllama = !flag('no-wllama');
const warmupUpTo = Number(option('warmup-up-to') ?? Infinity);
// As the page and the results take it (Infinity does not survive JSON): null = warm every prompt.
const warmupLimit = Number.isFinite(warmupUpTo) ? warmupUpTo : null;
const onnxForms = list(option('transformers') ?? 'q8').filter((f) => f !== 'none');
if (!onnxForms.every((f) => f === 'q8' || f === 'fp32'))
  throw new RangeError('bench/browser-long-context.js: --transformers takes q8, fp32 or none');

/** The long-context model: SmolLM2-135M's shape with 32k positions, or (tiny) 2 layers of 64. */
const LONG_CONFIG = { ...SMOLLM2_135M, max_position_embeddings: 32768 };
const TINY_CONFIG = { ...LONG_CONFIG, ...TINY_SHAPE };
// Qwen2.5-0.5B's sizes as a Llama (the GGUF writer's kind: its q/k/v biases left out, which
// cost nothing at long context): the 32k-position shape of issue 47's capacity check.
const SIZE_KEYS = Object.keys(SMOLLM2_135M);
const QWEN_SIZES = Object.fromEntries(SIZE_KEYS.map((key) => [key, CONFIGS['Qwen2.5-0.5B'][key]]));
const SHAPES = { 'smollm2-135m': LONG_CONFIG, 'qwen2.5-0.5b': QWEN_SIZES };
const shapeName = option('shape') ?? 'smollm2-135m';
if (!SHAPES[shapeName] || (tiny && option('shape')))
  throw new RangeError(
    `bench/browser-long-context.js: --shape takes ${Object.keys(SHAPES).join(' or ')} (not with --tiny)`,
  );
const layers = Number(option('layers') ?? SHAPES[shapeName].num_hidden_layers);
if (!(Number.isInteger(layers) && layers >= 1))
  throw new RangeError('bench/browser-long-context.js: --layers takes a whole number of at least 1');
// A run of another shape or layer count checks capacity: printed, never recorded.
const capacityCheck = option('shape') !== undefined || option('layers') !== undefined;
const config = tiny ? TINY_CONFIG : { ...SHAPES[shapeName], num_hidden_layers: layers };
const modelName = tiny
  ? 'a tiny'
  : `a ${layers}-layer ${shapeName === 'qwen2.5-0.5b' ? 'Qwen2.5-0.5B' : 'SmolLM2-135M'}-shaped`;
if (!(rounds >= 1 && steps >= 2 && prompts.every((p) => p >= 1 && p + steps <= config.max_position_embeddings)))
  throw new RangeError(
    `bench/browser-long-context.js: --rounds >= 1, --steps >= 2, every prompt + steps within ${config.max_position_embeddings} positions`,
  );

const path = capacityCheck
  ? `build/bench/models/wllama/${shapeName}-${layers}-layers-long-${storage}.gguf`
  : longModelPath(storage, tiny);
const file = new URL(path, root);
if (!existsSync(file)) {
  progress(`writing ${modelName} ${storage} GGUF with ${config.max_position_embeddings} positions`);
  mkdirSync(new URL('./', file), { recursive: true });
  const part = new URL(`${file.href}.part`);
  writeFileSync(part, smolLmGguf(storage, { config }));
  renameSync(part, file);
}

// transformers.js's graphs of the same weights (those the GGUF's blocks hold), per form.
const onnx = {};
let weights = null;
for (const form of onnxForms) {
  const files = {};
  for (const graph of ['prefill', 'decode']) {
    const at = path.replace(/\.gguf$/, `-${graph}${form === 'q8' ? '-q8' : ''}.onnx`);
    files[graph] = at;
    if (existsSync(new URL(at, root))) continue;
    progress(`writing transformers.js's ${form} ${graph} graph`);
    weights ??= smolLmWeights(storage, { config });
    const part = new URL(`${new URL(at, root).href}.part`);
    writeFileSync(part, llamaModel(config, weights, { decode: graph === 'decode', q8: form === 'q8' }));
    renameSync(part, new URL(at, root));
  }
  onnx[form] = files;
}
weights = null;

const { server, url } = await startServer({ port: 0, served: ['bench', 'bindings', 'dist', 'node_modules', 'build'] });
const browser = await launchChromium(['--disable-sync', '--js-flags=--expose-gc']);
const sessions = [];
const chromiumVersion = browser.version();
try {
  for (const threads of threadCounts)
    sessions.push(
      await runPage({
        browser,
        url,
        path: 'bench/long-context.html',
        run: 'runLongContext',
        threads,
        progress,
        options: {
          path,
          prompts,
          steps,
          rounds,
          kvDtypes,
          wllama: withWllama,
          onnx,
          warmupUpTo: warmupLimit,
          log: process.env.WLLAMA_LOG === '1',
        },
      }),
    );
} finally {
  await browser.close();
  server.close();
}
progress('');

// Each of our rows' decode bound: the bytes a token reads (every weight in the file's storage,
// and the whole key/value cache) ÷ the tab's copy bandwidth; each row dated (a run of some
// prompt lengths keeps the recorded rows of the others).
const weightBytes = decodeWeightBytes(storage, config);
const date = new Date().toISOString();
for (const s of sessions)
  for (const row of s.rows) {
    row.date = date;
    if (row.engine.startsWith('attention-wasm') && row.cacheBytes && s.bandwidth)
      row.boundMs = ((weightBytes + row.cacheBytes) / s.bandwidth) * 1000;
  }

const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores`;
const versions = Object.assign({}, ...sessions.map((s) => s.versions));
const shape = `${config.num_hidden_layers} layers × ${config.hidden_size}, ${config.num_attention_heads} heads, ${config.num_key_value_heads} key/value heads, FFN ${config.intermediate_size}, vocabulary ${config.vocab_size}, ${config.max_position_embeddings} positions`;
console.log(
  `Long context in Chromium ${chromiumVersion} (headless, cross-origin isolated): ${modelName} Llama (${shape}), random weights, the same ${storage.toUpperCase()} GGUF file in ours and wllama${onnxForms.length ? `, and transformers.js's ${onnxForms.join(' and ')} graphs of the weights its blocks hold (bench/peers/onnx-llama.js: optimum's export, logits of every position; q8: quantize_dynamic's int8) on onnxruntime-web` : ''}. A prefill of each prompt's ids, then ${steps} greedy tokens; medians of ${rounds} interleaved rounds after one warm-up run each${Number.isFinite(warmupUpTo) ? ` (past ${warmupUpTo} tokens one warm-up run each on the prompt's first 2,048 tokens, and the first full run is the first round)` : ''}. Ours per key/value cache storage (kvDtype); wllama at its defaults (context: prompt + steps). Heap: the tab's wasm heap high-water mark of ours; cache: the key/value bytes after the last token.${quick ? ' A quick check: NOT a measurement.' : ''}${capacityCheck ? ' A capacity check (another shape or layer count): not recorded.' : ''}`,
);
console.log(
  `Machine: ${machine}. ${Object.values(versions).join('; ')}. Copy bandwidth in the tab: ${sessions.map((s) => `${(s.bandwidth / 1e9).toFixed(1)} GB/s at ${s.threads} thread${s.threads > 1 ? 's' : ''}`).join(', ')}; bound = (${(weightBytes / 2 ** 20).toFixed(1)} MiB of weights + the cache) ÷ that bandwidth.\n`,
);
console.log(longContextTable(sessions));

if (!quick && !capacityCheck) {
  let browserPart = {};
  try {
    browserPart = JSON.parse(readFileSync(new URL('bench/results/latest.json', root), 'utf8')).browser ?? {};
  } catch {
    browserPart = {};
  }
  const merged = mergedSessions(browserPart.longContext, sessions);
  recordResults('browser', {
    ...browserPart,
    longContext: {
      date,
      machine,
      runtime: `Chromium ${chromiumVersion}`,
      // every engine's whose rows are kept (a run of ours alone keeps the peers' rows and versions)
      versions: Object.assign({}, ...merged.map((s) => s.versions)),
      config,
      storage,
      steps,
      rounds,
      warmupUpTo: warmupLimit,
      weightBytes,
      sessions: merged,
    },
  });
  console.log('\nWrote bench/results/latest.json (browser.longContext)');
}

/**
 * The recorded sessions with this run's rows in place of those of the same thread count, prompt
 * length and engine (a run of 16k alone keeps the recorded 1k and 4k rows, a run of one engine
 * the others', each with its date and rounds); a recorded run of another model or storage is
 * dropped whole.
 */
function mergedSessions(recorded, fresh) {
  const same =
    recorded &&
    recorded.storage === storage &&
    JSON.stringify(recorded.config) === JSON.stringify(config) &&
    recorded.steps === steps;
  const merged = same ? recorded.sessions.map((s) => ({ ...s, rows: [...s.rows] })) : [];
  for (const s of fresh) {
    const at = merged.find((m) => m.threads === s.threads);
    if (!at) {
      merged.push(s);
      continue;
    }
    const measured = new Set(s.rows.map((r) => `${r.engine} @ ${r.prompt}`));
    const kept = at.rows.filter((r) => !measured.has(`${r.engine} @ ${r.prompt}`));
    Object.assign(at, s, {
      versions: { ...at.versions, ...s.versions },
      rows: [...kept, ...s.rows].sort((a, b) => a.prompt - b.prompt || engineOrder(a) - engineOrder(b)),
    });
  }
  return merged.sort((a, b) => a.threads - b.threads);
}

// Ours (per cache storage, in kvDtypes' order), then wllama, then transformers.js: the table's order.
function engineOrder(row) {
  if (row.engine.startsWith('attention-wasm'))
    return ['float32', 'bfloat16', 'q8', 'float16'].indexOf(row.engine.split(' ').at(-1));
  return row.engine === 'wllama' ? 10 : 20;
}
