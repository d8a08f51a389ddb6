// Node entry: the glue is built for the web (Emscripten 3.1.6's Node ESM glue is broken),
// so read the .wasm here and hand it over as wasmBinary.
import { readFile } from 'node:fs/promises';
import { checkInitOptions } from './options.js';
import { copyBytes, checkWasmBytes, instantiate } from './load.js';
import { chooseVariant, variantForBytes } from './variants.js';
import { typeError, rangeError } from './errors.js';

const FILES = { baseline: 'attention.wasm', relaxed: 'attention-relaxed.wasm' };
const defaultInstances = new Map();  // variant → Promise of the API

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

// The API over caller-given bytes: the build they are is read from the bytes.
function load(simd, bytes, what) {
  checkWasmBytes(bytes, what);
  return instantiate(variantForBytes(simd, bytes, what), { wasmBinary: bytes }, what);
}

/**
 * Loads the wasm module (once per build) and returns the API.
 * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array, simd?: 'auto' | 'relaxed' | 'baseline' }} [options]
 */
export async function init(options) {
  const { wasmUrl, wasmBinary, simd } = checkInitOptions(options);
  if (wasmBinary !== undefined) return load(simd, copyBytes(wasmBinary), 'options.wasmBinary');
  if (wasmUrl !== undefined) return load(simd, await loadBinary(wasmUrl), `the wasm at ${wasmUrl}`);
  const variant = chooseVariant(simd);
  // A failed load is not cached: the next init() tries again.
  if (!defaultInstances.has(variant)) {
    const file = new URL(`../../dist/${FILES[variant]}`, import.meta.url);
    const what = `the package's wasm (${file.pathname})`;
    defaultInstances.set(variant, readFile(file).then((bytes) => instantiate(variant, { wasmBinary: new Uint8Array(bytes) }, what)).catch((error) => {
      defaultInstances.delete(variant);
      throw error;
    }));
  }
  return defaultInstances.get(variant);
}

export { tensor, toNested, toTfjs, toOrt } from './tensor.js';
export { VERSION } from './version.js';
