// Node entry: the glue is built for the web (Emscripten 3.1.6's Node ESM glue is broken),
// so read the .wasm here and hand it over as wasmBinary.
import { readFile } from 'node:fs/promises';
import createAttentionModule from '../../dist/attention.js';
import { createApi } from './api.js';
import { checkInitOptions } from './options.js';

let defaultInstance = null;

async function loadBinary(wasmUrl) {
  const url = wasmUrl instanceof URL ? wasmUrl : /^[a-z][a-z0-9+.-]*:/i.test(wasmUrl) ? new URL(wasmUrl) : null;
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`init: fetching ${url} failed with HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }
  return readFile(url ?? wasmUrl);
}

async function instantiate(wasmBinary) {
  return createApi(await createAttentionModule({ wasmBinary }));
}

/**
 * Loads the wasm module once and returns the API.
 * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array }} [options]
 */
export async function init(options) {
  const { wasmUrl, wasmBinary } = checkInitOptions(options);
  if (wasmBinary !== undefined) return instantiate(wasmBinary);
  if (wasmUrl !== undefined) return instantiate(await loadBinary(wasmUrl));
  // A failed load is not cached: the next init() tries again.
  defaultInstance ??= readFile(new URL('../../dist/attention.wasm', import.meta.url)).then(instantiate).catch((error) => {
    defaultInstance = null;
    throw error;
  });
  return defaultInstance;
}

export { tensor, toNested, toTfjs, toOrt } from './tensor.js';
export { VERSION } from './version.js';
