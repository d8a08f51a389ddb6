// The browser's init, over a set of glues: browser.js passes all four builds (each a chunk
// of its own, imported on first use); a bundle that must not split into chunks passes the
// single-threaded two, imported statically (web/elements/training/api.js).
import { checkInitOptions } from './options.js';
import { copyBytes, checkWasmBytes, instantiate, buildName, loadOnce } from './load.js';
import { chooseVariant, variantForBytes, isThreadedBytes } from './variants.js';
import { planThreads, browserThreadSupport } from './threads.js';
import { rangeError } from './errors.js';
import { withAwaitHint } from './pending.js';
import { fetchFailureHint } from './fetch_failure.js';

async function fetchBytes(wasmUrl) {
  let response;
  try {
    response = await fetch(wasmUrl, { credentials: 'same-origin' });
  } catch (error) {
    const hint = fetchFailureHint(wasmUrl);
    throw rangeError('init', `could not fetch options.wasmUrl (${wasmUrl}): ${error.message}${hint}`, { cause: error });
  }
  try {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw rangeError('init', `could not fetch options.wasmUrl (${wasmUrl}): ${error.message}`, { cause: error });
  }
}

// The first line of an error's message, for attn.info.threadsReason.
const firstLine = (error) => String(error?.cause?.message ?? error?.message ?? error).split('\n')[0];

/**
 * An `init(options)` that loads its builds through `glues` (build name → async factory).
 * @param {Record<string, () => Promise<Function>>} glues
 */
export function browserInit(glues) {
  const defaultInstances = new Map(); // build and thread count → Promise of the API

  // Threads where this context has them and the glues include a threaded build.
  function plan(threads, variant) {
    const planned = planThreads(threads, browserThreadSupport());
    if (planned.threads > 1 && !glues[buildName(variant, true)]) {
      return { threads: 1, reason: 'this bundle has the single-threaded builds only' };
    }
    return planned;
  }

  // The API over caller-given bytes: the build they are is read from the bytes.
  function load(simd, threads, bytes, what) {
    checkWasmBytes(bytes, what);
    const variant = variantForBytes(simd, bytes, what);
    let planned = plan(threads, variant);
    if (isThreadedBytes(bytes)) {
      if (planned.threads === 1)
        throw rangeError(
          'init',
          `${what} is a threaded build, which needs options.threads of 2 or more${planned.reason ? ` and ${planned.reason}` : ''}`,
        );
      return instantiate(glues, variant, { wasmBinary: bytes }, what, planned);
    }
    if (planned.threads > 1) planned = { threads: 1, reason: `${what} is a single-threaded build` };
    return instantiate(glues, variant, { wasmBinary: bytes }, what, planned);
  }

  // The package's own build; a thread pool that cannot start (a Worker refused by the page's
  // Content-Security-Policy, say) falls back to one thread and says why.
  async function loadDefault(variant, planned) {
    const build = buildName(variant, planned.threads > 1);
    try {
      return await instantiate(glues, variant, {}, `the package's ${build} wasm`, planned);
    } catch (error) {
      if (planned.threads === 1) throw error;
      const reason = `the thread pool could not start (${firstLine(error)}), so one thread`;
      return instantiate(glues, variant, {}, `the package's ${variant} wasm`, { threads: 1, reason });
    }
  }

  /**
   * Loads the wasm module (once per build and thread count) and returns the API.
   * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array, simd?: 'auto' | 'relaxed' | 'baseline', threads?: number | 'auto' }} [options]
   */
  return function init(options) {
    return withAwaitHint(loadApi(options));
  };

  async function loadApi(options) {
    const { wasmUrl, wasmBinary, simd, threads } = checkInitOptions(options);
    if (wasmBinary !== undefined) return load(simd, threads, copyBytes(wasmBinary), 'options.wasmBinary');
    if (wasmUrl !== undefined) return load(simd, threads, await fetchBytes(wasmUrl), `the wasm at ${wasmUrl}`);
    const variant = chooseVariant(simd);
    const planned = plan(threads, variant);
    const key = `${buildName(variant, planned.threads > 1)}/${planned.threads}/${planned.reason}`; // the reason is part of attn.info
    return loadOnce(defaultInstances, key, () => loadDefault(variant, planned));
  }
}
