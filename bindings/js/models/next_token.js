// PretrainedModel.samplingDistribution: the probabilities generate samples the next token
// from, for logits the caller holds (a forward's, or a trace's), with generate's own checks
// and its own warpers (sampling.js), so a view shows what sampling would draw from.
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { generateOptions } from './generation.js';
import { samplingDistribution } from './sampling.js';

const OPTIONS = ['temperature', 'topK', 'topP', 'minP'];
const DEFAULTS = { maxNewTokens: 1, temperature: 1, topK: 0, topP: 1, minP: 0, repetitionPenalty: 1, eosTokenId: [] };

/**
 * logits [V] (an array, a typed array or a tensor { data, shape: [V] }) → Float64Array [V].
 * options: temperature (1; 0 is greedy), topK (0: all), topP (1), minP (0).
 */
export function nextTokenDistribution(fn, logits, options, vocabSize) {
  if (options === null || typeof options !== 'object')
    throw typeError(fn, `options must be an object, got ${describe(options)}`);
  checkKeys(fn, 'option', options, OPTIONS);
  const o = generateOptions(fn, options, { defaults: DEFAULTS, vocabSize, tokenizer: null });
  const data = logits !== null && typeof logits === 'object' && 'data' in logits ? logits.data : logits;
  if (data === null || typeof data !== 'object' || typeof data.length !== 'number')
    throw typeError(fn, `logits must be an array of ${vocabSize} numbers (or a tensor), got ${describe(logits)}`);
  if (data.length !== vocabSize)
    throw rangeError(fn, `logits has ${data.length} entries; this model's vocabulary has ${vocabSize}`);
  for (let i = 0; i < data.length; i++) {
    if (typeof data[i] !== 'number' || Number.isNaN(data[i]))
      throw typeError(fn, `logits[${i}] must be a number, got ${describe(data[i])}`);
  }
  return samplingDistribution(data, o);
}
