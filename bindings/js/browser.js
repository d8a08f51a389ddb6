// Browser (and bundler) entry: each build's glue fetches its wasm next to itself
// (new URL('attention.wasm', import.meta.url)), which Vite and webpack 5 also resolve. A
// page fetches one build only: the glue of the other is never imported.
import { checkInitOptions } from './options.js';
import { copyBytes, checkWasmBytes, instantiate, buildName } from './load.js';
import { chooseVariant, variantForBytes, isThreadedBytes } from './variants.js';
import { planThreads, browserThreadSupport } from './threads.js';
import { rangeError } from './errors.js';

const defaultInstances = new Map();  // build and thread count → Promise of the API

// The API over caller-given bytes: the build they are is read from the bytes.
function load(simd, threads, bytes, what) {
  checkWasmBytes(bytes, what);
  const variant = variantForBytes(simd, bytes, what);
  let plan = planThreads(threads, browserThreadSupport());
  if (isThreadedBytes(bytes)) {
    if (plan.threads === 1) throw rangeError('init', `${what} is a threaded build, which needs options.threads of 2 or more${plan.reason ? ` and ${plan.reason}` : ''}`);
    return instantiate(variant, { wasmBinary: bytes }, what, plan);
  }
  if (plan.threads > 1) plan = { threads: 1, reason: `${what} is a single-threaded build` };
  return instantiate(variant, { wasmBinary: bytes }, what, plan);
}

async function fetchBytes(wasmUrl) {
  try {
    const response = await fetch(wasmUrl, { credentials: 'same-origin' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw rangeError('init', `could not fetch options.wasmUrl (${wasmUrl}): ${error.message}`, { cause: error });
  }
}

/**
 * Loads the wasm module (once per build and thread count) and returns the API.
 * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array, simd?: 'auto' | 'relaxed' | 'baseline', threads?: number | 'auto' }} [options]
 */
export async function init(options) {
  const { wasmUrl, wasmBinary, simd, threads } = checkInitOptions(options);
  if (wasmBinary !== undefined) return load(simd, threads, copyBytes(wasmBinary), 'options.wasmBinary');
  if (wasmUrl !== undefined) return load(simd, threads, await fetchBytes(wasmUrl), `the wasm at ${wasmUrl}`);
  const variant = chooseVariant(simd);
  const plan = planThreads(threads, browserThreadSupport());
  const build = buildName(variant, plan.threads > 1);
  const key = `${build}/${plan.threads}/${plan.reason}`;  // the reason is part of attn.info
  // A failed load is not cached: the next init() tries again.
  if (!defaultInstances.has(key)) {
    defaultInstances.set(key, instantiate(variant, {}, `the package's ${build} wasm`, plan).catch((error) => {
      defaultInstances.delete(key);
      throw error;
    }));
  }
  return defaultInstances.get(key);
}

export { tensor, toNested, toTfjs, toOrt } from './tensor.js';
export { VERSION } from './version.js';
