// The public API object that init() resolves to. Shared by the Node and browser entries.
import { makeAttention } from './attention.js';
import { makeKVCache, kvCacheMemory } from './kv_cache.js';
import { makeMatmul } from './matmul.js';
import { makeAttentionBackward } from './attention_backward.js';
import { MultiHeadAttention, planMultiHeadConfig, planForward, multiHeadConfigOf } from './multi_head.js';
import { makePositional } from './positional.js';
import { makeBlock } from './block.js';
import { makeNormalization } from './normalization.js';
import { makeSoftmax } from './softmax.js';
import { TinyTransformer } from './tiny_transformer.js';
import { trainWeights, classifierFiles, FILES_OPTIONS } from './text/train_classifier.js';
import { TRAIN_OPTIONS } from './text/train_options.js';
import { checkKeys } from './checks.js';
import { makeBackward } from './backward.js';
import { tensor, toNested, toTfjs, toOrt } from './tensor.js';
import { describePlan, heapMaxBytes } from './memory.js';
import { typeError, rangeError, describe } from './errors.js';
import { VERSION } from './version.js';
import { views } from './heap.js';

/**
 * Wraps a loaded Emscripten module in the public API.
 * @param {object} module the instantiated module (dist/attention.js or attention-relaxed.js)
 * @param {{ variant: 'baseline' | 'relaxed', threads: number, threadsReason: string | null }} build
 *   which build it is, how many threads its kernels use, and why fewer than asked (or null)
 * @param {(() => Promise<object>) | null} models imports the pretrained-model code
 *   (bindings/js/models/models_chunk.js) for loadModel and the text classifier; null where an
 *   entry leaves it out
 */
