// Do the small open models of 2026 fit the 4 GiB wasm heap? Each row is a checkpoint with the
// exact config.json of a Hub model (bench/real-shape-models.js) and seeded random BF16 weights
// of its exact shapes and names, loaded from memory as loadModel loads any checkpoint; then a
// 16-token prefill and 8 cached decode steps. Prints a table: weights in the file, the wasm
// heap the model holds, load time, prefill and decode time, or the RangeError that refused it.
//   node --expose-gc bench/real-shapes.js [--dtype=q8|q4] [name ...]
// (--dtype: loadModel's dtype; quantized, every matrix and the word embeddings are blocks.)
// The same in a Chromium tab: bench/browser-real-shapes.js.
import { init } from 'attention-wasm';
import { CONFIGS, tensorsOf, safetensorsOf, measureRealShape, realShapeTable } from './real-shape-models.js';

const MiB = 2 ** 20;
const attn = await init({ threads: 1 });
const args = process.argv.slice(2);
const dtype = args.find((a) => a.startsWith('--dtype='))?.slice('--dtype='.length) ?? 'auto';
const picked = args.filter((a) => !a.startsWith('--'));
const names = picked.length ? picked : Object.keys(CONFIGS);
const rows = [];
for (const name of names) {
  const config = CONFIGS[name];
  const file = safetensorsOf(tensorsOf(config));
  rows.push(
    await measureRealShape(attn, name, { 'config.json': config, 'model.safetensors': file }, dtype, file.length),
  );
  globalThis.gc?.();
}
console.log(realShapeTable(rows));
console.log(
  `(wasm heap: at most ${(attn.memory().heapMaxBytes / MiB).toFixed(0)} MiB; random BF16 weights of each model's exact shapes, dtype '${dtype}', 1 thread)`,
);
