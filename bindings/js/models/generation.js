// PretrainedModel.generate's parts apart from the model: its options (checked, over the
// checkpoint's generation defaults), the prompt's ids, a chat request's pieces, and the
// token loop with a key/value cache. The loop drives the model through a small `step`
// interface (pretrained_model.js makes it from its private state), so the model class keeps
// the handle and this file keeps the algorithm.
import { checkTextFits } from './text_limits.js';
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { pickToken, seededRandom, nextTask } from './sampling.js';
import { eosList } from './generation_config.js';
import { TextStream } from './text_stream.js';

export const GENERATE_OPTIONS = [
  'maxNewTokens',
  'temperature',
  'topK',
  'topP',
  'minP',
  'repetitionPenalty',
  'eosTokenId',
  'stop',
  'seed',
  'onToken',
  'signal',
  'useCache',
  'kvDtype',
  'stopAtEos',
  'returnScores',
];
// options.kvDtype → the runner's key/value storage (contract.kvStorages' names).
export const KV_STORAGES = { float32: 'kFloat32', bfloat16: 'kBfloat16', float16: 'kFloat16', q8: 'kQ8_0' };
// Bytes one cached row of `width` keys (or values) takes as options.kvDtype: 4 or 2 a value,
// or q8's blocks of 32 (a float16 scale and 32 int8 codes: 34 bytes; src/kernels/kv_storage.h).
export function kvRowBytes(kvDtype, width) {
  if (kvDtype === 'q8') return Math.ceil(width / 32) * 34;
  return width * (kvDtype === 'float32' ? 4 : 2);
}

// generate's first argument is { messages, … } (not a prompt).
export const isChatRequest = (x) =>
  x !== null && typeof x === 'object' && !Array.isArray(x) && !ArrayBuffer.isView(x) && 'messages' in x;

// generate({ messages, …options }): the messages and template options apart from the rest
// (each read once).
export function chatRequest(fn, request, options) {
  if (
    options !== undefined &&
    !(options !== null && typeof options === 'object' && Object.keys(options).length === 0)
  ) {
    throw typeError(
      fn,
      'with { messages }, pass every option in that one object: generate({ messages, maxNewTokens, … })',
    );
  }
  const { messages, chatTemplate, tools, documents, templateVariables, ...rest } = request;
  return { messages, template: { chatTemplate, tools, documents, templateVariables }, options: rest };
}

// The prompt's token ids: text through the tokenizer, or ids checked against the vocabulary.
export function promptIds(fn, prompt, tokenizer, vocabSize, contextLength = Infinity) {
  if (typeof prompt === 'string') {
    if (tokenizer === null) throw rangeError(fn, 'this checkpoint has no tokenizer.json; pass the prompt as token ids');
    if (Number.isFinite(contextLength)) checkTextFits(fn, tokenizer, prompt, contextLength - 1, 'the prompt');
    const ids = tokenizer.encode(prompt).ids;
    if (ids.length === 0) throw rangeError(fn, 'the prompt is empty');
    return ids;
  }
  if (!Array.isArray(prompt) && !ArrayBuffer.isView(prompt))
    throw typeError(fn, `prompt must be a string or token ids, got ${describe(prompt)}`);
  const ids = Array.from(prompt);
  if (ids.length === 0) throw rangeError(fn, 'the prompt is empty');
  ids.forEach((id, t) => {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
      throw rangeError(fn, `prompt[${t}] is ${id}, not a token id in [0, ${vocabSize})`);
  });
  return ids;
}

