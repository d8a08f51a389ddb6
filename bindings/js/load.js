// Instantiating the Emscripten module, shared by the Node and browser entries: checks the
// bytes first, keeps the glue's start-up messages out of the console, and turns every way a
// load can fail (unreadable URL, bytes that are not WebAssembly, another module) into one
// RangeError naming init, with the original error as its `cause`.
import { createApi } from './api.js';
import { rangeError } from './errors.js';
import { typedArrayKind } from './tensor.js';

/** A fresh copy of wasm bytes given as an ArrayBuffer or any ArrayBuffer view (none if detached). */
export function copyBytes(bytes) {
  try {
    if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice();
    return new Uint8Array(bytes).slice();
  } catch {
    return new Uint8Array(0);  // a detached buffer: no bytes, which checkWasmBytes refuses
  }
}

/** `bytes` (a Uint8Array) must be valid WebAssembly; `what` names where they came from. */
export function checkWasmBytes(bytes, what) {
  if (typedArrayKind(bytes) !== 'Uint8Array' || !WebAssembly.validate(bytes)) {
    throw rangeError('init', `${what} is not WebAssembly (WebAssembly.validate rejected its ${bytes.length} bytes)`);
  }
  return bytes;
}

/**
 * The API over a module made by `createModule(args)` (the Emscripten factory); `what`
 * describes the wasm for messages ('options.wasmBinary', 'the wasm at <url>').
 */
export async function instantiate(createModule, args, what) {
  const startup = [];
  let started = false;
  const printErr = (text) => (started ? console.warn(text) : startup.push(text));
  try {
    const api = createApi(await createModule({ ...args, printErr }));
    started = true;
    return api;
  } catch (error) {
    started = true;
    const reason = String(error?.message ?? error).split('\n')[0];
    const log = startup.length ? ` (the glue said: ${startup.join('; ')})` : '';
    throw new RangeError(`init: ${what} is not a working attention-wasm module: ${reason}${log}`, { cause: error });
  }
}
