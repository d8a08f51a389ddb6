// Browser (and bundler) entry: the glue fetches dist/attention.wasm next to itself
// (new URL('attention.wasm', import.meta.url)), which Vite and webpack 5 also resolve.
import createAttentionModule from '../../dist/attention.js';
import { checkInitOptions } from './options.js';
import { copyBytes, checkWasmBytes, instantiate } from './load.js';

let defaultInstance = null;

/**
 * Loads the wasm module once and returns the API.
 * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array }} [options]
 */
export async function init(options) {
  const { wasmUrl, wasmBinary } = checkInitOptions(options);
  if (wasmBinary !== undefined) {
    const what = 'options.wasmBinary';
    return instantiate(createAttentionModule, { wasmBinary: checkWasmBytes(copyBytes(wasmBinary), what) }, what);
  }
  if (wasmUrl !== undefined) {
    return instantiate(createAttentionModule, { locateFile: () => String(wasmUrl) }, `the wasm at ${wasmUrl}`);
  }
  // A failed load is not cached: the next init() tries again.
  defaultInstance ??= instantiate(createAttentionModule, {}, "the package's wasm (dist/attention.wasm)").catch((error) => {
    defaultInstance = null;
    throw error;
  });
  return defaultInstance;
}

export { tensor, toNested, toTfjs, toOrt } from './tensor.js';
export { VERSION } from './version.js';