// generate's options, each read once and checked, over the model's defaults (`defaults`:
// generationDefaults).
export function generateOptions(fn, options, { defaults, vocabSize, tokenizer }) {
  if (options === null || typeof options !== 'object')
    throw typeError(fn, `options must be an object, got ${describe(options)}`);
  checkKeys(fn, 'option', options, GENERATE_OPTIONS);
  const d = defaults;
  const {
    maxNewTokens = d.maxNewTokens,
    temperature = d.temperature,
    topK = d.topK,
    topP = d.topP,
    minP = d.minP,
    repetitionPenalty = d.repetitionPenalty,
    eosTokenId,
    stop,
    seed = 0,
    onToken,
    signal,
    useCache = true,
    kvDtype = 'float32',
    stopAtEos = true,
    returnScores = false,
  } = options;
  if (!Number.isInteger(maxNewTokens) || maxNewTokens < 1)
    throw rangeError(fn, `options.maxNewTokens must be a positive integer, got ${describe(maxNewTokens)}`);
  if (typeof temperature !== 'number' || !(temperature >= 0) || !Number.isFinite(temperature))
    throw rangeError(fn, `options.temperature must be a finite number >= 0, got ${describe(temperature)}`);
  if (!Number.isInteger(topK) || topK < 0)
    throw rangeError(fn, `options.topK must be an integer >= 0 (0: no limit), got ${describe(topK)}`);
  if (typeof topP !== 'number' || !(topP > 0 && topP <= 1))
    throw rangeError(fn, `options.topP must be in (0, 1], got ${describe(topP)}`);
  if (typeof minP !== 'number' || !(minP >= 0 && minP <= 1))
    throw rangeError(fn, `options.minP must be in [0, 1] (0: off), got ${describe(minP)}`);
  if (typeof repetitionPenalty !== 'number' || !(repetitionPenalty > 0) || !Number.isFinite(repetitionPenalty))
    throw rangeError(
      fn,
      `options.repetitionPenalty must be a finite number > 0 (1: off), got ${describe(repetitionPenalty)}`,
    );
  if (eosTokenId !== undefined && typeof eosTokenId !== 'number' && !Array.isArray(eosTokenId))
    throw typeError(fn, `options.eosTokenId must be a token id or an array of them, got ${describe(eosTokenId)}`);
  const eos = eosTokenId === undefined ? d.eosTokenId : eosList(fn, eosTokenId, 'options.eosTokenId', vocabSize);
  const stops = stopStrings(fn, stop, tokenizer);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw rangeError(fn, `options.seed must be an integer in [0, 2^32 - 1], got ${describe(seed)}`);
  if (onToken !== undefined && typeof onToken !== 'function')
    throw typeError(fn, `options.onToken must be a function, got ${describe(onToken)}`);
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean'))
    throw typeError(fn, `options.signal must be an AbortSignal, got ${describe(signal)}`);
  for (const [key, value] of Object.entries({ useCache, stopAtEos, returnScores })) {
    if (typeof value !== 'boolean') throw typeError(fn, `options.${key} must be a boolean, got ${describe(value)}`);
  }
  // A string first: hasOwn would read ['float16'] as the key 'float16'.
  if (typeof kvDtype !== 'string' || !Object.hasOwn(KV_STORAGES, kvDtype))
    throw typeError(fn, `options.kvDtype must be 'float32', 'bfloat16', 'float16' or 'q8', got ${describe(kvDtype)}`);
  return {
    maxNewTokens,
    temperature,
    topK,
    topP,
    minP,
    repetitionPenalty,
    eosTokenId: eos,
    stop: stops,
    seed,
    onToken,
    signal,
    useCache,
    kvDtype,
    stopAtEos,
    returnScores,
  };
}

// options.stop: a string or strings, matched against the text as returned (special tokens
// skipped), so a special token cannot be one: it is stopped on by its id (eosTokenId).
function stopStrings(fn, stop, tokenizer) {
  if (stop === undefined) return [];
  const list = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop.slice() : null;
  if (list === null) throw typeError(fn, `options.stop must be a string or an array of strings, got ${describe(stop)}`);
  list.forEach((s, i) => {
    const where = typeof stop === 'string' ? 'options.stop' : `options.stop[${i}]`;
    if (typeof s !== 'string') throw typeError(fn, `${where} must be a string, got ${describe(s)}`);
    if (s === '') throw rangeError(fn, `${where} is empty`);
    if (tokenizer === null)
      throw rangeError(
        fn,
        'options.stop needs a tokenizer (the checkpoint has no tokenizer.json); stop on token ids with eosTokenId',
      );
    const e = tokenizer.encode(s, { addSpecialTokens: false });
    const special = e.ids.filter((_, t) => e.special[t]);
    if (special.length > 0)
      throw rangeError(
        fn,
        `${where} ${JSON.stringify(s)} holds a special token, which the text leaves out; stop on it by id: eosTokenId: [${special.join(', ')}]`,
      );
  });
  return list;
}

