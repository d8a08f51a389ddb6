// init() options shared by both entries.
import { typeError, describe } from './errors.js';

/** Checks init's options and returns them (an object, possibly empty). */
export function checkInitOptions(options) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') throw typeError('init', `options must be an object, got ${describe(options)}`);
  for (const key of Object.keys(options)) {
    if (key !== 'wasmUrl' && key !== 'wasmBinary') throw typeError('init', `unknown option '${key}' (known: wasmUrl, wasmBinary)`);
  }
  const { wasmBinary, wasmUrl } = options;
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(wasmBinary)) {
    throw typeError('init', `options.wasmBinary must be an ArrayBuffer or Uint8Array, got ${describe(wasmBinary)}`);
  }
  if (wasmUrl !== undefined && typeof wasmUrl !== 'string' && !(wasmUrl instanceof URL)) {
    throw typeError('init', `options.wasmUrl must be a string or URL, got ${describe(wasmUrl)}`);
  }
  return options;
}
