// Argument checks shared by the public functions; each throws a TypeError (wrong type) or a
// RangeError (wrong value) whose message starts with the public function's name.
import { typeError, rangeError, describe, show, closestName } from './errors.js';

/** `value` must be an integer >= 1. */
export function positiveInteger(fn, name, value) {
  if (typeof value !== 'number') throw typeError(fn, `${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 1)
    throw rangeError(fn, `${name} must be a positive integer (at most 2^53 - 1), got ${value}`);
  return value;
}

/** `value` must be an integer >= 0. */
export function nonNegativeInteger(fn, name, value) {
  if (typeof value !== 'number') throw typeError(fn, `${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 0)
    throw rangeError(fn, `${name} must be a non-negative integer (at most 2^53 - 1), got ${value}`);
  return value;
}

/**
 * `object` (optional) must be a plain object with keys from `allowed`; the keys in `booleans`
 * must be booleans when present. `what` names one key in messages ('option', 'config', ...);
 * an unknown key is a TypeError that suggests the closest known one (did you mean 'causal'?).
 */
export function checkKeys(fn, what, object, allowed, booleans = []) {
  if (object === undefined) return {};
  const plural = what === 'option' ? 'options' : what;
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    throw typeError(fn, `${plural} must be an object, got ${describe(object)}`);
  }
  for (const key of Object.keys(object)) {
    if (allowed.includes(key)) continue;
    const near = closestName(key, allowed);
    throw typeError(
      fn,
      `unknown ${what} ${show(key)} (${near ? `did you mean '${near}'? ` : ''}known: ${allowed.join(', ')})`,
    );
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
      throw rangeError(
        fn,
        `options.causalAlign as an offset must be an integer in [-(2^31 - 1), 2^31 - 1], got ${align}`,
      );
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
    throw rangeError(
      fn,
      `options.causalAlign 'bottom-right-per-sequence' is an option of attention(); here use 'top-left', 'bottom-right' or an integer offset`,
    );
  }
  return rule(seqQ, seqK, 0, seqK);
}

const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * Checks options.softcap: undefined or 0 (none), or a positive number the core's float32
 * holds: at least 2^-149 (a smaller one would round to 0, silently no cap) and at most
 * FLOAT32_MAX (a larger one would round to Infinity).
 */
export function checkSoftcap(fn, softcap) {
  if (softcap === undefined) return 0;
  if (typeof softcap !== 'number') throw typeError(fn, `options.softcap must be a number, got ${describe(softcap)}`);
  if (!(softcap >= 0) || !Number.isFinite(softcap)) {
    throw rangeError(fn, `options.softcap must be a positive finite number (0: none), got ${softcap}`);
  }
  if (softcap !== 0 && (Math.fround(softcap) === 0 || softcap > FLOAT32_MAX)) {
    throw rangeError(
      fn,
      `options.softcap must be 0 (none) or in [2^-149, 3.4028234663852886e38] (float32's positive range), got ${softcap}`,
    );
  }
  return softcap;
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * Checks options.window (a sliding window of keys around each query's diagonal position):
 * undefined or null (none), or { left?, right? }, each a non-negative integer or Infinity
 * (no limit on that side; the default). Returns { left, right } as the core takes them
 * (-1: no limit; larger than int32 is clamped, which hides nothing more).
 */
export function checkWindow(fn, window) {
  if (window === undefined || window === null) return { left: -1, right: -1 };
  if (typeof window !== 'object' || Array.isArray(window)) {
    throw typeError(fn, `options.window must be an object { left, right }, got ${describe(window)}`);
  }
  checkKeys(fn, 'options.window key', window, ['left', 'right'], []);
  const side = (name) => {
    const n = window[name];
    if (n === undefined || n === Infinity) return -1;
    if (typeof n !== 'number') throw typeError(fn, `options.window.${name} must be a number, got ${describe(n)}`);
    if (!Number.isInteger(n) || n < 0) {
      throw rangeError(
        fn,
        `options.window.${name} must be a non-negative integer or Infinity (keys on that side of the query), got ${n}`,
      );
    }
    return Math.min(n, INT32_MAX);
  };
  return { left: side('left'), right: side('right') };
}

/**
 * Checks options.dropout: undefined, null or { p: 0 } (none), or { p, seed? } with p in
 * [0, 1) and seed an integer in [0, 2^32). Without a seed one is drawn (and returned, so a
 * backward can use the same). Returns { p, seed } (p = 0: none).
 *   seedRequired: the backward must be given the forward's seed
 */
export function checkDropout(fn, dropout, seedRequired = false) {
  if (dropout === undefined || dropout === null) return { p: 0, seed: 0 };
  if (typeof dropout !== 'object' || Array.isArray(dropout)) {
    throw typeError(fn, `options.dropout must be an object { p, seed }, got ${describe(dropout)}`);
  }
  checkKeys(fn, 'options.dropout key', dropout, ['p', 'seed'], []);
  const { p, seed } = dropout;
  if (typeof p !== 'number') throw typeError(fn, `options.dropout.p must be a number, got ${describe(p)}`);
  if (!(p >= 0 && p < 1)) throw rangeError(fn, `options.dropout.p must be in [0, 1), got ${p}`);
  if (seed === undefined) {
    if (seedRequired && p > 0)
      throw typeError(
        fn,
        'options.dropout.seed is required here: pass the seed the forward used (its result.dropoutSeed)',
      );
    return { p, seed: (Math.random() * 2 ** 32) >>> 0 };
  }
  if (typeof seed !== 'number') throw typeError(fn, `options.dropout.seed must be a number, got ${describe(seed)}`);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw rangeError(fn, `options.dropout.seed must be an integer in [0, 2^32), got ${seed}`);
  }
  return { p, seed };
}