/**
 * The token loop: new ids after `prompted`, one at a time (the prompt runs once, then each new
 * token's query attends over the cached keys and values), until maxNewTokens, the context, an
 * end-of-sequence id, a stop string, onToken's false or the signal; yields to the event loop
 * between tokens. `model` is what the loop needs of the model:
 *   check()                       throws once the model was disposed (caller code ran)
 *   contextLength, ropeScaling    the descriptor's
 *   reserveCache(capacity, kvDtype) → bool, cacheBytes(), truncateCache(), dropCache()
 *   cacheRefusal(capacity, kvDtype) → why such a cache cannot be had (its bytes, the heap's)
 *   logits(chunk, positions, useCache) → the last token's logits [V] (a Float32Array)
 *   newText(start, ids) → the new ids' text (special tokens skipped), or null: no tokenizer
 * @returns {Promise<{ ids, newIds, stopped, text, cacheBytes, scores?, processedScores? }>}
 */
export async function generateTokens(fn, model, prompted, o) {
  const ids = prompted.slice();
  const capacity = Math.min(model.contextLength, ids.length + o.maxNewTokens);
  const random = seededRandom(o.seed);
  const stream = new TextStream(o.stop);
  const scores = [];
  const processedScores = [];
  let stopped = 'length';
  let stopAt = -1; // where a stop string begins in the new text
  let cacheBytes = 0;
  try {
    if (o.useCache && !model.reserveCache(capacity, o.kvDtype)) {
      throw rangeError(fn, model.cacheRefusal(capacity, o.kvDtype));
    }
    if (o.useCache) cacheBytes = model.cacheBytes();
    let fed = 0; // tokens already in the cache
    while (ids.length < capacity) {
      if (o.signal?.aborted) {
        stopped = 'aborted';
        break;
      }
      model.check(); // caller code ran (the signal, the last onToken)
      // 1. Logits of the last token: feed what the cache lacks (the prompt, then one token).
      //    longrope turns keys by other frequencies once a call passes its original context:
      //    the cache is rebuilt then, once (Phi3ForCausalLM.prepare_inputs_for_generation).
      if (o.useCache && crossesLongRope(model.ropeScaling, fed, ids.length)) {
        model.truncateCache();
        fed = 0;
      }
      const from = o.useCache ? fed : 0;
      const chunk = Int32Array.from(ids.slice(from));
      const positions = Int32Array.from(chunk, (_, t) => from + t);
      const logits = model.logits(chunk, positions, o.useCache);
      fed = ids.length;
      // 2. The next token (the processors see every id so far), reported.
      const { id, scores: processed } = pickToken(logits, ids, o, random);
      if (o.returnScores) {
        scores.push(logits);
        processedScores.push(processed());
      }
      ids.push(id);
      const index = ids.length - prompted.length - 1;
      const atEos = o.stopAtEos && o.eosTokenId.includes(id);
      let text = '';
      const soFar = model.newText(prompted.length, ids);
      if (soFar !== null) ({ piece: text, stopAt } = stream.next(soFar, atEos || ids.length === capacity));
      const keepGoing = o.onToken?.({ id, text, index });
      if (stopAt >= 0) {
        stopped = 'stop';
        break;
      }
      if (atEos) {
        stopped = 'eos';
        break;
      }
      if (keepGoing === false) {
        stopped = 'callback';
        break;
      }
      await nextTask();
      model.check();
    }
  } finally {
    model.dropCache();
  }
  const newIds = ids.slice(prompted.length);
  const whole = model.newText(prompted.length, ids);
  const text = whole !== null && stopAt >= 0 ? whole.slice(0, stopAt) : whole;
  const result = { ids, newIds, stopped, text, cacheBytes };
  if (o.returnScores) Object.assign(result, { scores, processedScores });
  return result;
}

// Whether a cache of `fed` tokens was made with longrope's short factors and a call over
// `length` tokens would use the long ones.
function crossesLongRope(ropeScaling, fed, length) {
  return (
    ropeScaling?.type === 'longrope' && fed > 0 && fed <= ropeScaling.originalMax && length > ropeScaling.originalMax
  );
}
