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

const ALIGNS = ['top-left', 'bottom-right', 'bottom-right-per-sequence'];

/**
 * Checks options.causalAlign and returns the rule of the causal offset (row i sees keys
 * j <= i + offset) as (seqQ, seqK, past, keyLength) → offset, clamped to the core's int32:
 *   'top-left' (the default): `past`, so query i sits at key past + i (0 without a cache);
 *   'bottom-right': seqK - seqQ, the last query beside the last key;
 *   'bottom-right-per-sequence': keyLength - seqQ, the last query beside the last key of its
 *     own sequence (ONNX Attention's nonpad_kv_seqlen);
 *   an integer n: n (the offset itself).
 */
export function causalRule(fn, align) {
  const int32 = (offset) => Math.max(-(2 ** 31 - 1), Math.min(2 ** 31 - 1, offset));
  if (align === undefined || align === 'top-left') return (seqQ, seqK, past) => past;
  if (align === 'bottom-right') return (seqQ, seqK) => int32(seqK - seqQ);
  if (align === 'bottom-right-per-sequence') return (seqQ, seqK, past, keyLength) => int32(keyLength - seqQ);
  if (typeof align === 'number') {
    if (!Number.isInteger(align) || Math.abs(align) > 2 ** 31 - 1) {
      throw rangeError(fn, `options.causalAlign as an offset must be an integer in [-(2^31 - 1), 2^31 - 1], got ${align}`);
    }
    return () => align;
  }
  const message = `options.causalAlign must be ${ALIGNS.map((a) => `'${a}'`).join(', ')} or an integer offset, got`;
  if (typeof align !== 'string') throw typeError(fn, `${message} ${describe(align)}`);
  throw rangeError(fn, `${message} '${align}'`);
}

/**
 * The causal offset of options.causalAlign for a call with one offset for every sequence
 * (no cache): 'top-left' 0, 'bottom-right' seqK - seqQ, or an integer.
 */
export function causalOffset(fn, align, seqQ, seqK) {
  const rule = causalRule(fn, align);
  if (align === 'bottom-right-per-sequence') {
    throw rangeError(fn, `options.causalAlign 'bottom-right-per-sequence' is an option of attention(); here use 'top-left', 'bottom-right' or an integer offset`);
  }
  return rule(seqQ, seqK, 0, seqK);
}

/** Checks options.softcap: undefined or 0 (none) or a positive finite number. */
export function checkSoftcap(fn, softcap) {
  if (softcap === undefined) return 0;
  if (typeof softcap !== 'number') throw typeError(fn, `options.softcap must be a number, got ${describe(softcap)}`);
  if (!(softcap >= 0) || !Number.isFinite(softcap)) {
    throw rangeError(fn, `options.softcap must be a positive finite number (0: none), got ${softcap}`);
  }
  return softcap;
}
