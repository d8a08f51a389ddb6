// Node entry: the glue is built for the web (Emscripten 3.1.6's Node ESM glue is broken),
// so read the .wasm here and hand it over as wasmBinary.
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { checkInitOptions } from './options.js';
import { copyBytes, checkWasmBytes, instantiate, buildName, loadOnce } from './load.js';
import { chooseVariant, variantForBytes, isThreadedBytes } from './variants.js';
import { planThreads } from './threads.js';
import { typeError, rangeError } from './errors.js';
import { GLUES } from './glues.js';
import { withAwaitHint } from './pending.js';

const FILES = {
  baseline: 'attention.wasm',
  relaxed: 'attention-relaxed.wasm',
  'baseline-threads': 'attention-threads.wasm',
  'relaxed-threads': 'attention-relaxed-threads.wasm',
};
const defaultInstances = new Map(); // build and thread count → Promise of the API

// Node has SharedArrayBuffer and worker_threads: threads are there if the cores are.
// The threaded glue reaches Node's `require` through process.getBuiltinModule (Node 20.16+;
// see bindings/node-shim.js): older Node runs one thread and says why.
const NODE_THREADS = {
  cores: availableParallelism(),
  shared: typeof SharedArrayBuffer === 'function' && typeof process.getBuiltinModule === 'function',
  sharedReason:
    typeof SharedArrayBuffer === 'function'
      ? `threads need Node 20.16 or later (process.getBuiltinModule); this is Node ${process.versions.node}`
      : 'this Node has no SharedArrayBuffer',
};

// The relaxed build's register tiles in Node: 4 rows. Node 20's V8 schedules all six splat
// loads of a 6-row tile ahead of its FMAs and spills (one head at N = 256: 0.62 ms against
// 0.44 with 4 rows); Chromium 156 does not, and browsers keep 6. Newer Node is untested here,
// so it keeps the safe 4 too. Either height gives the same bits.
const NODE_TILE_ROWS = 4;

// Emscripten module arguments of the threaded builds in Node: the pthread worker as .cjs
// (this package is "type": "module", so Node would load the emitted .js as an ES module).
const THREADED_ARGS = {
  locateFile(path, prefix) {
    if (path.endsWith('.worker.js'))
      return fileURLToPath(new URL(`../../dist/${path.replace(/\.js$/, '.cjs')}`, import.meta.url));
    return prefix + path;
  },
};

// Pool workers must not keep the process alive once the caller is done.
function unrefWorkers(module) {
  for (const worker of [...(module.PThread?.unusedWorkers ?? []), ...(module.PThread?.runningWorkers ?? [])])
    worker.unref?.();
}

// The URL of options.wasmUrl, or null for a plain file path.
function parseUrl(wasmUrl) {
  if (wasmUrl instanceof URL) return wasmUrl;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(wasmUrl) || /^[a-z]:[\\/]/i.test(wasmUrl)) return null; // C:\ is a path
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
function load(simd, threads, bytes, what) {
  checkWasmBytes(bytes, what);
  const variant = variantForBytes(simd, bytes, what);
  let plan = { ...planThreads(threads, NODE_THREADS), tileRows: NODE_TILE_ROWS };
  if (isThreadedBytes(bytes)) {
    if (plan.threads === 1)
      throw rangeError(
        'init',
        `${what} is a threaded build: pass options.threads (2 or more, or 'auto'), or use a single-threaded wasm`,
      );
    return instantiate(GLUES, variant, { wasmBinary: bytes, ...THREADED_ARGS }, what, plan, unrefWorkers);
  }
  if (plan.threads > 1) plan = { threads: 1, reason: `${what} is a single-threaded build`, tileRows: NODE_TILE_ROWS };
  return instantiate(GLUES, variant, { wasmBinary: bytes }, what, plan);
}

/**
 * Loads the wasm module (once per build and thread count) and returns the API.
 * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array, simd?: 'auto' | 'relaxed' | 'baseline', threads?: number | 'auto' }} [options]
 */
export function init(options) {
  return withAwaitHint(loadInit(options));
}

async function loadInit(options) {
  const { wasmUrl, wasmBinary, simd, threads } = checkInitOptions(options);
  if (wasmBinary !== undefined) return load(simd, threads, copyBytes(wasmBinary), 'options.wasmBinary');
  if (wasmUrl !== undefined) return load(simd, threads, await loadBinary(wasmUrl), `the wasm at ${wasmUrl}`);
  const variant = chooseVariant(simd);
  const plan = { ...planThreads(threads, NODE_THREADS), tileRows: NODE_TILE_ROWS };
  const build = buildName(variant, plan.threads > 1);
  const key = `${build}/${plan.threads}/${plan.reason}`; // the reason is part of attn.info
  // A failed load is not cached: the next init() tries again.
  return loadOnce(defaultInstances, key, async () => {
    const file = new URL(`../../dist/${FILES[build]}`, import.meta.url);
    const what = `the package's wasm (${file.pathname})`;
    const args = plan.threads > 1 ? THREADED_ARGS : {};
    const started = plan.threads > 1 ? unrefWorkers : undefined;
    return instantiate(
      GLUES,
      variant,
      { wasmBinary: new Uint8Array(await readFile(file)), ...args },
      what,
      plan,
      started,
    );
  });
}

export { tensor, toNested, toTfjs, toOrt } from './tensor.js';
export { VERSION } from './version.js';
