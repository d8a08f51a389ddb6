// The core's statuses (src/status.h, named at init by the contract) as the error a refused call
// raises: the words in one place, each caller free to say what a length or an argument is in
// its own terms (a forward call's token ids, a training model's dModel).
import { rangeError } from './errors.js';
import { contractOf } from './contract.js';

export const STATUS_MESSAGES = Object.freeze({
  kNegativeDimension: 'a dimension is negative',
  kNullPointer: 'a required buffer is missing',
  kBadKeyLength: 'a length is out of range',
  kBadHeadCount: 'the model width must divide into the heads',
  kBadArgument: 'an argument is out of range',
  kTooLarge: 'a buffer would pass 2 GiB, the most one wasm buffer may hold',
  kOutOfMemory: 'out of wasm memory for the activations',
});

/**
 * The RangeError `${fn}: the ${who} refused the call: <why>` for a nonzero status.
 * @param {string} fn the public function @param {object} module @param {number} status
 * @param {{ who?: string, words?: Record<string, string> }} [options] who refused ('core'), and
 *   this caller's wording of some statuses, by name
 */
export function statusError(fn, module, status, { who = 'core', words = {} } = {}) {
  const name = contractOf(module).statusNames[status];
  const why = (Object.hasOwn(words, name) ? words[name] : STATUS_MESSAGES[name]) ?? `status ${status}`;
  return rangeError(fn, `the ${who} refused the call: ${why}`);
}
