// Long-context rows (issue 47 item 5): attention-wasm (one row per key/value cache storage)
// against wllama at its defaults in headless Chromium, on the same GGUF file: a SmolLM2-135M
// shape with 32,768 positions and seeded random weights (bench/wllama-model.js), a prefill of
// 1k, 4k and 16k token ids and greedy tokens after each; prefill time, decode ms/token at that
// context, the cache's bytes and the tab's heap high-water mark. One page per thread count,
// served cross-origin isolated. Prints the table; a full run is recorded into the browser part
// of bench/results/latest.json as browser.longContext, with its own date.
//   node bench/browser-long-context.js [--threads=1,2] [--rounds=3] [--prompts=1024,4096,16384]
//     [--steps=16] [--storage=q8_0] [--kv=float32,bfloat16,q8] [--no-wllama] [--tiny]
//   --tiny: a 2-layer model of 64 (a check that the harness runs; not a measurement), as is
//   BENCH_QUICK=1 (recorded nowhere).
import os from 'node:os';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { launchChromium } from '../tests/helpers/chromium.js';
import { startServer } from '../scripts/server.js';
import { runPage } from './browser-models.js';
import { recordResults, progressWriter } from './results.js';
import { formatBytes } from '../bindings/js/memory.js';
import { LONG_PROMPTS, LONG_STEPS, longModelPath } from './wllama-cases.js';
import { SMOLLM2_135M, smolLmGguf } from './wllama-model.js';

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

/** The long-context model: SmolLM2-135M's shape with 32k positions, or (tiny) 2 layers of 64. */
const LONG_CONFIG = { ...SMOLLM2_135M, max_position_embeddings: 32768 };
const TINY_CONFIG = {
  ...LONG_CONFIG,
  hidden_size: 64,
  intermediate_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 512,
};
const config = tiny ? TINY_CONFIG : LONG_CONFIG;
if (!(rounds >= 1 && steps >= 2 && prompts.every((p) => p >= 1 && p + steps <= config.max_position_embeddings)))
  throw new RangeError(
    `bench/browser-long-context.js: --rounds >= 1, --steps >= 2, every prompt + steps within ${config.max_position_embeddings} positions`,
  );

const path = longModelPath(storage, tiny);
const file = new URL(path, root);
if (!existsSync(file)) {
  progress(
    `writing the ${tiny ? 'tiny' : 'SmolLM2-135M-shaped'} ${storage} GGUF with ${config.max_position_embeddings} positions`,
  );
  mkdirSync(new URL('./', file), { recursive: true });
  const part = new URL(`${file.href}.part`);
  writeFileSync(part, smolLmGguf(storage, { config }));
  renameSync(part, file);
}

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
        options: { path, prompts, steps, rounds, kvDtypes, wllama: withWllama, log: process.env.WLLAMA_LOG === '1' },
      }),
    );
} finally {
  await browser.close();
  server.close();
}
progress('');

/** The table: one row per engine, prompt length and thread count; wllama ÷ ours per row of ours. */
function longContextTable(sessionList) {
  const lines = [
    '| engine | threads | prompt | prefill (ms) | decode (ms/token) | cache | heap high-water | wllama ÷ ours, prefill | wllama ÷ ours, decode |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of sessionList) {
    for (const row of s.rows) {
      const wllama = s.rows.find((r) => r.engine === 'wllama' && r.prompt === row.prompt);
      const ratio = (key) => (wllama && row !== wllama ? `${(wllama[key] / row[key]).toFixed(2)}×` : '');
      const bytes = (b) => (b === null ? '' : formatBytes(b));
      lines.push(
        `| ${row.engine} | ${row.threads} | ${row.prompt} | ${row.prefillMs.toFixed(0)} | ${row.decodeMs.toFixed(1)} | ${bytes(row.cacheBytes)} | ${bytes(row.heapBytes)} | ${ratio('prefillMs')} | ${ratio('decodeMs')} |`,
      );
    }
  }
  return lines.join('\n');
}

const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores`;
const versions = Object.assign({}, ...sessions.map((s) => s.versions));
const shape = `${config.num_hidden_layers} layers × ${config.hidden_size}, ${config.num_attention_heads} heads, ${config.num_key_value_heads} key/value heads, FFN ${config.intermediate_size}, vocabulary ${config.vocab_size}, ${config.max_position_embeddings} positions`;
console.log(
  `Long context in Chromium ${chromiumVersion} (headless, cross-origin isolated): ${tiny ? 'a tiny' : 'a SmolLM2-135M-shaped'} Llama (${shape}), random weights, the same ${storage.toUpperCase()} GGUF file in both engines. A prefill of each prompt's ids, then ${steps} greedy tokens; medians of ${rounds} interleaved rounds after one warm-up run each. Ours per key/value cache storage (kvDtype); wllama at its defaults (context: prompt + steps).${quick ? ' A quick check: NOT a measurement.' : ''}`,
);
console.log(`Machine: ${machine}. ${Object.values(versions).join('; ')}.\n`);
console.log(longContextTable(sessions));

if (!quick) {
  let browserPart = {};
  try {
    browserPart = JSON.parse(readFileSync(new URL('bench/results/latest.json', root), 'utf8')).browser ?? {};
  } catch {
    browserPart = {};
  }
  recordResults('browser', {
    ...browserPart,
    longContext: {
      date: new Date().toISOString(),
      machine,
      runtime: `Chromium ${chromiumVersion}`,
      versions,
      config,
      storage,
      steps,
      rounds,
      sessions,
    },
  });
  console.log('\nWrote bench/results/latest.json (browser.longContext)');
}
