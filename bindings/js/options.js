// init() options shared by both entries.
import { typeError, describe } from './errors.js';
import { checkKeys } from './checks.js';
import { checkSimdOption } from './variants.js';
import { checkThreadsOption } from './threads.js';

const KNOWN = ['wasmUrl', 'wasmBinary', 'simd', 'threads'];

/** Checks init's options; returns { wasmUrl, wasmBinary, simd, threads }, each read once. */
export function checkInitOptions(options) {
  if (options === undefined) return { simd: 'auto', threads: 1 };
  if (options === null || typeof options !== 'object')
    throw typeError('init', `options must be an object, got ${describe(options)}`);
  checkKeys('init', 'option', options, KNOWN);
  const { wasmBinary, wasmUrl, simd, threads } = options;
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(wasmBinary)) {
    throw typeError('init', `options.wasmBinary must be an ArrayBuffer or Uint8Array, got ${describe(wasmBinary)}`);
  }
  if (wasmUrl !== undefined && typeof wasmUrl !== 'string' && !(wasmUrl instanceof URL)) {
    throw typeError('init', `options.wasmUrl must be a string or URL, got ${describe(wasmUrl)}`);
  }
  return { wasmBinary, wasmUrl, simd: checkSimdOption(simd), threads: checkThreadsOption(threads) };
}
