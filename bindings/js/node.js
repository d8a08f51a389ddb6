// Node entry: the glue is built for the web (Emscripten 3.1.6's Node ESM glue is broken),
// so read the .wasm here and hand it over as wasmBinary.
import { readFile } from 'node:fs/promises';
import createAttentionModule from '../../dist/attention.js';
import { checkInitOptions } from './options.js';
import { copyBytes, checkWasmBytes, instantiate } from './load.js';
import { typeError, rangeError } from './errors.js';

let defaultInstance = null;

// The URL of options.wasmUrl, or null for a plain file path.
function parseUrl(wasmUrl) {
  if (wasmUrl instanceof URL) return wasmUrl;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(wasmUrl) || /^[a-z]:[\\/]/i.test(wasmUrl)) return null;  // C:\ is a path
  try {
    return new URL(wasmUrl);
  } catch (error) {
    throw typeError('init', `options.wasmUrl '${wasmUrl}' is not a valid URL (${error.message})`);
  }
}

// The bytes at a file path or a file:, http:, https: or data: URL.
async function loadBinary(wasmUrl) {
  const url = parseUrl(wasmUrl);
  const where = `options.wasmUrl (${url ?? wasmUrl})`;
  if (url && !['file:', 'http:', 'https:', 'data:'].includes(url.protocol)) {
    throw typeError('init', `${where}: only file paths and file:, http:, https: and data: URLs can be loaded in Node`);
  }
  try {
    if (url && url.protocol !== 'file:') {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    }
    return new Uint8Array(await readFile(url ?? wasmUrl));
  } catch (error) {
    throw rangeError('init', `could not read ${where}: ${error.code ?? error.message}`, { cause: error });
  }
}

async function load(bytes, what) {
  return instantiate(createAttentionModule, { wasmBinary: checkWasmBytes(bytes, what) }, what);
}

/**
 * Loads the wasm module once and returns the API.
 * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array }} [options]
 */
export async function init(options) {
  const { wasmUrl, wasmBinary } = checkInitOptions(options);
  if (wasmBinary !== undefined) return load(copyBytes(wasmBinary), 'options.wasmBinary');
  if (wasmUrl !== undefined) return load(await loadBinary(wasmUrl), `the wasm at ${wasmUrl}`);
  // A failed load is not cached: the next init() tries again.
  const file = new URL('../../dist/attention.wasm', import.meta.url);
  defaultInstance ??= readFile(file).then((bytes) => load(new Uint8Array(bytes), `the package's wasm (${file.pathname})`)).catch((error) => {
    defaultInstance = null;
    throw error;
  });
  return defaultInstance;
}

export { tensor, toNested, toTfjs, toOrt } from './tensor.js';
export { VERSION } from './version.js';
