// Argument checks shared by the public functions; each throws a TypeError (wrong type) or a
// RangeError (wrong value) whose message starts with the public function's name.
import { typeError, rangeError, describe } from './errors.js';

/** `value` must be an integer >= 1. */
export function positiveInteger(fn, name, value) {
  if (typeof value !== 'number') throw typeError(fn, `${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 1) throw rangeError(fn, `${name} must be a positive integer (at most 2^53 - 1), got ${value}`);
  return value;
}

/** `value` must be an integer >= 0. */
export function nonNegativeInteger(fn, name, value) {
  if (typeof value !== 'number') throw typeError(fn, `${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 0) throw rangeError(fn, `${name} must be a non-negative integer (at most 2^53 - 1), got ${value}`);
  return value;
}

/**
 * `object` (optional) must be a plain object with keys from `allowed`; the keys in `booleans`
 * must be booleans when present. `what` names one key in messages ('option', 'config', ...).
 */
export function checkKeys(fn, what, object, allowed, booleans = []) {
  if (object === undefined) return {};
  const plural = what === 'option' ? 'options' : what;
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    throw typeError(fn, `${plural} must be an object, got ${describe(object)}`);
  }
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) throw typeError(fn, `unknown ${what} '${key}' (known: ${allowed.join(', ')})`);
  }
  for (const key of booleans) {
    if (object[key] !== undefined && typeof object[key] !== 'boolean') {
      throw typeError(fn, `${plural}.${key} must be a boolean, got ${describe(object[key])}`);
    }
  }
  return object;
}

/**
 * Checks options.causalAlign and returns the causal offset: row i sees keys j <= i + offset
 * (0 for 'top-left', the default; seqK - seqQ for 'bottom-right').
 */
export function causalOffset(fn, align, seqQ, seqK) {
  if (align === undefined || align === 'top-left') return 0;
  if (align === 'bottom-right') return seqK - seqQ;
  const message = `options.causalAlign must be 'top-left' or 'bottom-right', got`;
  if (typeof align !== 'string') throw typeError(fn, `${message} ${describe(align)}`);
  throw rangeError(fn, `${message} '${align}'`);
}
