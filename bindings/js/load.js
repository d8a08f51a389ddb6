// Instantiating the Emscripten module, shared by the Node and browser entries: checks the
// bytes first, keeps the glue's start-up messages out of the console, and turns every way a
// load can fail (unreadable URL, bytes that are not WebAssembly, another module) into one
// RangeError naming init, with the original error as its `cause`.
import { createApi } from './api.js';
import { contractOf } from './contract.js';
import { rangeError } from './errors.js';
import { typedArrayKind } from './tensor.js';
import { variantOfBytes, relaxedSimdSupported } from './variants.js';

/** The build name of a SIMD variant with or without threads. */
export function buildName(variant, threaded) {
  return threaded ? `${variant}-threads` : variant;
}

/**
 * The Promise cached under `key` in `cache`, made by `make()` on first use. A rejected load is
 * dropped from the cache, so the next init() tries again.
 */
export function loadOnce(cache, key, make) {
  if (!cache.has(key)) {
    cache.set(
      key,
      make().catch((error) => {
        cache.delete(key);
        throw error;
      }),
    );
  }
  return cache.get(key);
}

/** A fresh copy of wasm bytes given as an ArrayBuffer or any ArrayBuffer view (none if detached). */
export function copyBytes(bytes) {
  try {
    if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice();
    return new Uint8Array(bytes).slice();
  } catch {
    return new Uint8Array(0); // a detached buffer: no bytes, which checkWasmBytes refuses
  }
}

/** `bytes` (a Uint8Array) must be valid WebAssembly; `what` names where they came from. */
export function checkWasmBytes(bytes, what) {
  if (typedArrayKind(bytes) === 'Uint8Array' && variantOfBytes(bytes) === 'relaxed' && !relaxedSimdSupported()) {
    throw rangeError(
      'init',
      `${what} is the relaxed-SIMD build, which this engine does not run (use the baseline dist/attention.wasm, or Node's --experimental-wasm-relaxed-simd)`,
    );
  }
  if (typedArrayKind(bytes) !== 'Uint8Array' || !WebAssembly.validate(bytes)) {
    throw rangeError('init', `${what} is not WebAssembly (WebAssembly.validate rejected its ${bytes.length} bytes)`);
  }
  return bytes;
}

/**
 * The API over a module of SIMD `variant` made with Emscripten module `args`. `glues` maps a
 * build name to a function giving its Emscripten factory (see glues.js); `what`
 * describes the wasm for messages ('options.wasmBinary', 'the wasm at <url>').
 * `threads`: { threads, reason } from planThreads; more than one thread loads the threaded
 * build with that many threads (`args.attnWorkers` Web Workers besides the caller).
 * `tileRows`: the kernels' register-tile height where the build has a choice (the relaxed
 * build: 6, or 4 where the engine spills six; see src/kernels/target.h).
 * `started(module)` runs once the module is up (the Node entry unrefs the workers there).
 */
export async function instantiate(
  glues,
  variant,
  args,
  what,
  { threads = 1, reason = null, tileRows = 6 } = {},
  started = () => {},
) {
  const threaded = threads > 1;
  const createModule = await glues[buildName(variant, threaded)]();
  const startup = [];
  let running = false;
  const printErr = (text) => (running ? console.warn(text) : startup.push(text));
  try {
    const module = await createModule({ ...args, printErr, ...(threaded ? { attnWorkers: threads - 1 } : {}) });
    contractOf(module); // read once, here: a module whose contract cannot be read is not a working one
    const tileRowsInEffect = module._setTileRows(tileRows);
    const inEffect = threaded ? module._setThreads(threads) : 1;
    started(module);
    running = true;
    const threadsReason = inEffect < threads ? `only ${inEffect} of ${threads} threads could be started` : reason;
    return createApi(module, { variant, threads: inEffect, threadsReason, tileRows: tileRowsInEffect }, glues.models);
  } catch (error) {
    running = true;
    const reasonText = String(error?.message ?? error).split('\n')[0];
    const log = startup.length ? ` (the glue said: ${startup.join('; ')})` : '';
    throw new RangeError(`init: ${what} is not a working attention-wasm module: ${reasonText}${log}`, { cause: error });
  }
}
