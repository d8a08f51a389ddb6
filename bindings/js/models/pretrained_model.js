// A pretrained model loaded by loadModel: its forward pass runs in wasm (src/model/runner),
// on text (through its tokenizer) or token ids, and returns what the views need: logits,
// every layer's attention maps and hidden states, and the tokens with their character spans.
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { HeapScope } from '../heap.js';
import { tensor as makeTensor } from '../tensor.js';
import { MemoryPlan, checkBudget } from '../memory.js';
import { pickToken, seededRandom, nextTask } from './sampling.js';
import { generationDefaults, eosList } from './generation_config.js';
import { TextStream } from './text_stream.js';
import { applyChatTemplate } from './chat_template.js';
import { contractOf } from '../contract.js';
import { embedTexts } from './embed.js';

const FORWARD_OPTIONS = ['attentions', 'hiddenStates', 'logits', 'queriesAndKeys'];
const GENERATE_OPTIONS = [
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
  'stopAtEos',
  'returnScores',
];
// The runner's statuses (src/status.h), in the words of a forward call.
export const STATUS_MESSAGES = {
  kNegativeDimension: 'a dimension is negative',
  kNullPointer: 'a required buffer is missing',
  kBadKeyLength: 'a length is outside [1, T]',
  kBadArgument: 'a token id, position or type is out of range',
  kTooLarge: 'the batch is too large for the 2 GiB wasm heap',
  kOutOfMemory: 'out of wasm memory for the activations',
};
// Why the runner refused a forward call with `status`.
const refusal = (module, status) => STATUS_MESSAGES[contractOf(module).statusNames[status]] ?? `status ${status}`;
const finalizer = new FinalizationRegistry(({ module, handle }) => module._pretrainedDestroy(handle));

// [B, T, heads, hd] → a tensor [B, heads, T, hd].
function headsFirst(data, B, T, heads, hd) {
  const out = new Float32Array(data.length);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++)
      for (let h = 0; h < heads; h++) {
        out.set(
          data.subarray(((b * T + t) * heads + h) * hd, ((b * T + t) * heads + h + 1) * hd),
          ((b * heads + h) * T + t) * hd,
        );
      }
  return makeTensor(out, [B, heads, T, hd]);
}

// Left padding: the runner takes right-padded batches, so a left-padded sequence b is run
// shifted left by pads[b] and each output's sequence axis is rotated back (row t of the
// caller's layout is the runner's row t − pads[b], mod T; its pad rows are the runner's pad
// rows). data: [B, outer, T, inner] in place.
function unpadLeft(data, B, outer, T, inner, pads) {
  const block = T * inner;
  const copy = new Float32Array(block);
  for (let b = 0; b < B; b++) {
    const shift = pads[b] * inner;
    if (shift === 0) continue;
    for (let o = 0; o < outer; o++) {
      const at = (b * outer + o) * block;
      copy.set(data.subarray(at, at + block));
      data.set(copy.subarray(block - shift), at);
      data.set(copy.subarray(0, block - shift), at + shift);
    }
  }
  return data;
}

// generate's first argument is { messages, … } (not a prompt).
const isChatRequest = (x) =>
  x !== null && typeof x === 'object' && !Array.isArray(x) && !ArrayBuffer.isView(x) && 'messages' in x;

export class PretrainedModel {
  #module;
  #handle;
  #classifier = null;
  #token = {};
  #generating = false;
  #chat;

