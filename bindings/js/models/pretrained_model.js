// A pretrained model loaded by loadModel: its forward pass runs in wasm (src/model/runner),
// on text (through its tokenizer) or token ids, and returns what the views need: logits,
// every layer's attention maps and hidden states, and the tokens with their character spans.
import { statusError } from '../status.js';
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { HeapScope } from '../heap.js';
import { tensor as makeTensor } from '../tensor.js';
import { MemoryPlan, checkBudget, heapMaxBytes, formatBytes, TENSOR_MAX_BYTES } from '../memory.js';
import { generationDefaults } from './generation_config.js';
import { batchOf, unpadLeft } from './padding.js';
import {
  isChatRequest,
  chatRequest,
  promptIds,
  generateOptions,
  generateTokens,
  KV_STORAGES,
  kvRowBytes,
} from './generation.js';
import { applyChatTemplate } from './chat_template.js';
import { contractOf } from '../contract.js';
import { embedTexts } from './embed.js';
import { checkFiniteRows } from './finite_outputs.js';
import { checkTextFits } from './text_limits.js';
import { nextTokenDistribution } from './next_token.js';
import { checkTraceOption, checkTracePosition, readTrace } from './trace.js';
import { classifyRows } from './classifier_head.js';

const FORWARD_OPTIONS = ['attentions', 'hiddenStates', 'logits', 'queriesAndKeys', 'trace'];
// Why the runner refused a forward call with `status`, in a forward call's words (a buffer's
// limit is not the heap's: both are named).
const refusal = (fn, module, status) =>
  statusError(fn, module, status, {
    who: 'runner',
    words: {
      kBadKeyLength: 'a length is outside [1, T]',
      kBadArgument: 'a token id, position or type is out of range',
      kTooLarge: `one of its buffers would pass 2 GiB, the most one buffer may hold (the wasm heap holds ${formatBytes(heapMaxBytes(module), true)} in all)`,
    },
  });
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
      parameterCount = null,
      matrixDtype = 'float32',
      quantizedAtLoad = {},
      matrixStorages = {},
      unusedTensors = Object.freeze([]),
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
     * How many parameters the checkpoint's tensors that this model reads hold (each tensor
     * once: a tied embedding and LM head is one), or null for a model built from tensors.
     */
    this.parameterCount = parameterCount;
    /**
     * How the matrices are held: 'bfloat16' (a BF16 checkpoint's values as they are, half the
     * bytes, widened exactly as the kernels read them) or 'float32' (every sum is float32
     * either way, with the same bits); 'q8' / 'q4': Q8_0 / Q4_0 blocks (dtype 'q8' / 'q4', or
     * a GGUF file's blocks with dtype 'auto'); 'q4_k' / 'q6_k': a GGUF file's K-quant blocks,
     * when most of the matrices' weights are in them (see matrixStorages for the mix).
     */
    this.matrixDtype = matrixDtype;
    /**
     * How many of the weights held as matrices (the matrices, and the word embeddings when
     * they are blocks) are in each storage: 'float32', 'bfloat16', 'q8_0', 'q4_0', 'q4_k',
     * 'q6_k' ({ q4_k: 169, q6_k: 28 } for a Q4_K_M file).
     */
    this.matrixStorages = Object.freeze(matrixStorages);
    /**
     * The checkpoint's tensors this model does not read (an lm_head under a base head, a
     * GPT-2 attention-mask buffer), sorted; transformers warns of the same ones.
     */
    this.unusedTensors = unusedTensors;
    /**
     * With 'q8' / 'q4' matrices: how many of the weights held as blocks (the matrices and the
     * word embeddings) were quantized at load rather than kept as a GGUF file's blocks, by the
     * type they came in ({ Q6_K: 1 }: a Q6_K output matrix re-quantized). {} when none were.
     */
    this.quantizedAtLoad = Object.freeze(quantizedAtLoad);
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

  // One runner call on checked ids: returns the [rows or B, V] logits (copied out). Its
  // memory (one chunk's activations when the cache takes the ids in chunks) is checked first.
  #logitsOf(fn, ids, positions, T, flags) {
    const module = this.#module;
    const memory = new MemoryPlan(fn).tensor('token ids', [T]).tensor('positions', [T]);
    const F = contractOf(module).forwardFlags;
    const chunk = flags & F.useCache ? Math.min(T, contractOf(module).prefillChunk) : T;
    memory.scratch(`activations of ${chunk} tokens at once`, () =>
      module._pretrainedForwardBytes(this.#handle, 1, T, flags, -1),
    );
    checkBudget(module, memory);
    const scope = new HeapScope(module, fn);
    try {
      const status = module._pretrainedForward(
        this.#handle,
        scope.ints(ids),
        scope.ints(positions),
        0,
        0,
        1,
        T,
        flags,
        -1,
      );
      if (status !== 0) throw refusal(fn, module, status);
      const logits = scope.read(module._pretrainedLogits(this.#handle), this.descriptor.vocabSize);
      checkFiniteRows(fn, 'logits', logits, logits.length, () => `position ${positions[T - 1]}`);
      return logits;
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
   *   useCache (true), kvDtype ('float32'; 'bfloat16' or 'float16': the key/value cache
   *   at half the bytes, each key and value rounded once; 'q8': llama.cpp's q8_0 cache, int8
   *   blocks of 32 with a float16 scale, 34 bytes per 32), stopAtEos (true), returnScores (false)
   */
  async generate(prompt, options = {}) {
    const fn = 'PretrainedModel.generate';
    this.#check('generate');
    const chat = isChatRequest(prompt) ? chatRequest(fn, prompt, options) : null;
    const o = generateOptions(fn, chat?.options ?? options, {
      defaults: this.generationDefaults,
      vocabSize: this.descriptor.vocabSize,
      tokenizer: this.tokenizer,
    });
    if (!this.descriptor.lmHead || !this.descriptor.causal)
      throw rangeError(fn, `this model's head is '${this.head}'; generate needs a causal-LM head (GPT-2, Llama)`);
    if (this.#generating)
      throw new Error(`${fn}: this model is already generating; await the first call (or stop it) before the next`);
    const prompted = chat
      ? this.#chatIds(fn, chat)
      : promptIds(fn, prompt, this.tokenizer, this.descriptor.vocabSize, this.descriptor.contextLength);
    this.#check('generate'); // the prompt's iterator is caller code
    const limit = this.descriptor.contextLength;
    if (prompted.length >= limit)
      throw rangeError(
        fn,
        `the prompt has ${prompted.length} tokens; this model sees at most ${limit}, leaving no room for a new one`,
      );
    this.#generating = true;
    try {
      return await generateTokens(fn, this.#generationStep(fn), prompted, o);
    } finally {
      this.#generating = false;
    }
  }

  // The chat template's text with a generation prompt, its length checked before it is
  // tokenized whole (as applyChatTemplate tokenizes: no special tokens added).
  #chatIds(fn, chat) {
    const text = applyChatTemplate(fn, this.#chat, this.tokenizer, chat.messages, {
      ...chat.template,
      addGenerationPrompt: true,
      tokenize: false,
    });
    checkTextFits(fn, this.tokenizer, text, this.descriptor.contextLength - 1, 'the chat prompt');
    return this.tokenizer.encode(text, { addSpecialTokens: false }).ids;
  }

  // What generation.js's token loop needs of this model (its handle stays here).
  #generationStep(fn) {
    const module = this.#module;
    const F = contractOf(module).forwardFlags;
    return {
      check: () => this.#check('generate'),
      contextLength: this.descriptor.contextLength,
      ropeScaling: this.descriptor.ropeScaling,
      reserveCache: (capacity, kvDtype) =>
        module._pretrainedReserveCache(
          this.#handle,
          1,
          capacity,
          contractOf(module).kvStorages[KV_STORAGES[kvDtype]],
        ) === 1,
      cacheBytes: () => module._pretrainedCacheBytes(this.#handle),
      cacheRefusal: (capacity, kvDtype) => this.#cacheRefusal(capacity, kvDtype),
      truncateCache: () => module._pretrainedTruncateCache(this.#handle, 0),
      dropCache: () => {
        if (this.#handle !== 0) module._pretrainedDropCache(this.#handle);
      },
      logits: (chunk, positions, useCache) =>
        this.#logitsOf(fn, chunk, positions, chunk.length, F.logits | F.lastLogitsOnly | (useCache ? F.useCache : 0)),
      // The new ids' text (special tokens skipped), or null without a tokenizer.
      newText: (start, ids) =>
        this.tokenizer ? this.tokenizer.decode(ids.slice(start), { skipSpecialTokens: true }) : null,
    };
  }

  // Why a key/value cache of `capacity` tokens stored as `kvDtype` could not be reserved: its
  // bytes against one buffer's limit (keys and values are one buffer each) or the heap's room.
  #cacheRefusal(capacity, kvDtype) {
    const d = this.descriptor;
    const each = d.numLayers * capacity * kvRowBytes(kvDtype, d.numKvHeads * d.headDim);
    const heapMax = heapMaxBytes(this.#module);
    const cache = `the ${kvDtype} key/value cache of ${capacity} tokens needs ${formatBytes(2 * each)} (keys and values, ${formatBytes(each)} each)`;
    if (each > TENSOR_MAX_BYTES)
      return `${cache}; one buffer must stay under 2 GiB (the wasm heap holds ${formatBytes(heapMax, true)} in all)`;
    const free = heapMax - this.#module._heapBytesInUse();
    return `${cache}; ${formatBytes(free)} of the ${formatBytes(heapMax, true)} wasm heap are free`;
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
   * The probabilities generate would sample the next token from, given these logits:
   * softmax(logits / temperature) over the tokens top-k, top-p and min-p keep (generate's
   * warpers, in its order), renormalised; 0 for the removed ones. temperature 0: 1 on the
   * argmax.
   * @param {ArrayLike<number> | { data: ArrayLike<number> }} logits [vocabSize]
   * @param {{ temperature?: number, topK?: number, topP?: number, minP?: number }} [options]
   * @returns {Float64Array} [vocabSize]
   */
  samplingDistribution(logits, options = {}) {
    this.#check('samplingDistribution');
    return nextTokenDistribution('PretrainedModel.samplingDistribution', logits, options, this.descriptor.vocabSize);
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
        o.trace?.position ?? -1,
      );
      if (status !== 0) throw refusal(fn, module, status);
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
      if (o.trace) result.trace = readTrace(module, this.#handle, scope, d, batch, o.trace.position, flags);
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
      // Logits when there are any, else the last hidden state (what an encoder answers with).
      const [what, checked, width] = result.logits
        ? ['logits', result.logits.data, d.vocabSize]
        : ['last hidden state', result.lastHiddenState.data, d.dModel];
      checkFiniteRows(fn, what, checked, width, (row) => `batch ${Math.floor(row / T)}, position ${row % T}`);
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
    const { attentions, hiddenStates, logits, queriesAndKeys: qk, trace: traceIn } = optionsIn;
    const trace = checkTraceOption(fn, traceIn);
    const options = { attentions, hiddenStates, logits, queriesAndKeys: qk, trace };
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
    const batch = batchOf(fn, input, this);
    this.#check(fn.slice(fn.indexOf('.') + 1)); // the input's getters and iterators are caller code
    if (trace) checkTracePosition(fn, trace, batch);
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
    // The outputs that grow with T² or T × V by name (a refusal names what does not fit), then
    // the runner's activations: what it allocates besides them.
    const d = this.descriptor;
    const outputs = new MemoryPlan(fn);
    if (options.attentions) outputs.tensor('attention maps', [d.numLayers, B, d.numHeads, T, T]);
    if (options.hiddenStates) outputs.tensor('hidden states', [d.numLayers + 1, B, T, d.dModel]);
    if (flags & F.logits) outputs.tensor('logits', [B, T, d.vocabSize]);
    memory.blocks.push(...outputs.blocks);
    memory.scratch(
      'activations',
      () => this.#module._pretrainedForwardBytes(this.#handle, B, T, flags, trace?.position ?? -1) - outputs.bytes,
    );
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

  // The classification head on the pooled rows (classifier_head.js).
  #classify(last, batch) {
    return classifyRows(this.#classifier, last, batch, this.descriptor.dModel);
  }
}
