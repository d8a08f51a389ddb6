// Do the 1B-class open models run in a browser tab? (issue 34: "a Llama-3.2-1B-shaped Q4 model
// loads in a Chromium tab, generates, and reports its heap; TinyLlama-1.1B-shaped Q8_0 too").
// Writes each checkpoint of bench/real-shape-models.js (exact config.json, seeded random BF16
// weights of the exact shapes) once under build/bench/models/real-shapes/, serves it, and in a
// fresh headless Chromium tab per model loads it by URL with the dtype asked, then a 16-token
// prefill and 8 cached decode steps. Prints a markdown table. The dtype q4_k_m writes the model
// as llama.cpp's Q4_K_M GGUF file instead (bench/real-shape-gguf.js; Llama-layout models whose
// sizes are K-quant blocks) and loads it with dtype 'auto': its own Q4_K and Q6_K blocks.
//   node bench/browser-real-shapes.js [--threads=N] [name:dtype ...]
// (default: Llama-3.2-1B:q4 Llama-3.2-1B:q4_k_m TinyLlama-1.1B:q8 Gemma-3-1B:q4, 2 threads)
import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/server.js';
import { runPage } from './browser-models.js';
import { CONFIGS, tensorsOf, safetensorsOf, realShapeTable } from './real-shape-models.js';
import { writeQ4KMGguf } from './real-shape-gguf.js';

const args = process.argv.slice(2);
const threads = Number(args.find((a) => a.startsWith('--threads='))?.slice(10) ?? 2);
const picked = args.filter((a) => !a.startsWith('--'));
const defaults = ['Llama-3.2-1B:q4', 'Llama-3.2-1B:q4_k_m', 'TinyLlama-1.1B:q8', 'Gemma-3-1B:q4'];
const cases = (picked.length ? picked : defaults).map((c) => {
  const [name, dtype = 'auto'] = c.split(':');
  if (!CONFIGS[name]) throw new Error(`unknown model ${name} (one of ${Object.keys(CONFIGS).join(', ')})`);
  return { name, dtype };
});
const progress = (line) => process.stderr.write(`${line}\n`);

// The checkpoint's folder, written once (model.safetensors last: a folder cut short is redone).
function writeCheckpoint(name) {
  const folder = new URL(`../build/bench/models/real-shapes/${name}/`, import.meta.url);
  const weights = new URL('model.safetensors', folder);
  if (!existsSync(weights)) {
    progress(`${name}: writing the checkpoint`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(new URL('config.json', folder), JSON.stringify(CONFIGS[name]));
    // In pieces: one write of more than 2 GiB is refused.
    const bytes = safetensorsOf(tensorsOf(CONFIGS[name]));
    const part = new URL('model.safetensors.part', folder);
    const fd = openSync(part, 'w');
    for (let at = 0; at < bytes.length; at += 2 ** 30) writeSync(fd, bytes.subarray(at, at + 2 ** 30));
    closeSync(fd);
    renameSync(part, weights);
  }
  return statSync(weights).size;
}

// The model as a Q4_K_M GGUF file beside it, written once: its name and bytes.
function writeGguf(name) {
  const folder = new URL(`../build/bench/models/real-shapes/${name}/`, import.meta.url);
  const file = new URL('model-Q4_K_M.gguf', folder);
  if (!existsSync(file)) {
    progress(`${name}: writing the Q4_K_M GGUF file`);
    mkdirSync(folder, { recursive: true });
    const part = new URL('model-Q4_K_M.gguf.part', folder);
    const { types } = writeQ4KMGguf(part, CONFIGS[name]);
    progress(`${name}: tensors ${JSON.stringify(types)}`);
    renameSync(part, file);
  }
  return statSync(file).size;
}

const { server, url } = await startServer({ port: 0, served: ['bench', 'bindings', 'dist', 'node_modules', 'build'] });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const rows = [];
try {
  for (const { name, dtype } of cases) {
    const gguf = dtype === 'q4_k_m';
    const fileBytes = gguf ? writeGguf(name) : writeCheckpoint(name);
    // The loader asks for the optional files (tokenizer.json, …) these checkpoints lack: 404s.
    rows.push(
      await runPage({
        browser,
        url,
        path: 'bench/real-shapes.html',
        run: 'runRealShape',
        threads,
        progress,
        ignore: /status of 404/,
        options: gguf ? { name, dtype: 'auto', fileBytes, file: 'model-Q4_K_M.gguf' } : { name, dtype, fileBytes },
      }),
    );
  }
} finally {
  await browser.close();
  server.close();
}
const version = browser.version();
console.log(realShapeTable(rows));
console.log(
  `(Chromium ${version}, one fresh tab per model, loaded by URL from a local server; random BF16 weights of each model's exact shapes, or random Q4_K_M blocks in a GGUF file loaded with dtype 'auto'; peak heap: the wasm heap's high-water mark, of 4,096 MiB)`,
);
