// generation_config.json → the defaults of PretrainedModel.generate, read as transformers
// reads the file: an option the caller passes wins; else the file's value; else this API's
// own default. The file is data from a stranger: each value used is checked (a RangeError
// naming the file and the key); keys this API does not use are ignored (max_length,
// num_beams, pad_token_id, …).
//   do_sample: false or absent  → greedy (temperature 0), whatever temperature the file says
//   do_sample: true             → temperature ?? 1, top_k ?? 50, top_p ?? 1 (transformers'
//                                 defaults for what the file leaves out)
//   repetition_penalty, min_p, max_new_tokens, eos_token_id (an id or a list) as they are
import { rangeError, describe } from '../errors.js';

const FILE = 'generation_config.json';

/** This API's defaults, where neither the caller nor the file says. */
export const BUILT_IN = Object.freeze({
  maxNewTokens: 20,
  temperature: 0,
  topK: 0,
  topP: 1,
  minP: 0,
  repetitionPenalty: 1,
});

// Each key read: its check, and its name in generate's options.
const KEYS = {
  max_new_tokens: ['maxNewTokens', (v) => Number.isInteger(v) && v >= 1, 'a positive integer'],
  temperature: ['temperature', (v) => typeof v === 'number' && v >= 0 && Number.isFinite(v), 'a finite number >= 0'],
  top_k: ['topK', (v) => Number.isInteger(v) && v >= 0, 'an integer >= 0'],
  top_p: ['topP', (v) => typeof v === 'number' && v > 0 && v <= 1, 'a number in (0, 1]'],
  min_p: ['minP', (v) => typeof v === 'number' && v >= 0 && v <= 1, 'a number in [0, 1]'],
  repetition_penalty: [
    'repetitionPenalty',
    (v) => typeof v === 'number' && v > 0 && Number.isFinite(v),
    'a finite number > 0',
  ],
};

/** An eos_token_id (an id, a list of ids, or null) as a list; `where` names it in errors. */
export function eosList(fn, value, where, vocabSize) {
  if (value === null || value === undefined) return null;
  const ids = Array.isArray(value) ? value : [value];
  ids.forEach((id, i) => {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
      throw rangeError(
        fn,
        `${where}${Array.isArray(value) ? `[${i}]` : ''} is ${describe(id)}, not a token id in [0, ${vocabSize})`,
      );
    }
  });
  return ids.slice();
}

/**
 * generate's defaults: the file's values over BUILT_IN, and the end-of-sequence ids (the
 * file's eos_token_id, else config.json's).
 * @param {string} fn @param {object | null} file generation_config.json, parsed (null: none)
 * @param {object} config config.json @param {number} vocabSize
 * @returns {Readonly<{ maxNewTokens, temperature, topK, topP, minP, repetitionPenalty, eosTokenId: number[] }>}
 */
export function generationDefaults(fn, file, config, vocabSize) {
  if (file !== null && (typeof file !== 'object' || Array.isArray(file)))
    throw rangeError(fn, `${FILE} must hold an object, got ${describe(file)}`);
  const given = {};
  for (const [key, [name, ok, what]] of Object.entries(KEYS)) {
    const value = file?.[key];
    if (value === undefined || value === null) continue;
    if (!ok(value)) throw rangeError(fn, `${FILE}: ${key} must be ${what}, got ${describe(value)}`);
    given[name] = value;
  }
  const doSample = file?.do_sample ?? false;
  if (typeof doSample !== 'boolean')
    throw rangeError(fn, `${FILE}: do_sample must be true or false, got ${describe(doSample)}`);
  const sampling = doSample ? { temperature: given.temperature ?? 1, topK: given.topK ?? 50 } : { temperature: 0 };
  const eos =
    eosList(fn, file?.eos_token_id, `${FILE}: eos_token_id`, vocabSize) ??
    [config.eos_token_id].flat().filter((id) => Number.isInteger(id) && id >= 0 && id < vocabSize);
  return Object.freeze({ ...BUILT_IN, ...given, ...sampling, eosTokenId: Object.freeze(eos) });
}
