// attention-wasm against wllama (llama.cpp compiled to wasm, @wllama/wllama) in headless
// Chromium, on the same GGUF files (issue 34): a SmolLM2-135M-shaped Llama with seeded random
// weights in Q8_0 and Q4_0 (bench/wllama-model.js, written once under build/bench/models/wllama/),
// a prefill of 128 token ids and 32 greedy tokens, one page per thread count (1, 2), the page
// served cross-origin isolated so both engines can use threads. Prints the table; a full run
// (not BENCH_QUICK=1) is recorded into the browser part of bench/results/latest.json as
// browser.wllama, with its own date.
//   node bench/browser-wllama.js [--threads=1,2] [--rounds=5] [--storages=q8_0,q4_0]
//   BENCH_QUICK=1: 3 rounds (a check that both engines run and the table prints; not a measurement)
//   WLLAMA_LOG=1: llama.cpp's own log lines (model and context as it sees them) on stderr
import os from 'node:os';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { launchChromium } from '../tests/helpers/chromium.js';
import { startServer } from '../scripts/server.js';
import { runPage } from './browser-models.js';
import { recordResults, progressWriter } from './results.js';
import { wllamaTable } from './table.js';
import { STORAGES, PROMPT, STEPS, modelPath } from './wllama-cases.js';
import { smolLmGguf } from './wllama-model.js';

const progress = progressWriter(process.stderr);
const root = new URL('..', import.meta.url);
const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = process.env.BENCH_QUICK === '1';
const threadCounts = (option('threads') ?? '1,2').split(',').map(Number);
const storages = (option('storages') ?? STORAGES.join(',')).split(',');
if (!storages.every((s) => STORAGES.includes(s)))
  throw new RangeError(`bench/browser-wllama.js: --storages must list some of ${STORAGES.join(', ')}`);
const rounds = Number(option('rounds') ?? (quick ? 3 : 5));
if (!(rounds >= 3)) throw new RangeError('bench/browser-wllama.js: --rounds must be 3 or more (medians of 3 at least)');

// The files, written once (through a .part file: a run cut short leaves no half file behind).
for (const storage of storages) {
  const file = new URL(modelPath(storage), root);
  if (existsSync(file)) continue;
  progress(`writing the SmolLM2-135M-shaped ${storage} GGUF (quantizing 135 M weights, about a minute)`);
  mkdirSync(new URL('./', file), { recursive: true });
  const part = new URL(`${file.href}.part`);
  writeFileSync(part, smolLmGguf(storage));
  renameSync(part, file);
}

const { server, url } = await startServer({ port: 0, served: ['bench', 'bindings', 'dist', 'node_modules', 'build'] });
// --expose-gc: each turn starts with a collected heap, as measureInterleaved's do.
const browser = await launchChromium(['--disable-sync', '--js-flags=--expose-gc']);
const sessions = [];
const chromiumVersion = browser.version();
try {
  for (const threads of threadCounts)
    sessions.push(
      await runPage({
        browser,
        url,
        path: 'bench/wllama.html',
        run: 'runWllama',
        threads,
        progress,
        options: { storages, rounds, log: process.env.WLLAMA_LOG === '1' },
      }),
    );
} finally {
  await browser.close();
  server.close();
}
progress('');

const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores`;
const versions = Object.assign({}, ...sessions.map((s) => s.versions));
console.log(
  `attention-wasm against wllama in Chromium ${chromiumVersion} (headless, the page cross-origin isolated): a SmolLM2-135M-shaped Llama (30 layers × 576, 9 heads, 3 key/value heads, FFN 1536, vocabulary 49,152, tied embeddings), random weights, the same GGUF file in both engines (${storages.join(', ')}: every matrix and the embeddings in those blocks, the norms F32). Prefill of ${PROMPT} token ids, then ${STEPS} greedy tokens; medians of ${rounds} interleaved rounds after one warm-up run each. Ours: model.generate, prefill = the call to its first token, decode = first to last token ÷ ${STEPS - 1}. wllama: createCompletion with the ids as the prompt (prompt cache off), llama.cpp's own timings: prefill = prompt_ms, decode = predicted_ms ÷ (predicted_n − 1).${quick ? ' BENCH_QUICK=1: NOT a measurement.' : ''}`,
);
console.log(`Machine: ${machine}. ${Object.values(versions).join('; ')}.\n`);
console.log(wllamaTable(sessions));

if (!quick) {
  // Recorded into the browser part of the last full run, with its own date and runtime.
  let browserPart = {};
  try {
    browserPart = JSON.parse(readFileSync(new URL('bench/results/latest.json', root), 'utf8')).browser ?? {};
  } catch {
    browserPart = {};
  }
  recordResults('browser', {
    ...browserPart,
    wllama: {
      date: new Date().toISOString(),
      machine,
      runtime: `Chromium ${chromiumVersion}`,
      versions,
      rounds,
      sessions,
    },
  });
  console.log('\nWrote bench/results/latest.json (browser.wllama)');
}
