// Browser (and bundler) entry: each build's glue fetches its wasm next to itself
// (new URL('attention.wasm', import.meta.url)), which Vite and webpack 5 also resolve. A
// page fetches one build only: the glue of the other is never imported.
import { checkInitOptions } from './options.js';
import { copyBytes, checkWasmBytes, instantiate } from './load.js';
import { chooseVariant, variantForBytes } from './variants.js';
import { rangeError } from './errors.js';

const defaultInstances = new Map();  // variant → Promise of the API

// The API over caller-given bytes: the build they are is read from the bytes.
function load(simd, bytes, what) {
  checkWasmBytes(bytes, what);
  return instantiate(variantForBytes(simd, bytes, what), { wasmBinary: bytes }, what);
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
 * Loads the wasm module (once per build) and returns the API.
 * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array, simd?: 'auto' | 'relaxed' | 'baseline' }} [options]
 */
export async function init(options) {
  const { wasmUrl, wasmBinary, simd } = checkInitOptions(options);
  if (wasmBinary !== undefined) return load(simd, copyBytes(wasmBinary), 'options.wasmBinary');
  if (wasmUrl !== undefined) return load(simd, await fetchBytes(wasmUrl), `the wasm at ${wasmUrl}`);
  const variant = chooseVariant(simd);
  // A failed load is not cached: the next init() tries again.
  if (!defaultInstances.has(variant)) {
    defaultInstances.set(variant, instantiate(variant, {}, `the package's ${variant} wasm`).catch((error) => {
      defaultInstances.delete(variant);
      throw error;
    }));
  }
  return defaultInstances.get(variant);
}

export { tensor, toNested, toTfjs, toOrt } from './tensor.js';
export { VERSION } from './version.js';
