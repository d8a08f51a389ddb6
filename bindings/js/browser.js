// Browser (and bundler) entry: the glue fetches dist/attention.wasm next to itself
// (new URL('attention.wasm', import.meta.url)), which Vite and webpack 5 also resolve.
import createAttentionModule from '../../dist/attention.js';
import { createApi } from './api.js';
import { checkInitOptions } from './options.js';

let defaultInstance = null;

/**
 * Loads the wasm module once and returns the API.
 * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array }} [options]
 */
export async function init(options) {
  const { wasmUrl, wasmBinary } = checkInitOptions(options);
  if (wasmUrl === undefined && wasmBinary === undefined) {
    // A failed load is not cached: the next init() tries again.
    defaultInstance ??= createAttentionModule({}).then(createApi).catch((error) => {
      defaultInstance = null;
      throw error;
    });
    return defaultInstance;
  }
  const args = wasmBinary !== undefined ? { wasmBinary } : { locateFile: () => String(wasmUrl) };
  return createApi(await createAttentionModule(args));
}

export { tensor, toNested, toTfjs, toOrt } from './tensor.js';
export { VERSION } from './version.js';