  /** Use attn.loadModel(). */
  constructor(
    module,
    handle,
    {
      arch,
      config,
      tokenizer,
      parameterBytes,
      matrixDtype = 'float32',
      sentenceEmbedding = null,
      generation = null,
      chat = null,
      source = null,
    },
  ) {
    this.#module = module;
    this.#handle = handle;
    /**
     * What loadModel was given: { source (the folder path, URL or Hub id as written), revision
     * (options.revision for a Hub id, else null) }; null for Files or a map of bytes. A linear
     * probe's files name their encoder by it.
     */
    this.source = source;
    /** config.json as loaded. */
    this.config = config;
    /** config.json's model_type: 'bert', 'roberta', 'distilbert', 'gpt2', 'llama' or 'mistral'. */
    this.modelType = arch.modelType;
    /** 'base', 'masked-lm', 'causal-lm' or 'sequence-classification'. */
    this.head = arch.head;
    /** The runner's view of the architecture (sizes, norm placement, activation, …). */
    this.descriptor = arch.descriptor;
    /** The classifier's labels (id2label), or null. */
    this.labels = arch.labels;
    /** The tokenizer from tokenizer.json, or null (then forward takes token ids only). */
    this.tokenizer = tokenizer;
    /** Bytes of wasm memory the weights take. */
    this.parameterBytes = parameterBytes;
    /**
     * How the matrices are held: 'bfloat16' (a BF16 checkpoint's values as they are, half the
     * bytes, widened exactly as the kernels read them) or 'float32'. Every sum is float32
     * either way, with the same bits.
     */
    this.matrixDtype = matrixDtype;
    /**
     * A sentence-transformers folder's pipeline (modules.json, sentence_transformers.js):
     * { pooling, normalize, maxSeqLength, lowerCase, unsupported }, what embed does by
     * default; null without modules.json.
     */
    this.sentenceEmbedding = sentenceEmbedding;
    /**
     * generate's defaults: generation_config.json's values (transformers' reading of them)
     * over this API's own; eosTokenId from the file, else config.json.
     */
    this.generationDefaults = generation ?? generationDefaults('loadModel', null, config, arch.descriptor.vocabSize);
    this.#chat = chat;
    /** The chat templates by name ('default' for a single one), or null. */
    this.chatTemplates = chat?.toObject() ?? null;
    finalizer.register(this, { module, handle }, this.#token);
  }

  /** @internal the classification head's layers (loadModel). */
  _setClassifier(layers) {
    this.#classifier = layers;
  }

  #check(method) {
    if (this.#handle === 0) throw new Error(`PretrainedModel.${method}: this model was disposed; load it again`);
  }

  // One runner call on checked ids: returns the [rows or B, V] logits (copied out).
  #logitsOf(fn, ids, positions, T, flags) {
    const module = this.#module;
    const scope = new HeapScope(module, fn);
    try {
      const status = module._pretrainedForward(this.#handle, scope.ints(ids), scope.ints(positions), 0, 0, 1, T, flags);
      if (status !== 0) throw rangeError(fn, `the runner refused the call: ${refusal(module, status)}`);
      return scope.read(module._pretrainedLogits(this.#handle), this.descriptor.vocabSize);
    } finally {
      module._pretrainedReleaseOutputs(this.#handle);
      scope.release();
    }
  }

  /**
   * Generates text after a prompt, one token at a time, with a key/value cache: the prompt
   * runs once, then each new token's query attends over the cached keys and values
   * (bottom-right causal). Yields to the event loop between tokens.
   * @param {string | number[]} prompt text (tokenized with the model's special tokens) or token ids
   * @param {object} [options] maxNewTokens (20), temperature (0: greedy), topK (0: all),
   *   topP (1), minP (0: off), repetitionPenalty (1: off) — each defaulting to
   *   generation_config.json's value when the checkpoint has one (generationDefaults) —,
   *   eosTokenId (an id or ids; the file's or config.json's), stop (strings), seed (0),
   *   onToken({ id, text, index }) (return false to stop), signal (an AbortSignal),
   *   useCache (true), stopAtEos (true), returnScores (false)
   */
  async generate(prompt, options = {}) {
    const fn = 'PretrainedModel.generate';
    this.#check('generate');
    const chat = isChatRequest(prompt) ? this.#chatRequest(fn, prompt, options) : null;
    const o = this.#generateOptions(fn, chat?.options ?? options);
    if (!this.descriptor.lmHead || !this.descriptor.causal)
      throw rangeError(fn, `this model's head is '${this.head}'; generate needs a causal-LM head (GPT-2, Llama)`);
    if (this.#generating)
      throw new Error(`${fn}: this model is already generating; await the first call (or stop it) before the next`);
    const prompted = chat
      ? applyChatTemplate(fn, this.#chat, this.tokenizer, chat.messages, {
          ...chat.template,
          addGenerationPrompt: true,
        })
      : this.#promptIds(fn, prompt);
    this.#check('generate'); // the prompt's iterator is caller code
    const limit = this.descriptor.contextLength;
    if (prompted.length >= limit)
      throw rangeError(
        fn,
        `the prompt has ${prompted.length} tokens; this model sees at most ${limit}, leaving no room for a new one`,
      );
    const ids = prompted.slice();
    const capacity = Math.min(limit, ids.length + o.maxNewTokens);
    const random = seededRandom(o.seed);
    const stream = new TextStream(o.stop);
    const scores = [];
    const processedScores = [];
    let stopped = 'length';
    let stopAt = -1; // where a stop string begins in the new text
    this.#generating = true;
    try {
      if (o.useCache && this.#module._pretrainedReserveCache(this.#handle, 1, capacity) !== 1) {
        throw rangeError(fn, `out of wasm memory for the key/value cache of ${capacity} tokens`);
      }
      let logits = null;
      let fed = 0; // tokens already in the cache
      while (ids.length < capacity) {
        if (o.signal?.aborted) {
          stopped = 'aborted';
          break;
        }
        this.#check('generate'); // caller code ran (the signal, the last onToken)
        // 1. Logits of the last token: feed what the cache lacks (the prompt, then one token).
        //    longrope turns keys by other frequencies once a call passes its original context:
        //    the cache is rebuilt then, once (Phi3ForCausalLM.prepare_inputs_for_generation).
        if (o.useCache && this.#crossesLongRope(fed, ids.length)) {
          this.#module._pretrainedTruncateCache(this.#handle, 0);
          fed = 0;
        }
        const from = o.useCache ? fed : 0;
        const chunk = Int32Array.from(ids.slice(from));
        const positions = Int32Array.from(chunk, (_, t) => from + t);
        const F = contractOf(this.#module).forwardFlags;
        logits = this.#logitsOf(
          fn,
          chunk,
          positions,
          chunk.length,
          F.logits | F.lastLogitsOnly | (o.useCache ? F.useCache : 0),
        );
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
        if (this.tokenizer) {
          ({ piece: text, stopAt } = stream.next(
            this.#newText(prompted.length, ids),
            atEos || ids.length === capacity,
          ));
        }
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
        this.#check('generate');
      }
    } finally {
      if (this.#handle !== 0) this.#module._pretrainedDropCache(this.#handle);
      this.#generating = false;
    }
    const newIds = ids.slice(prompted.length);
    let text = null;
    if (this.tokenizer)
      text = stopAt >= 0 ? this.#newText(prompted.length, ids).slice(0, stopAt) : this.#newText(prompted.length, ids);
    const result = { ids, newIds, stopped, text };
    if (o.returnScores) Object.assign(result, { scores, processedScores });
    return result;
  }

  // Whether a cache of `fed` tokens was made with longrope's short factors and a call over
  // `length` tokens would use the long ones.
  #crossesLongRope(fed, length) {
    const rs = this.descriptor.ropeScaling;
    return rs?.type === 'longrope' && fed > 0 && fed <= rs.originalMax && length > rs.originalMax;
  }

  /**
   * Chat messages → the checkpoint's chat template's text, or (tokenize: true, the default
   * as in transformers) its token ids, tokenized without adding special tokens.
   * @param {{ role: string, content: unknown }[]} messages
   * @param {object} [options] addGenerationPrompt (false), tokenize (true), chatTemplate (a
   *   template's name), tools, documents, templateVariables (more of the template's variables)
   */
  applyChatTemplate(messages, options) {
    this.#check('applyChatTemplate');
    return applyChatTemplate('PretrainedModel.applyChatTemplate', this.#chat, this.tokenizer, messages, options);
  }

  // generate({ messages, …options }): the messages and template options apart from the rest
  // (each read once).
  #chatRequest(fn, request, options) {
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

  // The new ids' text (special tokens skipped).
  #newText(start, ids) {
    return this.tokenizer.decode(ids.slice(start), { skipSpecialTokens: true });
  }

  #promptIds(fn, prompt) {
    if (typeof prompt === 'string') {
      if (this.tokenizer === null)
        throw rangeError(fn, 'this checkpoint has no tokenizer.json; pass the prompt as token ids');
      const ids = this.tokenizer.encode(prompt).ids;
      if (ids.length === 0) throw rangeError(fn, 'the prompt is empty');
      return ids;
    }
    if (!Array.isArray(prompt) && !ArrayBuffer.isView(prompt))
      throw typeError(fn, `prompt must be a string or token ids, got ${describe(prompt)}`);
    const ids = Array.from(prompt);
    if (ids.length === 0) throw rangeError(fn, 'the prompt is empty');
    ids.forEach((id, t) => {
      if (!Number.isInteger(id) || id < 0 || id >= this.descriptor.vocabSize)
        throw rangeError(fn, `prompt[${t}] is ${id}, not a token id in [0, ${this.descriptor.vocabSize})`);
    });
    return ids;
  }

  #generateOptions(fn, options) {
    if (options === null || typeof options !== 'object')
      throw typeError(fn, `options must be an object, got ${describe(options)}`);
    checkKeys(fn, 'option', options, GENERATE_OPTIONS);
    const d = this.generationDefaults;
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
    const eos =
      eosTokenId === undefined
        ? d.eosTokenId
        : eosList(fn, eosTokenId, 'options.eosTokenId', this.descriptor.vocabSize);
    const stops = this.#stopStrings(fn, stop);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw rangeError(fn, `options.seed must be an integer in [0, 2^32 - 1], got ${describe(seed)}`);
    if (onToken !== undefined && typeof onToken !== 'function')
      throw typeError(fn, `options.onToken must be a function, got ${describe(onToken)}`);
    if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean'))
      throw typeError(fn, `options.signal must be an AbortSignal, got ${describe(signal)}`);
    for (const [key, value] of Object.entries({ useCache, stopAtEos, returnScores })) {
      if (typeof value !== 'boolean') throw typeError(fn, `options.${key} must be a boolean, got ${describe(value)}`);
    }
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
      stopAtEos,
      returnScores,
    };
  }

  // options.stop: a string or strings, matched against the text as returned (special tokens
  // skipped), so a special token cannot be one: it is stopped on by its id (eosTokenId).
  #stopStrings(fn, stop) {
    if (stop === undefined) return [];
    const list = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop.slice() : null;
    if (list === null)
      throw typeError(fn, `options.stop must be a string or an array of strings, got ${describe(stop)}`);
    list.forEach((s, i) => {
      const where = typeof stop === 'string' ? 'options.stop' : `options.stop[${i}]`;
      if (typeof s !== 'string') throw typeError(fn, `${where} must be a string, got ${describe(s)}`);
      if (s === '') throw rangeError(fn, `${where} is empty`);
      if (this.tokenizer === null)
        throw rangeError(
          fn,
          'options.stop needs a tokenizer (the checkpoint has no tokenizer.json); stop on token ids with eosTokenId',
        );
      const e = this.tokenizer.encode(s, { addSpecialTokens: false });
      const special = e.ids.filter((_, t) => e.special[t]);
      if (special.length > 0)
        throw rangeError(
          fn,
          `${where} ${JSON.stringify(s)} holds a special token, which the text leaves out; stop on it by id: eosTokenId: [${special.join(', ')}]`,
        );
    });
    return list;
  }

