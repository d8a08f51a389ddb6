// init's `threads` option: how many threads the kernels may use, and whether this
// environment can give them. Threads need SharedArrayBuffer: Node has it; a browser page
// only when cross-origin isolated (served with COOP same-origin and COEP require-corp),
// and then its Workers too. Where threads are not available init falls back to one thread
// and says why in attn.info.threadsReason.
import { typeError, rangeError, describe } from './errors.js';

/** The most threads init starts (the kernels split work by rows; more would idle). */
export const MAX_THREADS = 64;

/** Checks the option: undefined (1), 'auto', or an integer 1 .. MAX_THREADS. */
export function checkThreadsOption(threads) {
  if (threads === undefined) return 1;
  if (threads === 'auto') return 'auto';
  const message = `options.threads must be 'auto' or an integer from 1 to ${MAX_THREADS}, got`;
  if (typeof threads !== 'number') throw typeError('init', `${message} ${describe(threads)}`);
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS)
    throw rangeError('init', `${message} ${threads}`);
  return threads;
}

/**
 * How many threads to start and why: { threads, reason } where reason is null when the
 * request is met as asked, else a sentence for attn.info.threadsReason.
 * @param {number | 'auto'} requested the checked option
 * @param {{ cores: number, shared: boolean, sharedReason: string }} environment
 */
export function planThreads(requested, { cores, shared, sharedReason }) {
  const wanted = requested === 'auto' ? Math.max(1, Math.min(cores, MAX_THREADS)) : requested;
  if (wanted === 1) {
    return {
      threads: 1,
      reason: requested === 'auto' ? `threads: 'auto' found ${cores} core${cores === 1 ? '' : 's'}` : null,
    };
  }
  if (!shared) return { threads: 1, reason: sharedReason };
  return { threads: wanted, reason: null };
}

/** This browser context's answer: can it share memory between threads? */
export function browserThreadSupport() {
  const cores = Number.isInteger(globalThis.navigator?.hardwareConcurrency)
    ? globalThis.navigator.hardwareConcurrency
    : 1;
  if (typeof SharedArrayBuffer !== 'function' || globalThis.crossOriginIsolated !== true) {
    return {
      cores,
      shared: false,
      sharedReason:
        'this page is not cross-origin isolated, so it has no SharedArrayBuffer for wasm threads: serve it with the headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp',
    };
  }
  return { cores, shared: true, sharedReason: null };
}