export function createApi(module, { variant, threads = 1, threadsReason = null, tileRows = 4 }, models = null) {
  // The layer class bound to this module: `new attn.MultiHeadAttention(config)`.
  class BoundMultiHeadAttention extends MultiHeadAttention {
    constructor(config) {
      super(module, config);
    }
  }
  Object.defineProperty(BoundMultiHeadAttention, 'name', { value: 'MultiHeadAttention' });
  // The training model bound to this module: `new attn.TinyTransformer(config)`.
  class BoundTinyTransformer extends TinyTransformer {
    constructor(config) {
      super(module, config);
    }
  }
  Object.defineProperty(BoundTinyTransformer, 'name', { value: 'TinyTransformer' });
  const { attention, estimate: attentionEstimate } = makeAttention(module);
  const KVCache = makeKVCache(module);
  const { matmul, estimate: matmulEstimate } = makeMatmul(module);
  const { attentionBackward, estimate: backwardEstimate } = makeAttentionBackward(module);
  const { estimates: positionalEstimates, ...positional } = makePositional(module);
  const { estimates: blockEstimates, ...block } = makeBlock(module);
  const { estimates: normalizationEstimates, ...normalization } = makeNormalization(module);
  const { estimates: softmaxEstimates, ...softmaxes } = makeSoftmax(module);
  const backward = makeBackward(module);

  // fnName → (...the call's own arguments) → MemoryPlan. Each checks its arguments exactly as
  // the call does (same errors) and touches no wasm memory.
  const estimates = {
    attention: attentionEstimate,
    matmul: matmulEstimate,
    attentionBackward: backwardEstimate,
    ...positionalEstimates,
    ...blockEstimates,
    ...normalizationEstimates,
    ...softmaxEstimates,
    MultiHeadAttention: (config) => planMultiHeadConfig(config).memory,
    KVCache: (config) => kvCacheMemory(config),
    'PretrainedModel.forward': (model, input, options) => {
      // The model's own class (loaded with it: the model code is a chunk of its own).
      const cls = model?.constructor;
      if (typeof cls?._estimate !== 'function' || cls.name !== 'PretrainedModel') {
        throw typeError(
          'PretrainedModel.forward',
          `the model must be one attn.loadModel returned, got ${describe(model)}`,
        );
      }
      return cls._estimate(model, input, options);
    },
    'MultiHeadAttention.forward': (layerOrConfig, query, key = query, value = key, options = {}) => {
      const c = multiHeadConfigOf(layerOrConfig) ?? planMultiHeadConfig(layerOrConfig).c;
      return planForward(module, c, query, key, value, options).memory;
    },
  };

  /**
   * The wasm memory a call would take, without making it: estimateMemory('attention', q, k, v,
   * options). Layers: ('MultiHeadAttention', config) for the weights, and
   * ('MultiHeadAttention.forward', layerOrConfig, query, key?, value?, options?).
   */
  function estimateMemory(fnName, ...args) {
    if (typeof fnName !== 'string')
      throw typeError('estimateMemory', `fnName must be a string, got ${describe(fnName)}`);
    if (!Object.hasOwn(estimates, fnName)) {
      throw rangeError('estimateMemory', `unknown function '${fnName}' (known: ${Object.keys(estimates).join(', ')})`);
    }
    return describePlan(module, estimates[fnName](...args));
  }

  return Object.freeze(
    requireNew({
      // target: what the kernels were compiled for ('wasm-simd128' or 'wasm-relaxed-simd').
      // tileRows: query rows per register tile of the kernels (6 or 4; the same bits either way).
      info: Object.freeze({
        version: VERSION,
        build: variant,
        target: module._simdTarget(),
        simd: true,
        relaxedSimd: variant === 'relaxed',
        threads,
        threadsReason,
        tileRows,
      }),
      attention,
      attentionBackward,
      matmul,
      MultiHeadAttention: BoundMultiHeadAttention,
      KVCache,
      TinyTransformer: BoundTinyTransformer,
      /**
       * Loads a Hugging Face checkpoint (config.json, tokenizer.json, model.safetensors) from a
       * folder path (Node), a URL prefix, Files or a map of file names to bytes.
       */
      loadModel: async (source, options) => {
        if (!models)
          throw new TypeError(
            "loadModel: this entry leaves the model code out (the elements' training Workers); import attention-wasm itself",
          );
        return (await models()).loadModel(module, source, options);
      },
      /**
       * Text classification (seed 001's application): load(source) reads a classifier folder
       * (config.json, tokenizer.json, model.safetensors); train(corpus, options) learns one
       * from TSV, CSV or JSONL text; trainFiles(corpus, options) trains and returns the files
       * only (it needs no tokenizer library: for Workers; TextClassifier.load reads them).
       */
      TextClassifier: Object.freeze({
        load: async (source, options) => {
          if (!models)
            throw new TypeError(
              "TextClassifier.load: this entry leaves the model code out (the elements' training Workers); import attention-wasm itself, or use TextClassifier.trainFiles",
            );
          return (await models()).loadClassifier(module, source, options);
        },
        train: async (corpus, options) => {
          if (!models)
            throw new TypeError(
              "TextClassifier.train: this entry leaves the model code out (the elements' training Workers); use TextClassifier.trainFiles",
            );
          return (await models()).trainClassifier(module, corpus, options);
        },
        trainFiles: async (corpus, options) => {
          // Unknown keys refused with both lists (train's and toFiles'), before training.
          checkKeys('TextClassifier.trainFiles', 'option', options, [...TRAIN_OPTIONS, ...FILES_OPTIONS]);
          const { dtype, metrics, ...rest } = options ?? {};
          const trained = await trainWeights(module, corpus, rest);
          try {
            return classifierFiles({ ...trained, tensors: trained.model.getWeights().tensors }, { dtype, metrics });
          } finally {
            trained.model.dispose();
          }
        },
      }),
      ...positional,
      ...block,
      ...normalization,
      ...softmaxes,
      ...backward,
      tensor,
      toNested,
      toTfjs,
      toOrt,
      estimateMemory,
      /**
       * Wasm memory: the heap's size now and the most it can grow to, the bytes malloc has
       * handed out now, and the most malloc has ever taken from the heap (a high-water mark,
       * scratch memory included).
       */
      memory() {
        return {
          heapBytes: views(module).HEAP8.length,
          heapMaxBytes: heapMaxBytes(module),
          inUseBytes: module._heapBytesInUse(),
          peakBytes: module._heapPeakBytes(),
        };
      },
    }),
  );
}

// The API's classes, each behind a Proxy that answers a call without `new` with a TypeError
// naming the class (the engine's own message named an internal class, and nothing else).
function requireNew(api) {
  for (const [name, value] of Object.entries(api)) {
    if (typeof value !== 'function' || !/^class\b/.test(Function.prototype.toString.call(value))) continue;
    api[name] = new Proxy(value, {
      apply() {
        throw typeError(name, `called without new; create one with new attn.${name}(config)`);
      },
    });
  }
  return api;
}