  /** True once dispose() ran (the model's wasm memory is freed; every call throws). */
  get disposed() {
    return this.#handle === 0;
  }

  /** Frees the model's wasm memory. Idempotent. */
  dispose() {
    if (this.#handle === 0) return;
    this.#generating = false;
    finalizer.unregister(this.#token);
    this.#module._pretrainedDestroy(this.#handle);
    this.#handle = 0;
  }

  /**
   * Text → tokens with their spans, as forward sees them.
   * @param {string} text
   */
  tokenize(text) {
    this.#check('tokenize');
    if (this.tokenizer === null) throw rangeError('PretrainedModel.tokenize', 'this checkpoint has no tokenizer.json');
    const e = this.tokenizer.encode(text);
    return e.ids.map((id, i) => ({
      id,
      text: e.tokens[i],
      start: e.offsets[i][0],
      end: e.offsets[i][1],
      special: e.special[i],
    }));
  }

  /**
   * Sentence embeddings [texts, width]: each text's tokens pooled (and scaled to unit length)
   * as the folder's sentence-transformers modules say, or as options.pooling and
   * options.normalize say (they win). See embed.js.
   * @param {string | string[]} texts
   * @param {{ pooling?: string | string[], normalize?: boolean }} [options]
   */
  embed(texts, options) {
    this.#check('embed');
    return embedTexts(this, texts, options);
  }

  /**
   * The forward pass.
   * @param {string | string[] | number[] | number[][] | { inputIds: number[][], attentionMask?: number[][], tokenTypeIds?: number[][] }} input
   * @param {{ attentions?: boolean, hiddenStates?: boolean, logits?: boolean }} [options]
   */
  forward(input, options = {}) {
    const fn = 'PretrainedModel.forward';
    this.#check('forward');
    const { batch, flags, wantLogits, memory, options: o } = this.#plan(fn, input, options);
    checkBudget(this.#module, memory);
    const { B, T } = batch;
    const d = this.descriptor;
    const module = this.#module;
    const scope = new HeapScope(module, fn);
    try {
      const status = module._pretrainedForward(
        this.#handle,
        scope.ints(batch.ids),
        scope.ints(batch.positions),
        batch.types ? scope.ints(batch.types) : 0,
        scope.ints(batch.lengths),
        B,
        T,
        flags,
      );
      if (status !== 0) throw rangeError(fn, `the runner refused the call: ${refusal(module, status)}`);
      const rows = B * T;
      const result = { ids: batch.idRows, lengths: Array.from(batch.lengths) };
      if (batch.pads) result.padding = 'left';
      if (batch.tokens) result.tokens = batch.tokens;
      // [B, outer, T, inner] read out, in the caller's layout (left padding rotated back).
      const read = (at, count, outer, inner) => {
        const data = scope.read(at, count);
        return batch.pads ? unpadLeft(data, B, outer, T, inner, batch.pads) : data;
      };
      const runnerLast = scope.read(module._pretrainedOutput(this.#handle), rows * d.dModel);
      if (this.#classifier && wantLogits) Object.assign(result, this.#classify(runnerLast, batch));
      result.lastHiddenState = makeTensor(
        batch.pads ? unpadLeft(runnerLast.slice(), B, 1, T, d.dModel, batch.pads) : runnerLast,
        [B, T, d.dModel],
      );
      if (flags & contractOf(module).forwardFlags.logits)
        result.logits = makeTensor(read(module._pretrainedLogits(this.#handle), rows * d.vocabSize, 1, d.vocabSize), [
          B,
          T,
          d.vocabSize,
        ]);
      if (o.hiddenStates) {
        const at = module._pretrainedHiddenStates(this.#handle);
        result.hiddenStates = Array.from({ length: d.numLayers + 1 }, (_, l) =>
          makeTensor(read(at + 4 * l * rows * d.dModel, rows * d.dModel, 1, d.dModel), [B, T, d.dModel]),
        );
      }
      if (o.queriesAndKeys !== undefined) {
        const hd = d.headDim,
          qw = d.numHeads * hd;
        result.queries = headsFirst(
          read(module._pretrainedQueries(this.#handle), rows * qw, 1, qw),
          B,
          T,
          d.numHeads,
          hd,
        );
        result.keys = headsFirst(
          read(module._pretrainedKeys(this.#handle), rows * d.numKvHeads * hd, 1, d.numKvHeads * hd),
          B,
          T,
          d.numKvHeads,
          hd,
        );
      }
      if (o.attentions) {
        const at = module._pretrainedAttentions(this.#handle);
        const size = B * d.numHeads * T * T;
        result.attentions = Array.from({ length: d.numLayers }, (_, l) => {
          // [B, H, T(query), T(key)]: the query axis, then the key axis.
          const data = read(at + 4 * l * size, size, d.numHeads, T);
          return makeTensor(batch.pads ? unpadLeft(data, B, d.numHeads * T, T, 1, batch.pads) : data, [
            B,
            d.numHeads,
            T,
            T,
          ]);
        });
      }
      return result;
    } finally {
      module._pretrainedReleaseOutputs(this.#handle);
      scope.release();
    }
  }

  // The checked batch, the options (each read once: a getter runs once), the runner's flags
  // and the call's memory plan.
  #plan(fn, input, optionsIn) {
    if (optionsIn === null || typeof optionsIn !== 'object')
      throw typeError(fn, `options must be an object, got ${describe(optionsIn)}`);
    checkKeys(fn, 'option', optionsIn, FORWARD_OPTIONS);
    const { attentions, hiddenStates, logits, queriesAndKeys: qk } = optionsIn;
    const options = { attentions, hiddenStates, logits, queriesAndKeys: qk };
    for (const key of ['attentions', 'hiddenStates', 'logits']) {
      if (options[key] !== undefined && typeof options[key] !== 'boolean')
        throw typeError(fn, `options.${key} must be a boolean, got ${describe(options[key])}`);
    }
    if (qk !== undefined && (!Number.isInteger(qk) || qk < 0 || qk >= this.descriptor.numLayers)) {
      throw rangeError(
        fn,
        `options.queriesAndKeys must be a layer index in [0, ${this.descriptor.numLayers}), got ${describe(qk)}`,
      );
    }
    const batch = this.#batchOf(fn, input);
    this.#check(fn.slice(fn.indexOf('.') + 1)); // the input's getters and iterators are caller code
    const wantLogits = options.logits ?? true;
    const F = contractOf(this.#module).forwardFlags;
    const flags =
      (options.hiddenStates ? F.hiddenStates : 0) |
      (options.attentions ? F.attentions : 0) |
      (wantLogits && this.descriptor.lmHead ? F.logits : 0) |
      (qk !== undefined ? (qk + 1) << F.keepQkShift : 0);
    const { B, T } = batch;
    const memory = new MemoryPlan(fn).tensor('token ids', [B, T]).tensor('positions', [B, T]).tensor('lengths', [B]);
    if (batch.types) memory.tensor('token types', [B, T]);
    memory.scratch('activations and outputs', () => this.#module._pretrainedForwardBytes(this.#handle, B, T, flags));
    return { batch, flags, wantLogits, memory, options };
  }

  /** @internal estimateMemory('PretrainedModel.forward', model, input, options). */
  static _estimate(model, input, options = {}) {
    const fn = 'PretrainedModel.forward';
    if (!(model instanceof PretrainedModel))
      throw typeError(fn, `the model must be one attn.loadModel returned, got ${describe(model)}`);
    model.#check('forward');
    return model.#plan(fn, input, options).memory;
  }

  // The classification head on the pooled rows, in float64: logits [B, labels], probabilities.
  #classify(last, batch) {
    const d = this.descriptor.dModel;
    const layers = this.#classifier;
    const labels = layers.at(-1).labels;
    const logits = new Float32Array(batch.B * labels.length);
    const probabilities = new Float32Array(batch.B * labels.length);
    for (let b = 0; b < batch.B; b++) {
      const row = layers[0].pool === 'first' ? b * batch.T : b * batch.T + batch.lengths[b] - 1;
      let x = Array.from(last.subarray(row * d, row * d + d));
      for (const layer of layers) {
        const y = new Array(layer.out);
        for (let o = 0; o < layer.out; o++) {
          let sum = layer.bias ? layer.bias[o] : 0;
          for (let i = 0; i < d; i++) sum += layer.weight[o * d + i] * x[i];
          y[o] = layer.activation === 'tanh' ? Math.tanh(sum) : layer.activation === 'relu' ? Math.max(0, sum) : sum;
        }
        x = y;
      }
      const max = Math.max(...x);
      const exps = x.map((v) => Math.exp(v - max));
      const total = exps.reduce((a, v) => a + v, 0);
      x.forEach((v, i) => {
        logits[b * labels.length + i] = v;
        probabilities[b * labels.length + i] = exps[i] / total;
      });
    }
    const label = Array.from({ length: batch.B }, (_, b) => {
      const p = probabilities.subarray(b * labels.length, (b + 1) * labels.length);
      return labels[p.indexOf(Math.max(...p))];
    });
    return {
      logits: makeTensor(logits, [batch.B, labels.length]),
      probabilities: makeTensor(probabilities, [batch.B, labels.length]),
      labels: label,
    };
  }

  // Any input form → right-padded ids [B, T], positions, types, lengths.
  #batchOf(fn, input) {
    let sequences;
    let tokens = null;
    let masks = null;
    let typeRows = null;
    if (
      typeof input === 'string' ||
      (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'string'))
    ) {
      if (this.tokenizer === null) throw rangeError(fn, 'this checkpoint has no tokenizer.json; pass token ids');
      const texts = typeof input === 'string' ? [input] : input;
      tokens = texts.map((text) => this.tokenize(text));
      sequences = tokens.map((t) => t.map((x) => x.id));
    } else if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'number')) {
      sequences = [input];
    } else if (
      Array.isArray(input) &&
      input.length > 0 &&
      input.every((x) => Array.isArray(x) || ArrayBuffer.isView(x))
    ) {
      sequences = input.map((x) => Array.from(x));
    } else if (input !== null && typeof input === 'object' && !Array.isArray(input) && 'inputIds' in input) {
      sequences = Array.from(input.inputIds ?? [], (x) => Array.from(x));
      masks = input.attentionMask ? Array.from(input.attentionMask, (x) => Array.from(x)) : null;
      typeRows = input.tokenTypeIds ? Array.from(input.tokenTypeIds, (x) => Array.from(x)) : null;
    } else {
      throw typeError(
        fn,
        `input must be a string, strings, token ids (number[] or number[][]) or { inputIds, attentionMask? }, got ${describe(input)}`,
      );
    }
    if (sequences.length === 0) throw rangeError(fn, 'input holds no sequence');
    const d = this.descriptor;
    const B = sequences.length;
    const lengths = new Int32Array(B);
    // Left padding (0s then 1s): the sequence is moved to the front (forward rotates the
    // outputs back), so its tokens get the positions they would have alone.
    let pads = null;
    sequences.forEach((s, b) => {
      let n = s.length;
      if (masks) {
        const m = masks[b] ?? [];
        if (m.length !== s.length)
          throw rangeError(fn, `attentionMask[${b}] has ${m.length} entries but inputIds[${b}] has ${s.length}`);
        if (m.some((v) => v !== 0 && v !== 1)) throw rangeError(fn, `attentionMask[${b}] must hold only 0s and 1s`);
        const lead = m.indexOf(1);
        n = m.indexOf(0, Math.max(lead, 0));
        if (n < 0) n = m.length;
        if (lead > 0 && n === m.length) {
          pads ??= new Int32Array(B);
          pads[b] = lead;
          sequences[b] = s.slice(lead).concat(s.slice(0, lead));
          if (typeRows?.[b]) typeRows[b] = typeRows[b].slice(lead).concat(typeRows[b].slice(0, lead));
          n = m.length - lead;
        } else if (lead > 0 || m.slice(n).some((v) => v !== 0)) {
          throw rangeError(
            fn,
            `attentionMask[${b}] must be 1s then 0s (right padding) or 0s then 1s (left padding), got [${m.join(', ')}]`,
          );
        }
      }
      if (n < 1) throw rangeError(fn, `sequence ${b} is empty`);
      lengths[b] = n;
    });
    let T = 0; // a loop, not Math.max(...): a batch may hold more sequences than a call has arguments
    for (const s of sequences) T = Math.max(T, s.length);
    if (T > d.contextLength)
      throw rangeError(
        fn,
        `a sequence has ${T} tokens but this model takes at most ${d.contextLength} (max positions)`,
      );
    const pad = this.config.pad_token_id ?? this.config.eos_token_id ?? 0;
    const ids = new Int32Array(B * T);
    const positions = new Int32Array(B * T);
    const types = typeRows ? new Int32Array(B * T) : null;
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < T; t++) {
        const id = t < sequences[b].length ? sequences[b][t] : pad;
        if (!Number.isInteger(id) || id < 0 || id >= d.vocabSize)
          throw rangeError(fn, `token id ${id} at [${b}, ${t}] is outside [0, ${d.vocabSize})`);
        ids[b * T + t] = id;
        // RoBERTa counts positions from padding_idx + 1 and puts padding at padding_idx.
        positions[b * T + t] = d.positionOffset ? (t < lengths[b] ? d.positionOffset + t : d.positionOffset - 1) : t;
        if (types) {
          const type = typeRows[b]?.[t] ?? 0;
          if (!Number.isInteger(type) || type < 0 || type >= Math.max(1, d.typeVocabSize))
            throw rangeError(fn, `token type ${type} at [${b}, ${t}] is outside [0, ${Math.max(1, d.typeVocabSize)})`);
          types[b * T + t] = type;
        }
      }
    }
    const idRows = sequences.map((s, b) => s.slice(0, lengths[b]));
    return { B, T, ids, positions, types, lengths, tokens, idRows, pads };
  }
}
