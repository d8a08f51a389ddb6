/**
 * The API: `init()` and what it resolves to, tensors and the layers.
 * @packageDocumentation
 * @module attention-wasm
 */
// Types for attention-wasm, and the source of its API reference (TypeDoc: `npm run docs`).
// Glossary: Lq = query length (seqQ), Lk = key length (seqK), dk = head dim (headDim),
// dv = value dim (valueDim). Shapes are row-major.
// Errors: every function checks its arguments in JS before any wasm memory is taken and
// throws a TypeError (wrong type) or RangeError (wrong shape or value) whose message starts
// with the public function's name and names the argument, e.g.
// `attention: k has 8 columns but q has 16 (dk must match)`.

/**
 * A dense float tensor, row-major: `data.length === shape.reduce((a, b) => a * b, 1)`.
 * Every function returns tensors of this form.
 * @example
 * const t = attn.tensor([1, 2, 3, 4, 5, 6], [2, 3]);   // { data: Float32Array(6), shape: [2, 3] }
 */
export interface Tensor {
  /** The values, row-major (last axis fastest). */
  data: Float32Array;
  /** The size of each axis; `[]` is a scalar (one value). */
  shape: number[];
}

/** Nested arrays of numbers, e.g. `[[1, 2], [3, 4]]` (shape inferred, must be rectangular). */
export type NestedNumbers = number | NestedNumbers[];
/** Nested arrays of booleans, e.g. `[[true, false], [true, true]]`. */
export type NestedBooleans = boolean | NestedBooleans[];

/** Numeric data accepted in a tensor: Float32Array is used as is, anything else converted once. */
export type NumericData =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array
  | number[];

/**
 * Anything a function takes as a tensor: `{ data, shape }` (any numeric data), nested number
 * arrays, a TensorFlow.js `Tensor` (read with `dataSync()`) or an onnxruntime-web `Tensor`
 * (`dims` and `data`). Non-Float32 data costs one conversion (a copy) per call.
 * @example
 * attn.attention([[1, 0], [0, 1]], k, v);            // nested arrays
 * attn.attention(tf.randomNormal([8, 64]), k, v);    // a tfjs tensor
 * attn.attention({ data: new Float64Array(512), shape: [8, 64] }, k, v);
 */
export type TensorLike = Tensor | NumericTensor | HalfTensor | NestedNumbers[] | TfjsTensorLike | OrtTensorLike;

/** A tensor with any numeric data (converted to float32 once per call unless Float32Array). */
export interface NumericTensor {
  /** The values, row-major. */
  data: NumericData;
  /** The size of each axis. */
  shape: number[];
}

/**
 * 16-bit floats as their bits (as onnxruntime-web and safetensors hold them), decoded
 * exactly to float32 once per call. Masks may be given this way too.
 */
export interface HalfTensor {
  /** The bits, row-major. */
  data: Uint16Array;
  /** The size of each axis. */
  shape: number[];
  /** IEEE binary16 or bfloat16. */
  dtype: 'float16' | 'bfloat16';
}

/** What is read of a TensorFlow.js `Tensor` (float32, int32 or bool). */
export interface TfjsTensorLike {
  /** The tensor's shape. */
  shape: number[];
  /** `'float32'`, `'int32'` or `'bool'` (a boolean mask). */
  dtype: string;
  /** Its values, read once per call. */
  dataSync(): ArrayLike<number>;
}

/** What is read of an onnxruntime-web `Tensor` (a numeric or bool type). */
export interface OrtTensorLike {
  /** The tensor's shape. */
  dims: readonly number[];
  /** Its element type, e.g. `'float32'` or `'bool'`. */
  type: string;
  /** Its values (a typed array matching `type`). */
  data: unknown;
}

/**
 * An attention mask, broadcast to the weights' shape `[..., Lq, Lk]` (PyTorch rules):
 * - boolean: `{ data: Uint8Array, shape }` or nested booleans; **true / 1 = may attend**;
 * - additive: `{ data: Float32Array, shape }` or nested numbers, added to the scaled
 *   scores; `-Infinity` blocks the key whatever its score.
 * @example
 * const mask = [[true, false, false], [true, true, false]];   // [Lq=2, Lk=3]
 */
export type MaskLike = Tensor | BooleanMask | HalfTensor | NestedBooleans[] | NestedNumbers[];

/** A boolean mask tensor: nonzero = may attend. */
export interface BooleanMask {
  /** 0/1 per (query, key), row-major. */
  data: Uint8Array;
  /** Broadcast to `[..., Lq, Lk]`. */
  shape: number[];
}

/** A sliding window of keys around each query's position (see {@link AttentionOptions.window}). */
export interface AttentionWindow {
  /** Keys before the query's position it may see (0: none before). Default: no limit. */
  left?: number;
  /** Keys after the query's position it may see (0: none after). Default: no limit. */
  right?: number;
}

/** Dropout of the attention weights (see {@link AttentionOptions.dropout}). */
export interface AttentionDropout {
  /** Probability of dropping a weight, in [0, 1); 0: none. */
  p: number;
  /** An integer in [0, 2³²). Optional in the forward (then drawn and returned), required in the backward. */
  seed?: number;
}

/** Options of {@link AttentionWasm.attention}. */
export interface AttentionOptions {
  /** Boolean or additive mask, broadcast to `[..., Lq, Lk]`. */
  mask?: MaskLike;
  /** Hide keys after each query's position. Default false. */
  causal?: boolean;
  /**
   * Where the causal diagonal starts when Lq ≠ Lk. `'top-left'` (default, PyTorch): row i
   * sees keys j ≤ i (with `pastKey`: j ≤ past + i, the queries beside the new keys).
   * `'bottom-right'` (FlashAttention, KV-cache decoding): row i sees keys j ≤ i + Lk − Lq.
   * `'bottom-right-per-sequence'` (ONNX's `nonpad_kv_seqlen`): row i sees j ≤ i + len − Lq,
   * len that sequence's entry of `keyLengths`. An integer n: row i sees j ≤ i + n.
   */
  causalAlign?: 'top-left' | 'bottom-right' | 'bottom-right-per-sequence' | number;
  /** Multiplies q·kᵀ. Default `1 / sqrt(dk)`; 0 is legal (uniform weights); must be finite. */
  scale?: number;
  /**
   * Score capping (Gemma 2, ONNX Attention's `softcap`): the scaled scores s become
   * `softcap·tanh(s / softcap)` before the mask, so no score exceeds ±softcap. 0 or
   * undefined: none; else in [2⁻¹⁴⁹, 3.4028234663852886e38] (float32's positive range,
   * subnormals included). Backward too.
   */
  softcap?: number;
  /**
   * Sliding-window (local) attention (Mistral, Gemma, Longformer's local part): query i, at
   * key position p = i + the offset of `causalAlign` (with or without `causal`), sees keys
   * p − left … p + right. A side left out (or `Infinity`) has no limit; with `causal` the right
   * side is 0 anyway. Hugging Face's `sliding_window: w` is `{ left: w − 1 }` with `causal`.
   * Combines with masks, key lengths, softcap and GQA. The fused kernel walks only the key
   * tiles a window reaches: cost O(Lq·w), not O(Lq·Lk). Backward too.
   */
  window?: AttentionWindow;
  /**
   * Dropout of the attention weights (PyTorch SDPA's `dropout_p`): each weight is dropped
   * with probability `p` and the kept ones are divided by 1 − p, after the softmax (its sums
   * keep every weight). Deterministic: which weights drop is a hash of
   * (seed, batch entry, row, key), so the same seed gives the same bits on every build and
   * thread count, and {@link AttentionWasm.attentionBackward} given the same seed agrees.
   * Without `seed` one is drawn and returned as `dropoutSeed`. `p` in [0, 1).
   */
  dropout?: AttentionDropout;
  /**
   * Where the head axis is. `'bhsd'` (default, PyTorch): q `[..., heads, Lq, dk]` (any
   * leading dims). `'bshd'` (FlashAttention, Hugging Face projections, ONNX's 3-D inputs
   * reshaped): q `[..., Lq, heads, dk]`, k and v `[..., Lk, heads, d]`, output
   * `[..., Lq, heads, dv]`; no transpose is made. Masks, weights and `trace` stay
   * `[..., heads, Lq, Lk]`.
   */
  layout?: 'bhsd' | 'bshd';
  /**
   * The keys of past positions (ONNX Attention's `past_key`): `[..., kvHeads, past, dk]`,
   * k's own leading dims in the `'bhsd'` layout whatever `layout` is. The call attends over
   * `[past, k]` and returns it as `presentKey`. With `causal` the queries sit beside the new
   * keys (`causalAlign` 'top-left' counts from the first new key). Copies the cache each call:
   * for decoding token by token, {@link KVCache} appends in place instead.
   */
  pastKey?: TensorLike;
  /** The values of past positions, `[..., kvHeads, past, dv]`; with `pastKey`. */
  pastValue?: TensorLike;
  /**
   * Per-sequence key lengths for padded batches: one integer in [0, Lk] per entry of the
   * first leading dim (or a single number when q, k, v have no leading dims). Keys at
   * or past the length are hidden.
   */
  keyLengths?: number | number[] | Int32Array;
  /**
   * DynamicViT keep decisions for self-attention, `[..., L]` of 0/1: token j is attended
   * only if kept, except that every token attends to itself (`G_ij = 1 if i = j else
   * keep_j`). Combined with `mask` when both are given.
   */
  keepMask?: MaskLike | number[];
  /**
   * Grouped-query attention (PyTorch's `enable_gqa`): k and v may have fewer heads than q on
   * the head axis (`[..., heads, L, d]`); q head h uses k/v head `floor(h / (Hq / Hkv))`.
   */
  enableGqa?: boolean;
  /** Also return the attention weights `[..., Lq, Lk]` (uses the step-by-step path). */
  returnWeights?: boolean;
  /** Also return every stage a tutorial shows (implies returnWeights). */
  trace?: boolean;
  /**
   * Write the output into this array instead of a new one: a `Float32Array` of exactly as
   * many values as the output `[..., Lq, dv]` (any buffer, shared or not). The result's
   * `output.data` is then this very array. A loop that calls attention again and again
   * reuses it and allocates nothing per call; in Chromium a new result array costs more than
   * the kernel for small inputs (see docs/benchmarks.md). It may be `q`'s, `k`'s or
   * `v`'s own data: the inputs are copied into the wasm heap before anything is written.
   * Only the output: `weights` and `trace` are new arrays.
   * @example
   * const out = new Float32Array(64 * 64);
   * for (const q of queries) attn.attention(q, k, v, { out });   // out holds the latest output
   */
  out?: Float32Array;
}

/** The stages of one attention call, each `[..., Lq, Lk]` except `output`. */
export interface AttentionTrace {
  /** Raw scores q·kᵀ. */
  scores: Tensor;
  /** q·kᵀ·scale. */
  scaledScores: Tensor;
  /** With `softcap`: softcap·tanh(scaledScores / softcap). */
  cappedScores?: Tensor;
  /** After the mask, the causal rule and key lengths (-Infinity where blocked). */
  maskedScores: Tensor;
  /** softmax of the masked scores; rows with no visible key are zeros. */
  weights: Tensor;
  /** With `dropout`: the weights after it (0 or weight / (1 − p)), what multiplies v. */
  droppedWeights?: Tensor;
  /** weights·v (droppedWeights·v with dropout), `[..., Lq, dv]`. */
  output: Tensor;
}

/** Options of {@link AttentionWasm.attentionBackward}: those of the forward call. */
export interface AttentionBackwardOptions {
  /** Boolean or additive mask, broadcast to `[..., Lq, Lk]` (it gets no gradient). */
  mask?: MaskLike;
  /** Hide keys after each query's position. Default false. */
  causal?: boolean;
  /** Causal alignment when Lq ≠ Lk, as in {@link AttentionOptions.causalAlign}. */
  causalAlign?: 'top-left' | 'bottom-right' | 'bottom-right-per-sequence' | number;
  /** Multiplies q·kᵀ. Default `1 / sqrt(dk)`. */
  scale?: number;
  /** Per-sequence key lengths, as in {@link AttentionOptions.keyLengths}. */
  keyLengths?: number | number[] | Int32Array;
  /** Score capping, as in {@link AttentionOptions.softcap}; its slope `1 − tanh²` enters dq and dk. */
  softcap?: number;
  /** The forward's sliding window, as in {@link AttentionOptions.window}. */
  window?: AttentionWindow;
  /** The forward's dropout, with its seed (required: the forward's `dropoutSeed`). */
  dropout?: AttentionDropout;
  /**
   * Grouped-query attention, as in {@link AttentionOptions.enableGqa}: k and v have fewer heads
   * (the axis before `[L, d]`) than q, each shared by `Hq / Hkv` query heads; dk and dv are the
   * sums over each group. Default false (then q, k, v, dOut share their leading dims).
   */
  enableGqa?: boolean;
}

/** What {@link AttentionWasm.attentionBackward} returns: the gradients of q, k and v. */
export interface AttentionGradients {
  /** `[..., Lq, dk]` */
  dq: Tensor;
  /** `[..., Lk, dk]` */
  dk: Tensor;
  /** `[..., Lk, dv]` */
  dv: Tensor;
}

/** What {@link AttentionWasm.linearBackward} returns. */
export interface LinearGradients {
  /** `[..., in]`: `dy·wᵀ` */
  dx: Tensor;
  /** `[in, out]`: `xᵀ·dy`, summed over every leading row */
  dw: Tensor;
  /** `[out]`: `Σ dy` over the rows */
  db: Tensor;
}

/** What {@link AttentionWasm.layerNormBackward} returns. */
export interface LayerNormGradients {
  /** `[..., d]` */
  dx: Tensor;
  /** `[d]`: `Σ dy·x̂` over the rows */
  dgamma: Tensor;
  /** `[d]`: `Σ dy` over the rows */
  dbeta: Tensor;
}

/** What {@link AttentionWasm.layerNorm} returns with `returnStats: true` (ONNX LayerNormalization's three outputs). */
export interface LayerNormStats {
  /** The normalised tensor, x's shape. */
  output: Tensor;
  /** The mean of each normalised group: `x.shape.slice(0, axis)` followed by ones. */
  mean: Tensor;
  /** `1 / sqrt(var + eps)` of each group (biased variance), shaped as `mean`. */
  invStdDev: Tensor;
}

/** Options of {@link AttentionWasm.layerNorm}. */
export interface LayerNormOptions {
  /** Scale, shaped `x.shape.slice(axis)` (default 1). */
  gamma?: TensorLike;
  /** Shift, shaped `x.shape.slice(axis)` (default 0). */
  beta?: TensorLike;
  /** A finite number ≥ 0 added to the variance (default 1e-5). */
  eps?: number;
  /** The first normalised axis, an integer in `[-rank, rank)`: every axis from it to the last is normalised together (default -1). */
  axis?: number;
  /** Also return the mean and `invStdDev` of each group (default false). */
  returnStats?: boolean;
}

/** An int64 tensor as `{ data, shape }` (ONNX position ids). */
export interface BigIntTensor {
  /** The values, row-major. */
  data: BigInt64Array | BigUint64Array;
  /** The dims, e.g. `[batch, L]`. */
  shape: number[];
}

/** Options of {@link AttentionWasm.applyRope} with the caller's cos/sin tables (ONNX RotaryEmbedding, opset 23). */
export interface RopeTableOptions {
  /** `[maxPosition, rotaryDim/2]` with `positions`, or `[batch, L, rotaryDim/2]` (already gathered per token) without. */
  cos: TensorLike;
  /** The sines, shaped as `cos`. */
  sin: TensorLike;
  /** Position ids `[batch, L]`, integers in `[0, maxPosition)` (nested arrays, or `{ data, shape }` with any integer data, BigInt64Array included). */
  positions?: IntegerTensorLike | BigIntTensor;
  /** Pairs `(2i, 2i+1)` when true, halves `(i, i + rotaryDim/2)` when false (default). */
  interleaved?: boolean;
  /** Features of each head that rotate (ONNX rotary_embedding_dim): even, ≤ headDim; 0 or omitted means headDim. The rest pass through. */
  rotaryDim?: number;
  /** Heads of a 3-D x `[batch, L, numHeads·headDim]` (required there); for a 4-D x it must equal `x.shape[1]`. */
  numHeads?: number;
}

/** What {@link AttentionWasm.feedForwardBackward} returns. */
export interface FeedForwardGradients {
  /** `[..., dModel]` */
  dx: Tensor;
  /** `[dModel, dFF]` */
  dw1: Tensor;
  /** `[dFF]` */
  db1: Tensor;
  /** `[dFF, dModel]` */
  dw2: Tensor;
  /** `[dModel]` */
  db2: Tensor;
}

/** What {@link AttentionWasm.softmaxCrossEntropy} returns. */
export interface CrossEntropyResult {
  /** Mean of `−log softmax(logits)[target]` over the counted rows (natural log); 0 when none is. */
  loss: number;
  /** Rows counted (target ≥ 0). */
  count: number;
  /** Share of counted rows whose first argmax is the target. */
  accuracy: number;
  /** `[..., C]`: `(softmax − onehot) / count` on counted rows, 0 on ignored ones. */
  dLogits: Tensor;
}

/** What {@link AttentionWasm.attention} returns. */
export interface AttentionResult {
  /** `[..., Lq, dv]`, where `...` is the broadcast of the leading dims of q, k, v. */
  output: Tensor;
  /** `[..., Lq, Lk]`, with `returnWeights` or `trace`. */
  weights?: Tensor;
  /** With `dropout` and `returnWeights` or `trace`: the weights after the dropout. */
  droppedWeights?: Tensor;
  /** With `dropout`: the seed used (the one given, or the one drawn); pass it to the backward. */
  dropoutSeed?: number;
  /** With `trace`: every stage. */
  trace?: AttentionTrace;
  /** With `pastKey`: `[past, k]`, `[..., kvHeads, past + Lk, dk]`. */
  presentKey?: Tensor;
  /** With `pastValue`: `[past, v]`, `[..., kvHeads, past + Lk, dv]`. */
  presentValue?: Tensor;
}

/** What {@link AttentionWasm.attention} returns when `returnWeights` or `trace` is set. */
export interface AttentionResultWithWeights extends AttentionResult {
  /** `[..., Lq, Lk]`: the attention weights, each row summing to 1 over the keys it sees. */
  weights: Tensor;
}

/** The sizes of a {@link KVCache}. */
export interface KVCacheConfig {
  /** Sequences. */ batch: number;
  /** Key/value heads (q's heads must be a multiple). */ kvHeads: number;
  /** Positions each sequence can hold. */ capacity: number;
  /** Key width. */ headDim: number;
  /** Value width (default headDim). */ valueDim?: number;
}

/** Options of {@link KVCache.attend}. */
export interface KVCacheAttendOptions {
  /** Query i of sequence n sits at position `length[n] + i` and sees keys up to it. */
  causal?: boolean;
  /** Multiplies q·kᵀ. Default `1 / sqrt(headDim)`. */
  scale?: number;
  /** As in {@link AttentionOptions.softcap}. */
  softcap?: number;
  /** A sliding window around position `length[n] + i`, as in {@link AttentionOptions.window}. */
  window?: AttentionWindow;
  /** Boolean or additive mask, broadcast to `[batch, heads, Lq, T]`, T = the longest sequence after the append. */
  mask?: MaskLike;
  /** How many of the Lnew new positions are real, per sequence (right-padded prompts); default all. */
  newLengths?: number[] | Int32Array;
  /** `'bhsd'` (default): q `[batch, heads, Lq, d]`; `'bshd'`: `[batch, Lq, heads, d]` (output likewise). */
  layout?: 'bhsd' | 'bshd';
  /** Also return the weights `[batch, heads, Lq, T]`. */
  returnWeights?: boolean;
}

/** What {@link KVCache.attend} returns. */
export interface KVCacheAttendResult {
  /** `[batch, heads, Lq, valueDim]` (`'bshd'`: `[batch, Lq, heads, valueDim]`). */
  output: Tensor;
  /** With `returnWeights`: `[batch, heads, Lq, T]`. */
  weights?: Tensor;
}

/**
 * Keys and values of past positions in wasm memory, for decoding token by token: `attend`
 * writes the new keys and values in place after each sequence's length and runs the fused
 * kernel over the cache in the wasm heap (no concatenation, no copy between JS and wasm per
 * token).
 * Grouped-query heads included. Free it with `dispose()`.
 */
declare class KVCache {
  /**
   * @param config `{ batch, kvHeads, capacity, headDim, valueDim? }`
   * @throws TypeError / RangeError starting `KVCache:`; RangeError when it does not fit the heap.
   * @example
   * const cache = new attn.KVCache({ batch: 1, kvHeads: 2, capacity: 256, headDim: 64 });
   * cache.attend(qPrompt, kPrompt, vPrompt, { causal: true });        // prefill
   * const { output } = cache.attend(qNext, kNext, vNext, { causal: true }); // one token
   */
  constructor(config: KVCacheConfig);
  /** Positions each sequence holds. */
  readonly lengths: number[];
  /** The sizes it was made with. */
  readonly config: Required<KVCacheConfig>;
  /**
   * Appends k, v and returns attention of q over everything held.
   * @param q `[batch, heads, Lq, headDim]`
   * @param k `[batch, kvHeads, Lnew, headDim]`
   * @param v `[batch, kvHeads, Lnew, valueDim]`
   * @throws RangeError starting `KVCache.attend:` (e.g. when the new positions do not fit the
   *   capacity); nothing is appended then.
   */
  attend(q: TensorLike, k: TensorLike, v: TensorLike, options?: KVCacheAttendOptions): KVCacheAttendResult;
  /** A copy of the keys, `[batch, kvHeads, longest length, headDim]`. */
  keys(): Tensor;
  /** A copy of the values, `[batch, kvHeads, longest length, valueDim]`. */
  values(): Tensor;
  /** Forgets every position (the memory is kept). */
  reset(): void;
  /** Frees its wasm memory. */
  dispose(): void;
}

/** Weights of multi-head attention (row-vector convention: `Q = X·W_Q`). */
export interface MultiHeadWeights {
  /** `[dModel, dModel]` */ wq: Tensor;
  /** `[kDim, numKvHeads·headDim]` */ wk: Tensor;
  /** `[vDim, numKvHeads·headDim]` */ wv: Tensor;
  /** `[dModel, dModel]` */ wo: Tensor;
  /** `[dModel]` (with bias) */ bq?: Tensor;
  /** `[numKvHeads·headDim]` (with bias) */ bk?: Tensor;
  /** `[numKvHeads·headDim]` (with bias) */ bv?: Tensor;
  /** `[dModel]` (with bias) */ bo?: Tensor;
}

/** Configuration of a {@link MultiHeadAttention} layer. */
export interface MultiHeadConfig {
  /** Width of the query input and of the output. */
  dModel: number;
  /** Must divide dModel; headDim = dModel / numHeads. */
  numHeads: number;
  /** Features of the key input (default dModel). */
  kDim?: number;
  /** Features of the value input (default dModel). */
  vDim?: number;
  /** Grouped-query attention: key/value heads, dividing numHeads (default numHeads). */
  numKvHeads?: number;
  /** Projection biases (default true). */
  bias?: boolean;
  /** Seed of the deterministic Xavier-uniform initialisation (default 0). */
  seed?: number;
}

/** Options of {@link MultiHeadAttention.forward}. */
export interface MultiHeadForwardOptions {
  /** Boolean or additive mask broadcast to `[B?, numHeads, Lq, Lk]`. */
  mask?: MaskLike;
  /** Hide keys after each query's position (default false). */
  causal?: boolean;
  /** Causal alignment when Lq ≠ Lk, as in {@link AttentionOptions.causalAlign}. */
  causalAlign?: 'top-left' | 'bottom-right';
  /** A sliding window of keys around each query, as in {@link AttentionOptions.window}. */
  window?: AttentionWindow;
  /** `[B]` (or one number unbatched): keys past the length are padding. */
  keyLengths?: number | number[] | Int32Array;
  /** Return `weights: [B?, numHeads, Lq, Lk]`. */
  returnWeights?: boolean;
  /** Return `weights` averaged over heads: `[B?, Lq, Lk]` (implies returnWeights). */
  averageWeights?: boolean;
  /** Return per-head q, k, v, weights, the concatenation and the output. */
  trace?: boolean;
  /**
   * Write the output into this `Float32Array` of exactly `[B?, Lq, dModel]` values instead of
   * a new one (`output.data` is then this array), as {@link AttentionOptions.out}.
   */
  out?: Float32Array;
}

/** The per-head stages of one multi-head forward pass (`trace: true`). */
export interface MultiHeadTrace {
  /** `[B?, numHeads, Lq, headDim]`: the projected queries, split into heads. */
  q: Tensor;
  /** `[B?, numKvHeads, Lk, headDim]` */
  k: Tensor;
  /** `[B?, numKvHeads, Lk, headDim]` */
  v: Tensor;
  /** `[B?, numHeads, Lq, Lk]` */
  weights: Tensor;
  /** `[B?, Lq, dModel]`: the heads' outputs side by side, before `W_O`. */
  concat: Tensor;
  /** `[B?, Lq, dModel]` */
  output: Tensor;
}

/** What {@link MultiHeadAttention.forward} returns. */
export interface MultiHeadResult {
  /** `[B?, Lq, dModel]` */
  output: Tensor;
  /** With `returnWeights`: `[B?, numHeads, Lq, Lk]`; with `averageWeights`: `[B?, Lq, Lk]`. */
  weights?: Tensor;
  /** With `trace`. */
  trace?: MultiHeadTrace;
}

/**
 * Multi-head attention `Concat(head_1..head_h)·W_O` with its weights in wasm memory; call
 * `dispose()` when done.
 *
 * Constructed through the API object, `new attn.MultiHeadAttention(config)` with a
 * {@link MultiHeadConfig} (see {@link AttentionWasm.MultiHeadAttention}): the class is bound
 * to the loaded module, so the package exports it as a type only. The constructor allocates
 * the weights and initialises them (Xavier-uniform from `config.seed`, zero biases).
 * @throws TypeError / RangeError from the constructor for a bad config (message starts
 *   with `MultiHeadAttention:`, e.g. `MultiHeadAttention: dModel (10) must be divisible by
 *   numHeads (4)`); a RangeError when the weights do not fit in the wasm heap.
 * @example
 * const mha = new attn.MultiHeadAttention({ dModel: 64, numHeads: 4, seed: 1 });
 * const { output, weights } = mha.forward(x, x, x, { causal: true, returnWeights: true });
 * mha.dispose();
 */
declare class MultiHeadAttention {
  /** Allocates and initialises the weights (Xavier-uniform from `seed`, zero biases). */
  constructor(config: MultiHeadConfig);
  /** Width of the query input and of the output. */
  readonly dModel: number;
  /** Query heads. */
  readonly numHeads: number;
  /** Key/value heads (fewer than numHeads for grouped-query attention). */
  readonly numKvHeads: number;
  /** dModel / numHeads. */
  readonly headDim: number;
  /** Features of the key input. */
  readonly kDim: number;
  /** Features of the value input. */
  readonly vDim: number;
  /**
   * Replaces any subset of the weights; all shapes are checked before anything changes.
   * @param weights name → tensor, each of the shape {@link MultiHeadWeights} gives (the biases
   *   exist only with `bias: true`).
   * @throws TypeError for an unknown weight name or a non-tensor, RangeError for a wrong shape
   *   (message starts with `MultiHeadAttention.setWeights:`); Error after `dispose()`.
   * @example
   * mha.setWeights({ wq: attn.tensor(new Float32Array(64 * 64), [64, 64]) });
   */
  setWeights(weights: Partial<Record<keyof MultiHeadWeights, TensorLike>>): void;
  /**
   * Copies of the current weights.
   * @throws Error after `dispose()` (`MultiHeadAttention.getWeights: this object was disposed; …`).
   * @example
   * const { wq, wo } = mha.getWeights();   // wq.shape: [dModel, dModel]
   */
  getWeights(): MultiHeadWeights;
  /**
   * One forward pass: projections, attention per head, concatenation, `W_O`, in one wasm call.
   * @param query `[B?, Lq, dModel]`
   * @param key `[B?, Lk, kDim]` (default: query)
   * @param value `[B?, Lk, vDim]` (default: key)
   * @param options Masks, causality, key lengths and what to return besides the output.
   * @throws TypeError / RangeError naming `MultiHeadAttention.forward` and the tensor
   *   (`MultiHeadAttention.forward: key has 32 features but this layer expects 64`);
   *   Error after `dispose()`.
   * @example
   * const { output } = mha.forward(x);                                      // self-attention, x: [B, L, 64]
   * const { weights } = mha.forward(x, memory, memory, { averageWeights: true });   // [B, Lq, Lk]
   */
  forward(query: TensorLike, key?: TensorLike, value?: TensorLike, options?: MultiHeadForwardOptions): MultiHeadResult;
  /**
   * Frees the weights' wasm memory; any later call but `dispose()` throws an Error. Layers
   * collected without it are freed by a finalizer, eventually.
   */
  dispose(): void;
}

/** Configuration of a {@link TransformerEncoderLayer}. */
export interface EncoderLayerConfig {
  /** Width of the token vectors. */
  dModel: number;
  /** Attention heads, dividing dModel. */
  numHeads: number;
  /** Hidden width of the feed-forward network. */
  dFF: number;
  /** 'post' (default, original Transformer): LN(x + sublayer(x)); 'pre': x + sublayer(LN(x)). */
  norm?: 'pre' | 'post';
  /** The feed-forward activation (default 'relu'; 'gelu' is the exact erf form). */
  activation?: 'relu' | 'gelu';
  /** Seed of the deterministic initialisation (default 0). */
  seed?: number;
  /** Biases in the projections and the feed-forward network (default true). */
  bias?: boolean;
  /** Layer-norm epsilon (default 1e-5). */
  eps?: number;
  /** Key/value heads for grouped-query attention (default numHeads). */
  numKvHeads?: number;
}

/** Weights of the encoder layer: MultiHeadWeights plus norms and FFN. */
export interface EncoderLayerWeights extends MultiHeadWeights {
  /** `[dModel]`: the first layer norm's scale. */
  ln1Gamma: Tensor;
  /** `[dModel]`: the first layer norm's shift. */
  ln1Beta: Tensor;
  /** `[dModel]`: the second layer norm's scale. */
  ln2Gamma: Tensor;
  /** `[dModel]`: the second layer norm's shift. */
  ln2Beta: Tensor;
  /** `[dModel, dFF]` */ w1: Tensor;
  /** `[dFF]` */ b1: Tensor;
  /** `[dFF, dModel]` */ w2: Tensor;
  /** `[dModel]` */ b2: Tensor;
}

/** Options of {@link TransformerEncoderLayer.forward}. */
export interface EncoderForwardOptions {
  /** Boolean or additive mask broadcast to `[B?, numHeads, L, L]`. */
  mask?: MaskLike;
  /** Hide later tokens (default false). */
  causal?: boolean;
  /** Causal alignment, as in {@link AttentionOptions.causalAlign}. */
  causalAlign?: 'top-left' | 'bottom-right';
  /** A sliding window of keys around each query, as in {@link AttentionOptions.window}. */
  window?: AttentionWindow;
  /** `[B]` (or one number unbatched): tokens past the length are padding. */
  keyLengths?: number | number[] | Int32Array;
  /**
   * Write the output into this `Float32Array` of exactly `[B?, L, dModel]` values instead of
   * a new one (the result's `data` is then this array; it may be `x`'s own data, for an
   * in-place layer), as {@link AttentionOptions.out}.
   */
  out?: Float32Array;
}

/**
 * Self-attention and a feed-forward network, each with a residual connection and a layer
 * norm; the whole layer runs in one wasm call. `dispose()` it when done.
 *
 * Constructed through the API object, `new attn.TransformerEncoderLayer(config)` with an
 * {@link EncoderLayerConfig} (see {@link AttentionWasm.TransformerEncoderLayer}); the package
 * exports the class as a type only. The constructor allocates the weights: attention and
 * feed-forward weights Xavier-uniform from `config.seed`, biases 0, layer-norm scales 1.
 * @throws TypeError / RangeError from the constructor for a bad config (message starts with
 *   `TransformerEncoderLayer:`); a RangeError when the weights do not fit in the wasm heap.
 * @example
 * const layer = new attn.TransformerEncoderLayer({ dModel: 64, numHeads: 4, dFF: 256, norm: 'pre' });
 * const y = layer.forward(x, { keyLengths: [10, 7] });   // x: [2, 10, 64]
 * layer.dispose();
 */
declare class TransformerEncoderLayer {
  /** Allocates and initialises the weights (deterministic from `seed`). */
  constructor(config: EncoderLayerConfig);
  /** Width of the token vectors. */
  readonly dModel: number;
  /** Attention heads. */
  readonly numHeads: number;
  /** Hidden width of the feed-forward network. */
  readonly dFF: number;
  /** Where the layer norms sit. */
  readonly norm: 'pre' | 'post';
  /**
   * Replaces any subset of the weights; all shapes are checked before anything changes.
   * @param weights name → tensor, each of the shape {@link EncoderLayerWeights} gives.
   * @throws TypeError for an unknown weight name or a non-tensor, RangeError for a wrong shape
   *   (message starts with `TransformerEncoderLayer.setWeights:`); Error after `dispose()`.
   * @example
   * layer.setWeights({ ln1Gamma: attn.tensor(new Float32Array(64).fill(1), [64]) });
   */
  setWeights(weights: Partial<Record<keyof EncoderLayerWeights, TensorLike>>): void;
  /**
   * Copies of the current weights.
   * @throws Error after `dispose()`.
   * @example
   * const { w1, w2 } = layer.getWeights();   // [dModel, dFF], [dFF, dModel]
   */
  getWeights(): EncoderLayerWeights;
  /**
   * One pass of the layer: x `[B?, L, dModel]` → `[B?, L, dModel]`.
   * @param x the token vectors, `[B?, L, dModel]`.
   * @param options Mask, causality and key lengths of the self-attention.
   * @throws TypeError / RangeError naming `TransformerEncoderLayer.forward` and the tensor;
   *   Error after `dispose()`.
   * @example
   * const y = layer.forward(x, { causal: true });   // x: [L, 64] or [B, L, 64]
   */
  forward(x: TensorLike, options?: EncoderForwardOptions): Tensor;
  /**
   * Frees the weights' wasm memory; any later call but `dispose()` throws an Error. Layers
   * collected without it are freed by a finalizer, eventually.
   */
  dispose(): void;
}

/** Configuration of a {@link TinyTransformer}; every field but `vocabSize` and `maxLen` has a default. */
export interface TinyTransformerConfig {
  /** Token ids are integers in `[0, vocabSize)`; at least 2. */
  vocabSize: number;
  /** The longest token sequence `L` the model takes (its position table's length). */
  maxLen: number;
  /** Width of the residual stream (default 64); divisible by `numHeads`. */
  dModel?: number;
  /** Attention heads per layer (default 4). */
  numHeads?: number;
  /** Transformer blocks (default 2, at most 64). */
  numLayers?: number;
  /** Hidden width of each feed-forward network (default `4 · dModel`). */
  dFF?: number;
  /**
   * `'pre'` (default): `h = x + MHA(LN1(x))`, `x' = h + FFN(LN2(h))`, and a final layer norm;
   * `'post'` (the original transformer): `h = LN1(x + MHA(x))`, `x' = LN2(h + FFN(h))`.
   */
  norm?: 'pre' | 'post';
  /** Query `t` attends only to keys `j ≤ t` (default false). */
  causal?: boolean;
  /**
   * `'token'` (default): logits for every position (`[B, L, numClasses]`);
   * `'classify'`: a learned `[CLS]` row is put before the tokens (position 0) and its final
   * state is classified (`[B, numClasses]`); what it attends to is the "pooled query".
   */
  head?: 'token' | 'classify';
  /** Output classes: required with `head: 'classify'`; for a token head default `vocabSize`. */
  numClasses?: number;
  /** The feed-forward activation: `'gelu'` (default, the exact erf form) or `'relu'`. */
  activation?: 'gelu' | 'relu';
  /** `'learned'` (default): a trained position table; `'sinusoidal'`: the fixed sin/cos table. */
  positional?: 'learned' | 'sinusoidal';
  /** Seed of the initial weights, an integer in `[0, 2^32)` (default 0). Same seed, same bits. */
  seed?: number;
}

/** Integer tensors of a batch: nested arrays, or `{ data, shape }` with any numeric data. */
export type IntegerTensorLike = number[][] | number[] | IntegerTensor;

/** An integer tensor as `{ data, shape }`. */
export interface IntegerTensor {
  /** The values, row-major (integers). */
  data: ArrayLike<number>;
  /** `[B, L]` or `[B]`. */
  shape: number[];
}

/** One saved parameter in {@link TinyTransformerWeights}. */
export interface SavedTensor {
  /** Its shape. */
  shape: number[];
  /** Its values, row-major, as plain numbers. */
  data: number[];
}

/** One batch for {@link TinyTransformer.trainStep}, {@link TinyTransformer.gradients} and {@link TinyTransformer.evaluate}. */
export interface TrainingBatch {
  /** `[B, L]` token ids, `1 ≤ L ≤ maxLen`. */
  tokens: IntegerTensorLike;
  /**
   * Token head: `[B, L]` target ids (a negative value: this position is not in the loss).
   * Classifier: `[B]` classes.
   */
  targets: IntegerTensorLike;
  /**
   * `[B]` real lengths in `[1, L]` (default: all `L`). Positions at or past a length are
   * padding: never attended to as keys and never in the loss.
   */
  lengths?: IntegerTensorLike;
}

/** Options of {@link TinyTransformer.trainStep}. */
export interface TrainStepOptions {
  /** `'adamw'` (default: bias-corrected, decoupled weight decay) or `'sgd'` (with momentum). */
  optimizer?: 'adamw' | 'sgd';
  /** Learning rate (default 1e-3). */
  lr?: number;
  /** AdamW's first-moment decay (default 0.9). */
  beta1?: number;
  /** AdamW's second-moment decay (default 0.999). */
  beta2?: number;
  /** AdamW's denominator term (default 1e-8). */
  eps?: number;
  /**
   * AdamW's decoupled weight decay (default 0.01): `p -= lr · weightDecay · p`, applied to the
   * matrices of the linear layers and the head only (not embeddings, biases or norms).
   */
  weightDecay?: number;
  /** SGD's momentum in `[0, 1)` (default 0). */
  momentum?: number;
  /** Clip by global norm: gradients scaled by `min(1, clipNorm / ‖g‖)`; 0 (default) is off. */
  clipNorm?: number;
}

/** What {@link TinyTransformer.evaluate} returns. */
export interface EvaluateResult {
  /** Mean softmax cross-entropy (natural log) over the counted positions; 0 when none is. */
  loss: number;
  /** Share of the counted positions whose first argmax is the target. */
  accuracy: number;
  /** Positions (token head) or sequences (classifier) in the loss. */
  count: number;
}

/** What {@link TinyTransformer.trainStep} returns: the batch's loss before the update. */
export interface TrainStepResult extends EvaluateResult {
  /** The gradients' global L2 norm, before clipping. */
  gradNorm: number;
  /** Optimizer steps taken so far, this one included. */
  step: number;
}

/** What {@link TinyTransformer.gradients} returns. */
export interface GradientsResult extends EvaluateResult {
  /** The gradients' global L2 norm. */
  gradNorm: number;
  /** d loss / d parameter, by parameter name (see {@link TinyTransformer.parameterShapes}). */
  gradients: Record<string, Float32Array>;
}

/** What {@link TinyTransformer.forward} returns. */
export interface TinyTransformerOutput {
  /** `[B, L, numClasses]` (token head) or `[B, numClasses]` (classifier). */
  logits: Tensor;
  /** One per layer: `[B, numHeads, T, T]` weights, `T = L` (+1 for the `[CLS]` row). */
  attention: Tensor[];
}

/** A trained model as JSON ({@link TinyTransformer.getWeights}); `JSON.stringify` it to save. */
export interface TinyTransformerWeights {
  /** Always `'attention-wasm/tiny-transformer'`. */
  format: 'attention-wasm/tiny-transformer';
  /** The format version, 1. */
  version: 1;
  /** The resolved configuration. */
  config: Required<TinyTransformerConfig>;
  /** Optimizer steps taken when saved. */
  step: number;
  /** Every parameter by name: its shape and its values. */
  tensors: Record<string, SavedTensor>;
}

/**
 * A small transformer trained in wasm memory: token and position embeddings, `numLayers`
 * blocks of multi-head self-attention and a feed-forward network with residuals and layer
 * norms, and a per-token or a `[CLS]` classification head. One wasm call runs the forward
 * pass, the backward pass (every step's gradient written beside its forward) and AdamW.
 * Deterministic: the same seed and batches give the same losses bit for bit, on every run
 * and for any thread count. Call `dispose()` when done.
 *
 * Parameter names (in order): `tokenEmbedding` `[vocabSize, dModel]`, `positionEmbedding`
 * `[maxLen (+1 for a classifier), dModel]` (learned positions), `cls` `[dModel]`
 * (classifier), then per layer `layers.{l}.ln1.gamma|beta`, `layers.{l}.attn.wq|bq|wk|bk|wv|bv|wo|bo`,
 * `layers.{l}.ln2.gamma|beta`, `layers.{l}.ffn.w1|b1|w2|b2`, then `finalNorm.gamma|beta`
 * (pre-norm) and `head.w` `[dModel, numClasses]`, `head.b`. Weights are `[in, out]`
 * (`y = x·W + b`).
 * @throws TypeError / RangeError from the constructor for a bad config (message starts with
 *   `TinyTransformer:`, e.g. `TinyTransformer: dModel (10) must be divisible by numHeads (4)`).
 * @example
 * const model = new attn.TinyTransformer({ vocabSize: 10, maxLen: 8, dModel: 32, numHeads: 2, seed: 1 });
 * const tokens = [[3, 1, 4, 1, 5, 9, 2, 6]];
 * const targets = [[6, 2, 9, 5, 1, 4, 1, 3]];          // learn to reverse
 * for (let i = 0; i < 300; i++) model.trainStep({ tokens, targets }, { lr: 3e-3 });
 * const { logits, attention } = model.forward(tokens);   // attention[0].shape: [1, 2, 8, 8]
 * model.dispose();
 */
declare class TinyTransformer {
  /** Allocates and initialises the parameters (seeded). */
  constructor(config: TinyTransformerConfig);
  /** The configuration with every default filled in. */
  readonly config: Readonly<Required<TinyTransformerConfig>>;
  /** Number of trainable floats. */
  readonly parameterCount: number;
  /** Every parameter's shape, by name, in layout order. */
  readonly parameterShapes: Readonly<Record<string, readonly number[]>>;
  /** Optimizer steps taken since creation or the last {@link TinyTransformer.setWeights}. */
  readonly step: number;
  /**
   * The forward pass.
   * @param tokens `[B, L]` token ids.
   * @param options.lengths `[B]` real lengths (padding is never attended to).
   * @throws TypeError / RangeError naming `TinyTransformer.forward` and the input
   *   (`TinyTransformer.forward: tokens[0][2] must be an integer in [0, 9], got 12`).
   * @example
   * const { logits } = model.forward([[1, 2, 3]]);   // logits.shape: [1, 3, vocabSize]
   */
  forward(tokens: IntegerTensorLike, options?: { lengths?: IntegerTensorLike }): TinyTransformerOutput;
  /**
   * Forward, backward and one optimizer step, in one wasm call.
   * @returns the loss and accuracy of the batch before the update, the gradient norm, the step.
   * @throws TypeError / RangeError naming `TinyTransformer.trainStep`.
   * @example
   * const { loss, accuracy } = model.trainStep({ tokens, targets }, { lr: 3e-3, clipNorm: 1 });
   */
  trainStep(batch: TrainingBatch, options?: TrainStepOptions): TrainStepResult;
  /**
   * Loss, accuracy and the gradient of every parameter on a batch; the model is unchanged.
   * @example
   * const { gradients } = model.gradients({ tokens, targets });   // gradients['head.w']: Float32Array
   */
  gradients(batch: TrainingBatch): GradientsResult;
  /**
   * Loss and accuracy on a batch; the model is unchanged.
   * @example
   * const { accuracy } = model.evaluate(heldOut);
   */
  evaluate(batch: TrainingBatch): EvaluateResult;
  /**
   * Every parameter as plain numbers (JSON-serialisable), with the config.
   * @example
   * localStorage.model = JSON.stringify(model.getWeights());
   */
  getWeights(): TinyTransformerWeights;
  /**
   * Replaces every parameter with a saved model's; its config must equal this model's (the
   * seed aside). Resets
   * the optimizer (moments and step count). All or nothing.
   * @throws TypeError / RangeError naming `TinyTransformer.setWeights` and the tensor
   *   (`TinyTransformer.setWeights: weights.tensors is missing 'head.w' [64, 2]`).
   * @example
   * model.setWeights(JSON.parse(localStorage.model));
   */
  setWeights(weights: TinyTransformerWeights): void;
  /** True once `dispose()` ran. */
  readonly disposed: boolean;
  /** Frees the model's wasm memory; every later call but `dispose()` throws an Error. */
  dispose(): void;
}

export type { MultiHeadAttention, TransformerEncoderLayer, TinyTransformer, KVCache };

/** Wasm memory now, from {@link AttentionWasm.memory}. */
export interface MemoryInfo {
  /** Size of the wasm heap now. */
  heapBytes: number;
  /** The most the heap can grow to (2 GiB). */
  heapMaxBytes: number;
  /** Bytes handed out by malloc now (live layers and nothing else between calls). */
  inUseBytes: number;
  /** High-water mark of what malloc ever took from the heap, scratch memory included. */
  peakBytes: number;
}

/** Laplacian eigenvector encodings with their eigenvalues. */
export interface LaplacianEncoding extends Tensor {
  /** The k eigenvalues, ascending. */
  eigenvalues: Float32Array;
}

/**
 * The API object `init` resolves to. Everything hangs off it.
 * @example
 * import { init } from 'attention-wasm';
 * const attn = await init();
 * const { output } = attn.attention(q, k, v, { causal: true });
 */
export interface AttentionWasm {
  /** What is loaded: the package version, which build, and how many threads. */
  readonly info: BuildInfo;
  /**
   * Scaled dot-product attention `softmax(q·kᵀ·scale + mask)·v`.
   *
   * Rows that see no key give zeros (never NaN). Blocked keys never reach the output, even
   * if their k or v rows hold NaN or Infinity. Without `returnWeights`/`trace` no
   * Lq × Lk buffer is allocated (fused online-softmax kernel).
   * @param q `[..., Lq, dk]`
   * @param k `[..., Lk, dk]`
   * @param v `[..., Lk, dv]` (leading dims of q, k, v broadcast)
   * @param options Mask, causality, scale, key lengths, and what to return besides the output.
   * @throws TypeError for wrong types, RangeError for wrong shapes or values; the message
   *   starts with `attention:` and names the tensor (`attention: k has 8 columns but q has
   *   16 (dk must match)`). Nothing is allocated first. A RangeError too when the call does
   *   not fit in the wasm heap (see {@link AttentionWasm.estimateMemory}).
   * @example
   * const q = [[1, 0], [0, 1]], k = [[1, 0], [0, 1], [1, 1]], v = [[1, 2], [3, 4], [5, 6]];
   * const { output, weights } = attn.attention(q, k, v, { causal: true, returnWeights: true });
   * attn.toNested(output);   // [[1, 2], [2.34…, 3.34…]]
   */
  attention(
    q: TensorLike,
    k: TensorLike,
    v: TensorLike,
    options: AttentionOptions & ({ returnWeights: true } | { trace: true }),
  ): AttentionResultWithWeights;
  /** As above; without `returnWeights` or `trace` the result has no `weights`. */
  attention(q: TensorLike, k: TensorLike, v: TensorLike, options?: AttentionOptions): AttentionResult;
  /**
   * The gradients of {@link AttentionWasm.attention}: given `dOut = ∂loss/∂output`, returns
   * `dq`, `dk`, `dv` (FlashAttention-2's recipe: scores recomputed row by row, never an
   * Lq × Lk matrix; memory O(Lk + dv) beyond the tensors). Same masks, causal rule, scale and
   * key lengths as the forward; q, k, v and dOut share their leading dims (no broadcasting).
   * @param q `[..., Lq, dk]`
   * @param k `[..., Lk, dk]`
   * @param v `[..., Lk, dv]`
   * @param dOut `[..., Lq, dv]`, the gradient of the loss with respect to the output
   * @throws TypeError / RangeError (message starting `attentionBackward:`) for wrong types,
   *   shapes, leading dims that differ, or options as in `attention`.
   * @example
   * const { output } = attn.attention(q, k, v, { causal: true });
   * const { dq, dk, dv } = attn.attentionBackward(q, k, v, dOut, { causal: true });
   */
  attentionBackward(
    q: TensorLike,
    k: TensorLike,
    v: TensorLike,
    dOut: TensorLike,
    options?: AttentionBackwardOptions,
  ): AttentionGradients;
  /**
   * The backward of a linear layer `y = x·w + b`: given `dy = ∂loss/∂y`, the gradients of x, w
   * and b (the bias's value takes no part).
   * @param x `[..., in]`
   * @param w `[in, out]`
   * @param dy `[..., out]`
   * @throws TypeError / RangeError starting `linearBackward:` (`linearBackward: dy must have
   *   shape [2, 3] (the output's), got [2, 4]`).
   * @example
   * const { dx, dw, db } = attn.linearBackward(x, w, dy);
   */
  linearBackward(x: TensorLike, w: TensorLike, dy: TensorLike): LinearGradients;
  /**
   * The backward of {@link AttentionWasm.layerNorm} over the last axis, from its input (the
   * row statistics are recomputed): with `x̂ = (x − μ)/σ` and `g = dy·γ`,
   * `dx = (g − mean(g) − x̂·mean(g·x̂)) / σ`.
   * @param x `[..., d]`, the forward's input
   * @param dy `[..., d]`
   * @param options the forward's `gamma` (default ones), `beta` (checked, takes no part) and `eps`.
   * @throws TypeError / RangeError starting `layerNormBackward:`.
   * @example
   * const { dx, dgamma, dbeta } = attn.layerNormBackward(x, dy, { gamma, eps: 1e-5 });
   */
  layerNormBackward(
    x: TensorLike,
    dy: TensorLike,
    options?: { gamma?: TensorLike; beta?: TensorLike; eps?: number },
  ): LayerNormGradients;
  /**
   * The backward of {@link AttentionWasm.feedForward}, `act(x·w1 + b1)·w2 + b2` (the hidden
   * layer is recomputed). GELU's derivative is `Φ(x) + x·φ(x)`; ReLU's is 0 at 0.
   * @param x `[..., dModel]`, the forward's input
   * @param dy `[..., dModel]`
   * @param options the forward's weights and activation (default `'relu'`, as the forward).
   * @throws TypeError / RangeError starting `feedForwardBackward:`.
   * @example
   * const { dx, dw1, dw2 } = attn.feedForwardBackward(x, dy, { w1, b1, w2, b2, activation: 'gelu' });
   */
  feedForwardBackward(
    x: TensorLike,
    dy: TensorLike,
    options: { w1: TensorLike; b1?: TensorLike; w2: TensorLike; b2?: TensorLike; activation?: 'relu' | 'gelu' },
  ): FeedForwardGradients;
  /**
   * Softmax cross-entropy over the last axis and its gradient: the loss every classifier
   * trains on. A negative target marks a row to ignore (padding).
   * @param logits `[..., C]`
   * @param targets one integer in `[0, C)` (or negative) per row: `[...]` as nested arrays or `{ data, shape }`.
   * @throws TypeError / RangeError starting `softmaxCrossEntropy:`.
   * @example
   * attn.softmaxCrossEntropy([[1, 2, 3]], [2]).loss;   // 0.4076 = −log(e³ / (e + e² + e³))
   */
  softmaxCrossEntropy(logits: TensorLike, targets: IntegerTensorLike | number[][]): CrossEntropyResult;
  /**
   * Matrix product `a·b` (the projections `Q = X·W_Q` of the row-vector convention).
   * @param a `[..., m, k]`
   * @param b `[k, n]`
   * @param options `out`: write the product into this `Float32Array` of exactly `[..., m, n]`
   *   values instead of a new one (the result's `data` is then this array), as
   *   {@link AttentionOptions.out}.
   * @returns `[..., m, n]`
   * @throws TypeError / RangeError starting `matmul:` (`matmul: b has 3 rows but a has 2
   *   columns (k must match)`); a RangeError when the call does not fit in the wasm heap.
   * @example
   * attn.matmul([[1, 2]], [[3], [4]]);   // { data: Float32Array [11], shape: [1, 1] }
   */
  matmul(a: TensorLike, b: TensorLike, options?: { out?: Float32Array }): Tensor;
  /**
   * The {@link MultiHeadAttention} layer class bound to this module:
   * `new attn.MultiHeadAttention(config: MultiHeadConfig)`.
   * @example
   * const mha = new attn.MultiHeadAttention({ dModel: 64, numHeads: 8, numKvHeads: 2 });
   */
  MultiHeadAttention: typeof MultiHeadAttention;
  /** Keys and values kept in wasm memory for token-by-token decoding (see {@link KVCache}). */
  KVCache: typeof KVCache;
  /**
   * The {@link TransformerEncoderLayer} class bound to this module:
   * `new attn.TransformerEncoderLayer(config: EncoderLayerConfig)`.
   * @example
   * const layer = new attn.TransformerEncoderLayer({ dModel: 64, numHeads: 4, dFF: 256 });
   */
  TransformerEncoderLayer: typeof TransformerEncoderLayer;
  /**
   * The {@link TinyTransformer} class bound to this module: a small transformer trained in
   * wasm memory, `new attn.TinyTransformer(config: TinyTransformerConfig)`.
   * @example
   * const model = new attn.TinyTransformer({ vocabSize: 10, maxLen: 8, seed: 1 });
   */
  TinyTransformer: typeof TinyTransformer;
  /**
   * `PE[p, 2i] = sin(p / base^(2i/dModel))`, `PE[p, 2i+1] = cos(...)`: `[seqLen, dModel]`.
   * @param seqLen positions, an integer ≥ 0.
   * @param dModel features, an integer ≥ 1.
   * @param options.base the wavelength base, a finite number above 1 (default 10000).
   * @throws TypeError / RangeError starting `sinusoidalEncoding:` for a bad length, width,
   *   base or unknown option.
   * @example
   * const pe = attn.sinusoidalEncoding(50, 16);   // [50, 16], base 10000
   */
  sinusoidalEncoding(seqLen: number, dModel: number, options?: { base?: number }): Tensor;
  /**
   * Adds rows `offset .. offset+L-1` of a (learned) table `[maxLen, d]` to x `[..., L, d]`.
   * @param x `[..., L, d]`
   * @param table `[maxLen, d]`, with maxLen ≥ offset + L.
   * @param options.offset the table row of position 0, an integer ≥ 0 (default 0).
   * @throws TypeError / RangeError starting `addPositionalEncoding:` (`addPositionalEncoding:
   *   table has 8 positions but x needs 13 (offset 3 + L 10)`).
   * @example
   * const y = attn.addPositionalEncoding(x, table, { offset: 3 });
   */
  addPositionalEncoding(x: TensorLike, table: TensorLike, options?: { offset?: number }): Tensor;
  /**
   * Rotary position embedding of x `[..., L, dim]` (dim even). `interleaved: false` (default)
   * rotates pairs (i, i + dim/2) ("rotate_half", GPT-NeoX/LLaMA); `true` pairs (2i, 2i+1)
   * (RoFormer/GPT-J). Angle of pair i at position p: `p · base^(-2i/dim)`.
   * @param x `[..., L, dim]`, dim even.
   * @param options.positions the position of each of the L rows, finite numbers (default
   *   0 .. L-1).
   * @param options.base a finite number above 1 (default 10000).
   * @param options.interleaved which pairs rotate (default false).
   * @throws TypeError / RangeError starting `applyRope:` (odd dim, positions not of length L,
   *   bad base); a RangeError when the call does not fit in the wasm heap.
   * @example
   * const qRotated = attn.applyRope(q, { positions: [0, 1, 2, 3] });
   */
  applyRope(
    x: TensorLike,
    options?: { positions?: number[] | Float32Array; base?: number; interleaved?: boolean },
  ): Tensor;
  /**
   * Rotary embedding from the caller's cos/sin tables, exactly ONNX RotaryEmbedding (opset
   * 23): for each token (b, l) the table row `positions[b][l]` (or row (b, l) of gathered
   * tables) rotates the first `rotaryDim` features of every head:
   * `out_a = x_a·cos − x_b·sin`, `out_b = x_a·sin + x_b·cos`; the other features pass through.
   * @param x `[batch, heads, L, headDim]`, or `[batch, L, heads·headDim]` with `numHeads`; the output has x's shape.
   * @throws TypeError / RangeError starting `applyRope:` (`applyRope: options.positions[0][2]
   *   is 50; positions are integers in [0, 50) (the rows of options.cos)`, tables of the wrong
   *   shape, an odd or too large rotaryDim, `base` beside tables); a RangeError when the call
   *   does not fit in the wasm heap.
   * @example
   * // q: [1, 8, 16, 64]; cos, sin: [2048, 32] (a Llama cache)
   * const qRotated = attn.applyRope(q, { cos, sin, positions: [[...Array(16).keys()]] });
   */
  applyRope(x: TensorLike, options: RopeTableOptions): Tensor;
  /**
   * ALiBi slopes exactly as the reference `get_slopes(numHeads)`.
   * @param numHeads an integer ≥ 1.
   * @returns one slope per head.
   * @throws TypeError / RangeError starting `alibiSlopes:` (`alibiSlopes: numHeads must be a
   *   positive integer (at most 2^53 - 1), got 0`).
   * @example
   * attn.alibiSlopes(8);   // [0.5, 0.25, …, 0.00390625]
   */
  alibiSlopes(numHeads: number): number[];
  /**
   * `bias[h, i, j] = -slope_h · |(i + Lk - Lq) - j|`, `[numHeads, Lq, Lk]`: an additive mask.
   * @param numHeads an integer ≥ 1.
   * @param seqQ Lq, an integer ≥ 0.
   * @param seqK Lk, an integer ≥ 0 (default seqQ).
   * @throws TypeError / RangeError starting `alibiBias:`; a RangeError when the bias does not
   *   fit in the wasm heap.
   * @example
   * attn.attention(q, k, v, { mask: attn.alibiBias(4, 10) });   // q, k, v: [4, 10, d]
   */
  alibiBias(numHeads: number, seqQ: number, seqK?: number): Tensor;
  /**
   * The k eigenvectors of the symmetric normalised Laplacian after the trivial one,
   * `[numNodes, k]`, with their eigenvalues (ascending). Isolated nodes have a zero row in
   * L. Sign: each vector's largest-magnitude entry is positive.
   * @param graph.numNodes nodes, an integer ≥ 1.
   * @param graph.edges undirected edges `[a, b]` between nodes 0 .. numNodes-1 (default none).
   * @param k eigenvectors wanted, an integer in [0, numNodes − 1].
   * @throws TypeError / RangeError starting `laplacianEncoding:` (`laplacianEncoding:
   *   graph.edges[2][1] is 7; nodes are integers in [0, 3]`, k too large).
   * @example
   * const pe = attn.laplacianEncoding({ numNodes: 4, edges: [[0, 1], [1, 2], [2, 3]] }, 2);
   */
  laplacianEncoding(graph: { numNodes: number; edges: Array<[number, number]> }, k: number): LaplacianEncoding;
  /**
   * Layer norm (biased variance, as PyTorch and ONNX LayerNormalization):
   * `(x − mean) / sqrt(var + eps) · gamma + beta`, over the last axis, or over every axis
   * from `options.axis` to the last (sums in double).
   * @param x `[..., d]`
   * @param options.gamma scale shaped `x.shape.slice(axis)`: `[d]` for the last axis (default 1).
   * @param options.beta shift shaped as gamma (default 0).
   * @param options.eps a finite number ≥ 0 (default 1e-5).
   * @param options.axis the first normalised axis, an integer in `[-rank, rank)` (default -1).
   * @throws TypeError / RangeError starting `layerNorm:` (gamma or beta not `x.shape.slice(axis)`, bad eps or axis).
   * @example
   * attn.layerNorm([[1, 2, 3]]);   // data [-1.22…, 0, 1.22…], shape [1, 3]
   */
  layerNorm(x: TensorLike, options?: LayerNormOptions & { returnStats?: false }): Tensor;
  /**
   * Layer norm with its statistics, as ONNX LayerNormalization's outputs Y, Mean and InvStdDev.
   * @param x any shape with at least one dim.
   * @param options `returnStats: true`, and as for the plain call: `axis`, `gamma`, `beta`, `eps`.
   * @throws TypeError / RangeError starting `layerNorm:`.
   * @example
   * const { output, mean, invStdDev } = attn.layerNorm(x, { axis: 1, returnStats: true });   // x: [2, 3, 4]; mean: [2, 1, 1]
   */
  layerNorm(x: TensorLike, options: LayerNormOptions & { returnStats: true }): LayerNormStats;
  /**
   * RMS normalisation (ONNX RMSNormalization, Llama's RMSNorm) over every axis from
   * `axis` to the last: `x / sqrt(mean(x²) + eps) · weight` (sums in double).
   * @param x any shape with at least one dim.
   * @param options.weight scale, shaped `x.shape.slice(axis)` (default 1).
   * @param options.eps a finite number ≥ 0 (default 1e-5).
   * @param options.axis the first normalised axis, an integer in `[-rank, rank)` (default -1).
   * @throws TypeError / RangeError starting `rmsNorm:` (`rmsNorm: weight has shape [3] but must
   *   be [4] (x.shape from options.axis on)`, bad eps or axis); a RangeError when the call
   *   does not fit in the wasm heap.
   * @example
   * attn.rmsNorm([[3, 3, 3]], { eps: 0 });   // data [1, 1, 1]
   */
  rmsNorm(x: TensorLike, options?: { weight?: TensorLike; eps?: number; axis?: number }): Tensor;
  /**
   * Softmax over one axis, numerically stable (`exp(x − max) / Σ exp(x − max)`, sums in
   * double), any axis without a transpose. A line whose values are all −Infinity, or that
   * holds a NaN or a +Infinity, is NaN throughout (as PyTorch and ONNX); −Infinity entries
   * beside finite ones get 0.
   * @param x any shape with at least one dim.
   * @param options.axis an integer in `[-rank, rank)`, negative counting from the end (default -1).
   * @throws TypeError / RangeError starting `softmax:` (`softmax: options.axis is 3 but x has 2
   *   dims (axes are integers in [-2, 1])`); a RangeError when the call does not fit in the wasm heap.
   * @example
   * attn.softmax([1, 2, 3]);   // data [0.0900…, 0.2447…, 0.6652…]
   */
  softmax(x: TensorLike, options?: { axis?: number }): Tensor;
  /**
   * Log-softmax over one axis: `x − max − log Σ exp(x − max)` (never `log(softmax)`, so it
   * stays exact for huge magnitudes: `[1e30, 0]` gives `[0, −1e30]`). Non-finite lines as
   * {@link AttentionWasm.softmax}: NaN throughout.
   * @param x any shape with at least one dim.
   * @param options.axis an integer in `[-rank, rank)` (default -1).
   * @throws TypeError / RangeError starting `logSoftmax:`.
   * @example
   * attn.logSoftmax([[1, 2], [3, 5]], { axis: 0 });
   */
  logSoftmax(x: TensorLike, options?: { axis?: number }): Tensor;
  /**
   * `act(x·w1 + b1)·w2 + b2`; gelu is the exact erf form.
   * @param x `[..., dModel]`
   * @param options.w1 `[dModel, dFF]` (required).
   * @param options.b1 `[dFF]` (default none).
   * @param options.w2 `[dFF, dModel]` (required).
   * @param options.b2 `[dModel]` (default none).
   * @param options.activation `'relu'` (default) or `'gelu'`.
   * @throws TypeError / RangeError starting `feedForward:` (`feedForward: w1 is required`,
   *   a weight of the wrong shape); a RangeError when the call does not fit in the wasm heap.
   * @example
   * const y = attn.feedForward(x, { w1, b1, w2, b2, activation: 'gelu' });
   */
  feedForward(
    x: TensorLike,
    options: { w1: TensorLike; b1?: TensorLike; w2: TensorLike; b2?: TensorLike; activation?: 'relu' | 'gelu' },
  ): Tensor;
  /**
   * Deep Sets pooling over the set axis: x `[..., n, d]` → `[..., d]`.
   * @param x `[..., n, d]`
   * @param op `'sum'` (default), `'mean'` or `'max'`.
   * @throws TypeError / RangeError starting `setPool:` (an unknown op; the mean or max of an
   *   empty set, n = 0).
   * @example
   * attn.setPool([[1, 2], [3, 4]], 'mean');   // data [2, 3], shape [2]
   */
  setPool(x: TensorLike, op?: 'sum' | 'mean' | 'max'): Tensor;
  /**
   * Makes a tensor from flat data and a shape (default: 1-D); the same as {@link tensor}.
   * @throws TypeError / RangeError starting `tensor:` (`tensor: tensor has 5 values but
   *   shape [2, 3] needs 6`).
   * @example
   * attn.tensor(new Float32Array(6), [2, 3]);
   */
  tensor(data: NumericData, shape?: number[]): Tensor;
  /**
   * Turns a tensor into nested arrays (a shape `[]` tensor gives a number); the same as
   * {@link toNested}.
   * @throws TypeError / RangeError starting `toNested:` for something that is not a tensor.
   * @example
   * attn.toNested({ data: new Float32Array([1, 2, 3, 4]), shape: [2, 2] });   // [[1, 2], [3, 4]]
   */
  toNested(t: TensorLike): NestedNumbers;
  /**
   * A TensorFlow.js tensor (float32) of `t`, made with your own `tf` module (this package
   * does not depend on tfjs).
   * @throws TypeError / RangeError starting `toTfjs:` (not a tensor, or `tf` without `tensor`).
   * @example
   * const y = attn.toTfjs(result.output, tf);
   */
  toTfjs<T>(t: TensorLike, tf: { tensor(data: Float32Array, shape: number[], dtype: 'float32'): T }): T;
  /**
   * An onnxruntime-web tensor (float32) of `t`, made with your own `ort` module.
   * @throws TypeError / RangeError starting `toOrt:` (not a tensor, or `ort` without the
   *   class `Tensor`).
   * @example
   * const feeds = { x: attn.toOrt(result.output, ort) };
   */
  toOrt<T>(t: TensorLike, ort: { Tensor: new (type: 'float32', data: Float32Array, dims: number[]) => T }): T;
  /**
   * Wasm memory: heap size now and the most it can grow to (2 GiB), bytes handed out by
   * malloc now, and the high-water mark of what malloc ever took from the heap (scratch
   * memory included). Never throws.
   * @example
   * const { inUseBytes } = attn.memory();
   */
  memory(): MemoryInfo;
  /**
   * The wasm memory a call would take, without making it: the same arguments as the call,
   * checked the same way (same TypeError/RangeError), nothing allocated.
   *
   * Layers: `('MultiHeadAttention', config)` or `('TransformerEncoderLayer', config)` for
   * their weights, `('MultiHeadAttention.forward', layerOrConfig, query, key?, value?, options?)`
   * and `('TransformerEncoderLayer.forward', layerOrConfig, x, options?)` for a forward pass.
   * Whether it fits is in the result (`fits`), not an error.
   * @param fnName which function (or layer) would be called.
   * @param args that call's own arguments.
   * @throws TypeError when fnName is not a string, RangeError (`estimateMemory: unknown
   *   function '…'`) when it is not one of {@link EstimatedFunction}; for bad arguments the
   *   same TypeError / RangeError the call would throw, naming that function.
   * @example
   * const { fits, bytes } = attn.estimateMemory('attention', q, k, v, { returnWeights: true });
   * if (!fits) slider.setCustomValidity(`needs ${(bytes / 2 ** 30).toFixed(1)} GiB`);
   */
  estimateMemory(fnName: EstimatedFunction, ...args: unknown[]): MemoryEstimate;
  /**
   * Loads a pretrained checkpoint in the Hugging Face layout: `config.json`, `tokenizer.json`
   * (optional) and `model.safetensors` (or shards with `model.safetensors.index.json`), with
   * float32, float16 or bfloat16 weights. Model types: `bert`, `roberta`, `distilbert`, `gpt2`, `llama`
   * (Llama-family decoders such as SmolLM and TinyLlama: RMSNorm, SwiGLU, rotary
   * embeddings, grouped-query attention; `rope_scaling` must be null). The
   * weights are converted to float32 and packed for the kernels once, in wasm memory.
   *
   * Everything is checked before the model is allocated: the safetensors headers (a header
   * that lies about its offsets, sizes or dtypes is a RangeError naming the file and tensor),
   * every tensor the architecture needs (a missing one is named; a wrong shape names both
   * shapes), and the bytes needed against the free heap.
   * @param source a Hub id (`'Qwen/Qwen2.5-0.5B-Instruct'`: exactly `owner/name`; in Node a
   *   folder that exists by that name wins), a folder path (Node), a URL prefix of a folder
   *   (`https://…/resolve/main/`), Files (a drop or `<input type=file multiple>`), or a Map or
   *   object of file names to bytes (ArrayBuffer, typed array, Blob) or, for `.json`, strings
   *   or objects. Or one GGUF file (llama.cpp's format; architectures llama, qwen2, qwen3,
   *   gemma2, gemma3, phi3, gpt2; F32, F16, BF16, Q8_0, Q4_0, Q4_K and Q6_K tensors; Q8_0 and
   *   Q4_0 matrices kept as blocks when all are of one type or `dtype` asks, the rest dequantized
   *   to float32 at load): a path to the file (Node), a URL ending in `.gguf`, a File or Blob,
   *   or its bytes (Uint8Array, ArrayBuffer), told apart by its first bytes, `GGUF`.
   * @param options which head to run, and progress events.
   * @throws TypeError for a source or option of the wrong type; RangeError naming the file,
   *   the tensor or the config key for everything a checkpoint can get wrong, and when the
   *   weights do not fit the wasm heap (saying the bytes needed). The module keeps working.
   * @example
   * const model = await attn.loadModel('https://huggingface.co/distilgpt2/resolve/main/', {
   *   onProgress: ({ file, loaded, total }) => console.log(file, loaded, total),
   * });
   * const { attentions, tokens } = model.forward('The cat sat on the mat', { attentions: true });
   * // attentions[layer]: [1, heads, T, T]; tokens[0][i]: { text, start, end, … }
   */
  loadModel(source: ModelSource, options?: LoadModelOptions): Promise<PretrainedModel>;
  /**
   * Text classification, the course's application (seed 001): a small transformer over
   * WordPiece tokens. A classifier is a folder in Hugging Face's layout (`config.json`,
   * `tokenizer.json`, `model.safetensors`); the package ships one trained on real review
   * sentences (`attention-wasm/web/elements/models/review-sentiment/`).
   * @example
   * const classifier = await attn.TextClassifier.load('https://cdn.example/review-sentiment/');
   * const { label, probabilities, tokens, attention } = classifier.predict('not bad at all');
   * // attention[layer][head][i][j]: row i over token j; tokens[0] is [CLS]
   * const mine = await attn.TextClassifier.train(tsvText, { onProgress: (p) => console.log(p.step, p.loss) });
   */
  readonly TextClassifier: TextClassifierStatic;
}

/** {@link AttentionWasm.TextClassifier}: loading and training text classifiers. */
export interface TextClassifierStatic {
  /**
   * Reads a classifier folder: a folder path (Node), a URL prefix, Files, or an object of
   * file names to contents ({@link TextClassifier.toFiles} output). Either this package's
   * format (`config.json`'s `format` is `'attention-wasm/text-classifier'`) or a Hugging Face
   * sequence classifier (`architectures[0]` ending in `ForSequenceClassification`, or
   * `id2label` with a `model_type` {@link AttentionWasm.loadModel} runs), loaded by
   * `loadModel` with the `'sequence-classification'` head, or a linear probe's files
   * (`format` `'attention-wasm/linear-probe'`: its head, and its encoder named by the source
   * it was loaded from; `options.encoder` gives a loaded one instead).
   * @throws RangeError naming the file and the problem (missing file, a config.json of
   *   neither format, one that disagrees with tokenizer.json or the weights, a tensor of the
   *   wrong shape, an `options.encoder` of another shape than the probe's).
   */
  load(
    source: ModelSource | ClassifierFiles,
    options?: {
      onProgress?: (progress: LoadProgress) => void;
      fetchOptions?: RequestInit;
      cache?: boolean;
      /** A linear probe's encoder, already loaded (it stays the caller's: `dispose()` leaves it). */
      encoder?: PretrainedModel;
    },
  ): Promise<TextClassifier>;
  /**
   * A linear probe: `options.encoder`'s pooled last hidden state (frozen) → a softmax layer
   * trained by mini-batch AdamW in float64 (features standardised, the standardisation folded
   * into the saved head). Deterministic for a seed. Progress: `{ stage: 'embedding', … }` as
   * the corpus is embedded, then `{ stage: 'training', epoch, … }` after each epoch.
   * @throws TypeError/RangeError naming `TextClassifier.train` and the option, before the
   *   encoder runs.
   */
  train(corpus: Corpus, options: TrainProbeOptions): Promise<TextClassifier>;
  /**
   * Trains a classifier on a corpus: learns a WordPiece tokenizer from its texts, then the
   * transformer. Deterministic for a seed (the same bits from the same build).
   * @param corpus the text of a TSV (`text<TAB>label`), CSV (a header naming `text`/`review`/
   *   `sentence` and `label`/`sentiment`, or text first and label last) or JSONL
   *   (`{"text": …, "label": …}` per line) file, or `{ text, label }` rows.
   * @throws TypeError/RangeError naming the line of the corpus, or the option (an unknown one
   *   with the closest known name); RangeError for more than 1,000 distinct labels; RangeError
   *   naming the step when training diverges (a loss or a weight not finite, or a weight
   *   beyond float16's range: lower `lr`).
   */
  train(corpus: Corpus, options?: TrainClassifierOptions): Promise<TextClassifier>;
  /**
   * As {@link train}, but resolves to the classifier's files without reading them back: it
   * needs no tokenizer library, so it runs in a Worker built as one classic script.
   */
  trainFiles(
    corpus: Corpus,
    options?: TrainClassifierOptions & { dtype?: 'F16' | 'F32'; metrics?: object },
  ): Promise<ClassifierFiles>;
}

/** A labelled corpus: file text (TSV, CSV, JSONL) or rows. */
export type Corpus = string | CorpusRow[];

/** One example of a {@link Corpus}. */
export interface CorpusRow {
  /** The text. */
  text: string;
  /** Its label (a name, or a number read as its decimal string). */
  label: string | number;
}

/** A linear probe's files, as {@link TextClassifier.toFiles} gives them. */
export interface ProbeFiles {
  /** Labels, pooling, the encoder (its source and shape), how it was trained. */
  'config.json': string;
  /** `probe.weight` [dModel, labels] and `probe.bias` [labels], float32. */
  'model.safetensors': Uint8Array;
}

/** A classifier's files, as {@link TextClassifier.toFiles} and {@link TextClassifierStatic.trainFiles} give them. */
export interface ClassifierFiles {
  /** Labels, the model's shape, how it was trained and what it measured. */
  'config.json': string;
  /** The WordPiece tokenizer, in Hugging Face's format. */
  'tokenizer.json': string;
  /** The weights (float16 or float32), named as TinyTransformer names them. */
  'model.safetensors': Uint8Array;
}

/** A sentiment lexicon for {@link TrainClassifierOptions.lexicon}. */
export interface ClassifierLexicon {
  /** `[word, valence]` pairs (VADER's scale: below 0 negative, above 0 positive). */
  entries: Array<[string, number]>;
  /** The corpus's labels for negative and positive valence, in that order. */
  labels: [string, string];
}

/** Initial token vectors for {@link TrainClassifierOptions.wordVectors}. */
export interface WordVectors {
  /** The words, one per row. */
  words: string[];
  /** Row-major [words.length, dModel] numbers. */
  vectors: Float32Array;
}

/** One progress event of {@link TextClassifierStatic.train}. */
export interface ClassifierProgress {
  /** Steps done. */
  step: number;
  /** Steps in all. */
  steps: number;
  /** Mean training loss since the last event, in nats. */
  loss: number;
  /** Seconds since training started (vocabulary learning included). */
  seconds: number;
  /** Accuracy on `options.validation`, when given. */
  accuracy?: number;
  /** True at the last step. */
  done: boolean;
}

/** Options of {@link TextClassifierStatic.train} for a linear probe (`encoder` given). */
export interface TrainProbeOptions {
  /** A loaded encoder ({@link AttentionWasm.loadModel}: BERT, a sentence embedder, …); it stays the caller's. */
  encoder: PretrainedModel;
  /** `'mean'` over the real tokens (default) or `'cls'` (the first token's vector). */
  pooling?: 'mean' | 'cls';
  /** Passes over the corpus, an integer in [1, 10000] (default 30). */
  epochs?: number;
  /** Examples per AdamW step (default 32; the corpus' size for full-batch descent). */
  batchSize?: number;
  /** AdamW's learning rate, above 0 (default 0.01; on standardised features). */
  lr?: number;
  /** AdamW's decoupled weight decay on the weights, >= 0 (default 0.01). */
  weightDecay?: number;
  /** The order examples are visited in, an integer in [0, 2^32 - 1] (default 7). */
  seed?: number;
  /** The corpus's format when it is text (default: from its first line). */
  format?: 'tsv' | 'csv' | 'jsonl';
  /** Label names in class-id order (default: the labels found). */
  labels?: string[];
  /** A held-out corpus: its accuracy is reported after each epoch. */
  validation?: Corpus;
  /** Called as the corpus is embedded and after each epoch. */
  onProgress?: (progress: ProbeProgress) => void;
  /** Stops training between batches or epochs (the promise rejects with its reason). */
  signal?: AbortSignal;
}

/** One progress event of a linear probe's training ({@link TrainProbeOptions.onProgress}). */
export type ProbeProgress = ProbeEmbeddingProgress | ProbeTrainingProgress;

/** While a linear probe's corpus is embedded: after each batch of sentences. */
export interface ProbeEmbeddingProgress {
  /** The stage. */
  stage: 'embedding';
  /** Which corpus: the training one, or `options.validation`. */
  part: 'train' | 'validation';
  /** Sentences embedded so far. */
  embedded: number;
  /** Sentences in that corpus. */
  total: number;
  /** Seconds since training started. */
  seconds: number;
}

/** After each epoch of a linear probe's training. */
export interface ProbeTrainingProgress {
  /** The stage. */
  stage: 'training';
  /** Epochs done. */
  epoch: number;
  /** Epochs in all. */
  epochs: number;
  /** Mean cross-entropy over the whole corpus after this epoch, in nats. */
  loss: number;
  /** Accuracy on `options.validation`, when given. */
  accuracy?: number;
  /** True after the last epoch. */
  done: boolean;
  /** Seconds since training started (embedding included). */
  seconds: number;
}

/** Options of {@link TextClassifierStatic.train}. */
export interface TrainClassifierOptions {
  /** The corpus's format when it is text (default: from its first line). */
  format?: 'tsv' | 'csv' | 'jsonl';
  /** Label names in class-id order, 2 to 1,000 distinct (default: the labels found, numbers ascending, else sorted). */
  labels?: string[];
  /** A held-out corpus: its accuracy is reported with each progress event. */
  validation?: Corpus;
  /** Tokens in the learned vocabulary before pruning, an integer in [6, 100000] (default 10000). Words over 100 characters are [UNK] and not learned from. */
  vocabSize?: number;
  /** A piece that is not a word stays only if this many words use it, an integer >= 0 (default 20; 0 keeps all). */
  minPieceWords?: number;
  /** A sentiment lexicon whose words become extra training examples (two labels only). */
  lexicon?: ClassifierLexicon;
  /** Initial token vectors by word (dModel numbers each), e.g. `readWordVectors` of the shipped GloVe file. */
  wordVectors?: WordVectors;
  /** Model width (default 64). */
  dModel?: number;
  /** Attention heads per layer (default 4). */
  numHeads?: number;
  /** Layers (default 2). */
  numLayers?: number;
  /** Feed-forward width (default 128). */
  dFF?: number;
  /** Tokens read per text (default 128). */
  maxLen?: number;
  /** Training steps (default 1500). */
  steps?: number;
  /** Examples per step, an integer in [1, 4096] (default 32). */
  batchSize?: number;
  /** AdamW's peak learning rate (default 2e-3), after a linear warm-up, with cosine decay; as `trainStep`'s, finite in float32. */
  lr?: number;
  /** Warm-up steps (default 100). */
  warmup?: number;
  /** AdamW's decoupled weight decay (default 0.1). */
  weightDecay?: number;
  /** Gradient norm clip (default 1). */
  clipNorm?: number;
  /** Probability of dropping each token of a real example (default 0.2). */
  wordDropout?: number;
  /** Probability of replacing each kept token by [UNK] (default 0.05). */
  unkRate?: number;
  /** Share of generated "A, but B" / "although A, B" examples labelled as B (default 0.1). */
  contrastRate?: number;
  /** Share of lexicon examples (one word, or "not" + word flipped; default 0.25). */
  lexiconRate?: number;
  /** Share of [UNK]-only and made-up-word examples, in pairs labelled both ways (default 0.08). */
  junkRate?: number;
  /** Share of 2-4 same-label examples in a row (default 0.1). */
  concatRate?: number;
  /** The seed of the initial weights and of the batches (default 7). */
  seed?: number;
  /** Steps between progress events (default 50). */
  every?: number;
  /** Called every `every` steps. */
  onProgress?: (progress: ClassifierProgress) => void;
  /** Stops training between progress events (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** A token of a {@link TextPrediction}. */
export interface ClassifiedToken {
  /** The token (`[CLS]`, a word, a `##` piece or `[UNK]`). */
  text: string;
  /** Its vocabulary id. */
  id: number;
  /**
   * Its `[start, end)` span in the text (UTF-16 units; with a pair, in the text `segment`
   * names), -1 for `[CLS]` and a checkpoint's other special tokens.
   */
  start: number;
  /** See start. */
  end: number;
  /** True for `[CLS]` (and the `[UNK]` that stands for a text with no tokens), or a checkpoint's special tokens. */
  special: boolean;
  /** With `predict({ text, pair })` only: 0 for a token of `text`, 1 of `pair`, -1 for a special token. */
  segment?: number;
}

/** {@link TextClassifier.vectors}: what the first layer starts from. */
export interface TokenVectors {
  /** The learned [CLS] vector (dModel numbers). */
  cls: Float32Array;
  /** Each id's embedding row (before the position vector is added). */
  tokens: Float32Array[];
}

/** {@link TextClassifier.evaluate}'s result. */
export interface ClassifierEvaluation {
  /** correct / count. */
  accuracy: number;
  /** Texts labelled right. */
  correct: number;
  /** Texts in the corpus. */
  count: number;
  /** [true label][predicted label] counts. */
  confusion: number[][];
}

/** One prediction of {@link TextClassifier.predict}. */
export interface TextPrediction {
  /** The most probable label. */
  label: string;
  /** Its class id. */
  labelId: number;
  /** Probabilities by label id: the softmax of the logits divided by the classifier's calibration `temperature` (each logit's sigmoid for a multi-label checkpoint, `problem_type: 'multi_label_classification'`). */
  probabilities: number[];
  /** The linear layer's outputs by label id. */
  logits: number[];
  /** `[CLS]` first, then the subword tokens; a checkpoint's, as its tokenizer gives them (special tokens included). */
  tokens: ClassifiedToken[];
  /** True when the text had more tokens than the model reads (`maxLength`). */
  truncated: boolean;
  /** `[layer][head][i][j]`: how much row i attends to row j (rows sum to 1). */
  attention: number[][][][];
}

/** A text pair for {@link TextClassifier.predict} (a pair classifier: entailment, paraphrase, …). */
export interface TextPair {
  /** The first text. */
  text: string;
  /** The second text (omitted: one text). */
  pair?: string;
}

/** {@link TextClassifier.modelConfig} of a Hugging Face checkpoint: a summary of its shape. */
export interface CheckpointClassifierConfig {
  /** `config.json`'s `model_type`. */
  modelType: string;
  /** Rows of the word embeddings. */
  vocabSize: number;
  /** Tokens read at most, special tokens included (the model's positions). */
  maxLen: number;
  /** Width of the residual stream. */
  dModel: number;
  /** Attention heads per layer. */
  numHeads: number;
  /** Transformer blocks. */
  numLayers: number;
  /** Hidden width of each feed-forward network. */
  dFF: number;
}

/** A text classifier from {@link AttentionWasm.TextClassifier} (call `dispose()` when done). */
export interface TextClassifier {
  /** Label names by class id. */
  readonly labels: readonly string[];
  /**
   * `'attention-wasm'` (this package's format), `'hugging-face'` (a Hub sequence classifier)
   * or `'linear-probe'` (a softmax layer on a pretrained encoder).
   */
  readonly format: 'attention-wasm' | 'hugging-face' | 'linear-probe';
  /** A linear probe's encoder, else null. */
  readonly encoder: PretrainedModel | null;
  /** The transformer's configuration (TinyTransformer's; a summary of a checkpoint's). */
  readonly modelConfig: Readonly<TinyTransformerConfig> | Readonly<CheckpointClassifierConfig>;
  /** Tokens read per text; longer texts are cut (`truncated` says so). */
  readonly maxLength: number;
  /** The vocabulary's size. */
  readonly vocabSize: number;
  /** How it was trained (config.json's `training`), or null. */
  readonly training: Record<string, unknown> | null;
  /** What it measured (config.json's `metrics`), or null. */
  readonly metrics: Record<string, any> | null;
  /**
   * The calibration temperature T: `predict`'s probabilities are softmax(logits / T)
   * (config.json's `calibration.temperature`; 1 without one). The shipped review classifier's
   * is fitted on validation sentences (temperature scaling).
   */
  readonly temperature: number;
  /** Its tokenizer (tokenizer.json through `@huggingface/tokenizers`). */
  readonly tokenizer: TextTokenizer;
  /**
   * Classifies one text, or a text pair as `{ text, pair }` (a Hugging Face pair classifier:
   * the tokenizer's template joins them, with its token types). Runs on the runner
   * {@link AttentionWasm.loadModel} uses.
   * @throws RangeError for an empty text or a pair given to this package's format,
   *   TypeError for a non-string or an unknown key.
   */
  predict(input: string | TextPair): TextPrediction;
  /** The learned [CLS] vector and the embedding rows of token ids (this package's format only). */
  vectors(ids: number[]): TokenVectors;
  /** Accuracy and the confusion matrix on a labelled corpus. */
  evaluate(corpus: Corpus, options?: { format?: 'tsv' | 'csv' | 'jsonl' }): ClassifierEvaluation;
  /**
   * The classifier's files (float16 weights by default; this package's format), or a linear
   * probe's ({@link ProbeFiles}: `config.json` and its float32 head, no `tokenizer.json`: its
   * encoder's is read; `dtype` 'F32' only). Not a Hugging Face checkpoint's.
   */
  toFiles(options?: { dtype?: 'F16' | 'F32'; metrics?: object }): ClassifierFiles;
  /** True once `dispose()` ran. */
  readonly disposed: boolean;
  /** Frees its wasm memory; every method throws afterwards. */
  dispose(): void;
}

/**
 * Where {@link AttentionWasm.loadModel} finds a checkpoint's files. A Map or object names files
 * as the folder does, a module's with its subfolder (`'1_Pooling/config.json'`); Files from a
 * folder picked whole (`<input webkitdirectory>`) are named by their path under it.
 * A string is a URL when it has a scheme; in Node, a folder that exists; else a Hub id
 * when it is exactly `owner/name` in the Hub's characters (letters, digits, `_`, `-`, `.`);
 * else a folder path (Node) or a URL relative to the page. A path to a file (Node), a URL
 * ending in `.gguf`, one Blob or File, or bytes are read as a GGUF file.
 */
export type ModelSource =
  | string
  | URL
  | File[]
  | DomFileList
  | Map<string, ModelFile>
  | Record<string, ModelFile>
  | Blob
  | ArrayBuffer
  | Uint8Array;

/**
 * The DOM's `FileList` (an `<input type="file">`'s `files`) where the DOM types are loaded, else
 * nothing: a Node project type-checks without `lib: ["dom"]` (`@types/node` has no FileList).
 */
export type DomFileList = typeof globalThis extends Record<'FileList', Record<'prototype', infer T>> ? T : never;

/** One file of a checkpoint given as data. */
export type ModelFile = ArrayBuffer | ArrayBufferView | Blob | string | object;

/** What a model was loaded from ({@link PretrainedModel.source}). */
export interface ModelSourceName {
  /** The folder path, URL or Hub id, as given to {@link AttentionWasm.loadModel}. */
  source: string;
  /** `options.revision` for a Hub id, else null. */
  revision: string | null;
}

/** Options of {@link AttentionWasm.loadModel}. */
export interface LoadModelOptions {
  /**
   * Which head to run: from `config.architectures` by default (`…ForMaskedLM` →
   * `'masked-lm'`, `…LMHeadModel` → `'causal-lm'`, `…ForSequenceClassification` →
   * `'sequence-classification'`, else `'base'`).
   */
  head?: ModelHead;
  /** Called as files download (URL sources) and as weights are packed. */
  onProgress?: (progress: LoadProgress) => void;
  /** Passed to `fetch` for URL sources (headers, credentials, an AbortSignal). */
  fetchOptions?: RequestInit;
  /**
   * Keep URL sources' files in the browser's Cache API (store `attention-wasm-models`), so a
   * second visit reads them from disk (default true; no effect in Node).
   */
  cache?: boolean;
  /**
   * `'auto'` (default): a checkpoint whose matrices are all BF16 keeps them as bfloat16 in
   * wasm memory (half their bytes; decoding, which reads every weight per token, measured
   * 1.3–1.6× faster on a GPT-2-small shape, a prefill 4–10% slower); the results are the same
   * bits as with `'float32'`, which widens every weight to float32 when loading. F16
   * checkpoints are always widened to float32. `'q8'` and `'q4'` quantize every matrix at load
   * into GGUF's Q8_0 or Q4_0 blocks (32 weights and a float16 scale; ggml's reference
   * rounding): about 3.6× or 6.4× fewer bytes than float32; their products code the
   * activations to int8 per block of 32 and sum integer dot products, as llama.cpp does, so
   * the outputs drift from the float model's (see docs for the measured logit drift).
   */
  dtype?: 'auto' | 'float32' | 'q8' | 'q4';
  /**
   * Stops the load: pending downloads are cancelled, nothing is cached or kept allocated, and
   * the promise rejects with the signal's reason (an `AbortError`).
   */
  signal?: AbortSignal;
  /**
   * A Hub id's version: a branch, tag or commit (default `'main'`; `'refs/pr/1'` works). A
   * TypeError for any other source. The browser cache is by URL: a commit keeps it exact.
   */
  revision?: string;
  /** Where the Hub is, for Hub ids (default `'https://huggingface.co'`; a mirror may sit under a path). */
  hubUrl?: string | URL;
  /**
   * A chat template's text (Jinja), for a causal LM whose checkpoint has none, or instead of
   * its `tokenizer_config.json`'s `chat_template`.
   */
  chatTemplate?: string;
}

/** The heads a checkpoint can run. */
export type ModelHead = 'base' | 'masked-lm' | 'causal-lm' | 'sequence-classification';

/** One progress event of {@link AttentionWasm.loadModel}. */
export interface LoadProgress {
  /** The file being downloaded or read. */
  file: string;
  /** `'weights'` while packing weights (loaded/total count tensors); absent for downloads (bytes). */
  stage?: 'weights';
  /** Bytes (or tensors) done. */
  loaded: number;
  /** Bytes (or tensors) in all; null when the server does not say. */
  total: number | null;
  /** The file came from the Cache API, not the network. */
  cached?: boolean;
}

/** Every frequency divided by `factor` (`rope_scaling.rope_type` `'linear'`). */
export interface LinearRopeScaling {
  /** The scaling's type. */
  type: 'linear';
  /** The divisor of every frequency. */
  factor: number;
}

/** Llama 3.1's scaling: low frequencies ÷ factor, high ones kept, a smooth blend between. */
export interface Llama3RopeScaling {
  /** The scaling's type. */
  type: 'llama3';
  /** The divisor of the low frequencies. */
  factor: number;
  /** Wavelengths past originalMax / lowFreqFactor are divided. */
  lowFreqFactor: number;
  /** Wavelengths below originalMax / highFreqFactor are kept. */
  highFreqFactor: number;
  /** `original_max_position_embeddings`. */
  originalMax: number;
}

/** Phi-3's longrope: a divisor per rotated pair, short below the original context and long past it; cos and sin × attentionFactor. */
export interface LongRopeScaling {
  /** The scaling's type. */
  type: 'longrope';
  /** The original context: a call whose last position passes it uses the long factors. */
  originalMax: number;
  /** cos and sin are multiplied by this (√(1 + ln factor / ln originalMax) unless the config gives one). */
  attentionFactor: number;
  /** One divisor per rotated pair, within the original context. */
  shortFactors: number[];
  /** One divisor per rotated pair, past it. */
  longFactors: number[];
}

/** A descriptor's `rope_scaling`, as read. */
export type RopeScaling = LinearRopeScaling | Llama3RopeScaling | LongRopeScaling;

/** The runner's view of an architecture, read from `config.json`. */
export interface ModelDescriptor {
  /** Rows of the word embeddings. */
  vocabSize: number;
  /** Rows of the learned position table: the longest sequence. */
  maxPositions: number;
  /** Rows of the token-type table (0: none). */
  typeVocabSize: number;
  /** Hidden size. */
  dModel: number;
  /** Attention heads. */
  numHeads: number;
  /** Key/value heads (= numHeads unless grouped-query attention). */
  numKvHeads: number;
  /** Columns of each query, key and value head (`head_dim`: dModel / numHeads unless the config says otherwise, as Gemma and Qwen3 do). */
  headDim: number;
  /** Transformer blocks. */
  numLayers: number;
  /** The feed-forward network's hidden width. */
  dFF: number;
  /** The feed-forward activation (`gelu` is the erf form; `gelu_new` the tanh form). */
  activation: 'relu' | 'gelu' | 'gelu_new' | 'gelu_pytorch_tanh' | 'silu';
  /** The longest sequence the model takes (`max_position_embeddings`, `n_positions`). */
  contextLength: number;
  /** RoBERTa: real tokens' positions start here (padding_idx + 1); padding sits one below. */
  positionOffset?: number;
  /** `'layer'` (BERT, GPT-2), `'rms'` for RMSNorm (Llama), `'rms+1'` for Gemma's RMSNorm scaling by 1 + w. */
  norm: 'layer' | 'rms' | 'rms+1';
  /** A norm on each sub-layer's output before its residual too (Gemma's sandwich). */
  postNorms?: boolean;
  /** An RMS norm over each query and key head before the rotary embedding (Qwen3, Gemma 3). */
  qkNorm?: boolean;
  /** With qkNorm: one norm over all of a token's queries (and one over its keys), not per head (OLMo 2). */
  qkNormFullWidth?: boolean;
  /** With postNorms, false: no norm before each sub-layer, x + norm(f(x)) (OLMo 2); absent: true. */
  inputNorms?: boolean;
  /** LayerNorms with a bias (false: ModernBERT's norm_bias false); absent: true. */
  normBiases?: boolean;
  /** A norm before layer 0's attention (false: ModernBERT); absent: true. */
  firstAttentionNorm?: boolean;
  /** The masked-LM head's transform has a bias (false: ModernBERT's classifier_bias false); absent: true. */
  lmTransformBias?: boolean;
  /** Scores are q·k × this (absent or 0: 1/√headDim; Gemma: `query_pre_attn_scalar`^-½). */
  attentionScale?: number;
  /** > 0: scores become cap·tanh(s / cap) before the mask (Gemma 2's `attn_logit_softcapping`). */
  attentionSoftcap?: number;
  /** > 0: logits become cap·tanh(logits / cap) (Gemma 2's `final_logit_softcapping`). */
  finalSoftcap?: number;
  /** Word embeddings × this (Gemma: √dModel in float32; Granite: `embedding_multiplier`). */
  embeddingMultiplier?: number;
  /** Each sub-layer's output × this before its residual (Granite's `residual_multiplier`); absent: 1. */
  residualMultiplier?: number;
  /** Logits ÷ this (Granite's `logits_scaling`); absent: 1. */
  logitsScaling?: number;
  /** Each layer's sliding window (0: every earlier key; w: query i sees keys i − w < j ≤ i; not causal, |i − j| < w). */
  layerWindows?: number[];
  /** Per layer, true where its queries and keys are not rotated (SmolLM3's NoPE layers, `no_rope_layers` 0). */
  layerNoRope?: boolean[];
  /** The RoPE base of the windowed layers, unscaled (Gemma 3's `rope_local_base_freq`); absent or 0: `rotaryBase`. */
  localRotaryBase?: number;
  /** `rope_scaling` (or transformers 5's `rope_parameters`), read: linear, llama3 or longrope; null: none. */
  ropeScaling?: RopeScaling | null;
  /** A gated feed-forward network, down(act(x·W_gate) ⊙ x·W_up) (Llama's SwiGLU). */
  gatedFfn?: boolean;
  /** Columns of each head the rotary embedding turns (Llama: the whole head); absent: none. */
  rotaryDim?: number;
  /** The rotary base θ (`rope_theta`). */
  rotaryBase?: number;
  /** Rotary pairs are adjacent columns rather than the two halves of a head. */
  rotaryInterleaved?: boolean;
  /** The layer norms' epsilon. */
  normEps: number;
  /** Norm before each sub-layer (GPT-2) rather than after its residual (BERT). */
  preNorm: boolean;
  /** A layer norm after the embedding sum (BERT, DistilBERT). */
  embeddingNorm: boolean;
  /** A layer norm after the last block (GPT-2's `ln_f`). */
  finalNorm: boolean;
  /** Decoder: each token sees only itself and earlier tokens. */
  causal: boolean;
  /** The query, key and value projections have biases. */
  qkvBias: boolean;
  /** The attention's output projection has a bias (Qwen2's has none). */
  outBias: boolean;
  /** The feed-forward layers have biases. */
  mlpBias: boolean;
  /** The model runs a masked- or causal-LM head (vocabulary logits). */
  lmHead: boolean;
  /** The LM head transforms first (dense, activation, layer norm), as BERT's does. */
  lmTransform: boolean;
  /** The LM logits have a bias. */
  lmBias: boolean;
  /** The LM head transform's activation. */
  lmActivation: 'relu' | 'gelu' | 'gelu_new' | 'gelu_pytorch_tanh' | 'silu';
}

/** What {@link PretrainedModel.forward} takes: text, texts (a padded batch) or token ids. */
export type ModelInput = string | string[] | number[] | number[][] | ModelIds;

/**
 * Token ids with an optional attention mask (1s then 0s: right padding; 0s then 1s: left
 * padding) and token types.
 */
export interface ModelIds {
  /** `[B][T]` token ids. */
  inputIds: ArrayLike<number>[];
  /**
   * `[B][T]`: 1 for a real token, 0 for padding, at the end (right padding) or at the start
   * (left padding, as tokenizers pad for batched generation). Either way each sequence's
   * outputs are those of the sequence alone: its tokens' positions count from its first real
   * token (as Hugging Face's `generate` sets `position_ids` for left padding), and padded keys
   * get weight 0. Outputs keep the caller's layout; their pad rows are not meaningful.
   */
  attentionMask?: ArrayLike<number>[];
  /** `[B][T]` segment ids (BERT); 0 when absent. */
  tokenTypeIds?: ArrayLike<number>[];
}

/** Options of {@link PretrainedModel.forward}. */
export interface ModelForwardOptions {
  /** Return every layer's attention weights (the step-by-step kernels run). Default false. */
  attentions?: boolean;
  /** Return every layer's hidden states. Default false. */
  hiddenStates?: boolean;
  /** Run the head (LM or classifier). Default true. */
  logits?: boolean;
  /**
   * A layer index: return that layer's queries and keys as the scores use them (after the
   * rotary embedding, before scaling), to show how q·k builds each score.
   */
  queriesAndKeys?: number;
  /**
   * Trace one position's whole path (one sequence, without left padding): every stage the
   * runner computes for it, per layer ({@link ModelTrace}). Memory: layers × (2·T·kvWidth +
   * 3·numHeads·T + widths) floats; nothing grows with T². The other outputs are unchanged.
   */
  trace?: TraceOption;
}

/** {@link ModelForwardOptions.trace}: which position to follow. */
export interface TraceOption {
  /** The position (0-based, a real token of the one sequence) whose path is returned. */
  position: number;
}

/**
 * One layer of a {@link ModelTrace}: the traced position's vectors as the runner computed them
 * (d = dModel, H = numHeads, Hkv = numKvHeads, hd = headDim, f = dFF, T = the sequence's length).
 */
export interface ModelTraceLayer {
  /** `[d]` the attention's input: norm 1's output (the residual stream without an input norm). */
  norm1: Tensor;
  /** `[H, hd]` the position's query, per head (q/k norms and the rotary embedding applied). */
  query: Tensor;
  /** `[Hkv, T, hd]` every position's keys (likewise). */
  keys: Tensor;
  /** `[Hkv, T, hd]` every position's values. */
  values: Tensor;
  /** `[H, T]` q·k·scale (after the softcap, when the model caps scores), for every key. */
  scores: Tensor;
  /** `[H, T]` the scores with −Infinity where the position may not look (causal, window, padding). */
  maskedScores: Tensor;
  /** `[H, T]` softmax of the masked scores: the position's row of forward's attention maps. */
  weights: Tensor;
  /** `[H, hd]` each head's weighted sum of the values, before the output projection. */
  heads: Tensor;
  /** `[d]` after the output projection (before a post-attention norm). */
  attentionOutput: Tensor;
  /** `[d]` the residual stream after the attention sub-layer. */
  attentionResidual: Tensor;
  /** `[d]` the feed-forward network's input: norm 2's output. */
  norm2: Tensor;
  /** `[f]` the activation's input: x·W_gate when gated, else x·W_up + b. */
  mlpPre: Tensor;
  /** `[f]` x·W_up when gated (the activation multiplies it); null otherwise. */
  mlpUp: Tensor | null;
  /** `[f]` act(mlpPre) (× mlpUp when gated): the down projection's input. */
  mlpHidden: Tensor;
  /** `[d]` after the down projection (before a post-FFN norm). */
  mlpOutput: Tensor;
  /** `[d]` the block's output: `hiddenStates[l + 1]`'s row (the last block's is before the final norm). */
  residual: Tensor;
}

/** What `forward(input, { trace: { position } })` adds: one position's whole path. */
export interface ModelTrace {
  /** The traced position. */
  position: number;
  /** Its token id. */
  id: number;
  /** `[d]` its embedding (+ position and type embeddings, after the embedding norm): `hiddenStates[0]`'s row. */
  embedding: Tensor;
  /** `[d]` the token's row of the embedding table (× the embedding multiplier). */
  tokenEmbedding: Tensor;
  /** `[d]` the position's row of a learned position table (GPT-2, BERT); null without one (RoPE). */
  positionEmbedding: Tensor | null;
  /** One entry per layer. */
  layers: ModelTraceLayer[];
  /** `[d]` after the final norm (the last hidden state's row). */
  final: Tensor;
  /** `[vocabSize]` its logits (forward's row); null without an LM head or with `logits: false`. */
  logits: Tensor | null;
}

/**
 * How {@link PretrainedModel.embed} pools a text's token vectors into one (sentence-transformers'
 * Pooling modes; several concatenate in this order: cls, max, mean, meanSqrtLen, weightedMean,
 * last): `'cls'` the first token's vector, `'max'` each column's largest value over the real
 * tokens, `'mean'` the mean over the real tokens, `'meanSqrtLen'` their sum / √n,
 * `'weightedMean'` the mean with token t weighing t + 1, `'last'` the last real token's vector.
 */
export type PoolingMode = 'cls' | 'max' | 'mean' | 'meanSqrtLen' | 'weightedMean' | 'last';

/** Options of {@link PretrainedModel.embed}; given, they win over the folder's modules. */
export interface EmbedOptions {
  /** One mode or several (concatenated in {@link PoolingMode}'s order). Default: the folder's Pooling, else `'mean'`. */
  pooling?: PoolingMode | PoolingMode[];
  /** Scale each embedding to unit L2 length. Default: whether the folder's modules.json lists Normalize, else false. */
  normalize?: boolean;
}

/** A sentence-transformers folder's pipeline, read from `modules.json` ({@link PretrainedModel.sentenceEmbedding}). */
export interface SentenceEmbeddingConfig {
  /** The Pooling module's modes (`1_Pooling/config.json`), in concatenation order; null when {@link SentenceEmbeddingConfig.unsupported} is set. */
  pooling: PoolingMode[] | null;
  /** Whether a Normalize module follows the pooling. */
  normalize: boolean;
  /** `sentence_bert_config.json`'s `max_seq_length`: longer texts are truncated (their special tokens kept); null: the model's context. */
  maxSeqLength: number | null;
  /** `sentence_bert_config.json`'s `do_lower_case`: texts are lowercased first. */
  lowerCase: boolean;
  /** The first module embed does not run (a Dense layer, a custom module), e.g. `'a sentence_transformers.models.Dense module (2_Dense)'`; else null. */
  unsupported: string | null;
}

/** One token of a text as the model saw it. */
export interface ModelToken {
  /** Its id. */
  id: number;
  /** Its string in the vocabulary (`##ing`, `Ġthe`). */
  text: string;
  /** Its span in the text, `text.slice(start, end)`, in UTF-16 units; -1 for special tokens. */
  start: number;
  /** End of the span (exclusive); -1 for special tokens. */
  end: number;
  /** `[CLS]`, `[SEP]`, `<|endoftext|>` and the like. */
  special: boolean;
}

/** What {@link PretrainedModel.forward} returns. B sequences of T tokens, padded as given. */
export interface ModelOutput {
  /** Each sequence's ids, without padding. */
  ids: number[][];
  /** Each sequence's real length. */
  lengths: number[];
  /** `'left'` when some sequence was left-padded (its real rows are the last `lengths[b]`). */
  padding?: 'left';
  /** For text input: each sequence's tokens with their spans. */
  tokens?: ModelToken[][];
  /** `[B, T, dModel]`: the last hidden state (after the final norm, if any). */
  lastHiddenState: Tensor;
  /** LM heads: `[B, T, vocabSize]`; classifiers: `[B, labels]`. Absent for the base model. */
  logits?: Tensor;
  /** Classifiers: `[B, labels]` softmax of the logits. */
  probabilities?: Tensor;
  /** Classifiers: each sequence's most probable label (from `id2label`). */
  labels?: string[];
  /** With `attentions`: one `[B, numHeads, T, T]` tensor per layer; rows sum to 1 over real keys. */
  attentions?: Tensor[];
  /** With `queriesAndKeys`: that layer's queries `[B, numHeads, T, headDim]`. */
  queries?: Tensor;
  /** With `queriesAndKeys`: that layer's keys `[B, numKvHeads, T, headDim]`. */
  keys?: Tensor;
  /** With `hiddenStates`: `numLayers + 1` tensors `[B, T, dModel]` (embeddings first), as Hugging Face reports them. */
  hiddenStates?: Tensor[];
  /** With `trace`: the position's whole path. */
  trace?: ModelTrace;
}

/**
 * What {@link PretrainedModel.forward} returns for this input and these options: the outputs
 * asked for are present (`attentions: true` gives `attentions`, `hiddenStates: true`
 * `hiddenStates`, a `queriesAndKeys` layer `queries` and `keys`; text gives `tokens`), so
 * `tsc --strict` needs no `!` after asking.
 */
export type ModelOutputFor<I, O> = ModelOutput &
  (I extends string | string[] ? WithTokens : {}) &
  (O extends Pick<Required<ModelForwardOptions>, 'attentions'> & WithAttentionsAsked ? WithAttentions : {}) &
  (O extends WithHiddenStatesAsked ? WithHiddenStates : {}) &
  (O extends Pick<Required<ModelForwardOptions>, 'queriesAndKeys'> ? WithQueriesAndKeys : {}) &
  (O extends Pick<Required<ModelForwardOptions>, 'trace'> ? WithTrace : {});

/** Options asking for the attention maps. */
export interface WithAttentionsAsked {
  /** Asked. */
  attentions: true;
}
/** Options asking for the hidden states. */
export interface WithHiddenStatesAsked {
  /** Asked. */
  hiddenStates: true;
}

/** A forward of text: the tokens are there. */
export interface WithTokens {
  /** Each sequence's tokens with their spans. */
  tokens: ModelToken[][];
}
/** A forward with `attentions: true`. */
export interface WithAttentions {
  /** One `[B, numHeads, T, T]` tensor per layer. */
  attentions: Tensor[];
}
/** A forward with `hiddenStates: true`. */
export interface WithHiddenStates {
  /** `numLayers + 1` tensors `[B, T, dModel]`. */
  hiddenStates: Tensor[];
}
/** A forward with `trace`. */
export interface WithTrace {
  /** The position's whole path. */
  trace: ModelTrace;
}
/** A forward with a `queriesAndKeys` layer. */
export interface WithQueriesAndKeys {
  /** That layer's queries `[B, numHeads, T, headDim]`. */
  queries: Tensor;
  /** That layer's keys `[B, numKvHeads, T, headDim]`. */
  keys: Tensor;
}

/** What {@link TextTokenizer.encode} returns, one entry per token. */
export interface EncodedText {
  /** Token types (tokenizer.json's template: with a pair, BERT's 0s then 1s; else 0s). */
  typeIds: number[];
  /** With `pair` only: 0 for a token of the text, 1 of the pair, -1 for one the template adds. */
  segments?: number[];
  /** Token ids. */
  ids: number[];
  /** Token strings as in the vocabulary. */
  tokens: string[];
  /** `[start, end)` spans in the text (UTF-16 units); `[-1, -1]` for special tokens. */
  offsets: [number, number][];
  /** Which tokens are special (`[CLS]`, `<|endoftext|>`, …). */
  special: boolean[];
}

/**
 * Options of {@link PretrainedModel.generate}. Where `generation_config.json` gives a value
 * (see {@link PretrainedModel.generationDefaults}) it is the default; an option given wins.
 * The logits go through transformers' processors in its order: repetition penalty, then,
 * when sampling, temperature, top-k, top-p, min-p.
 */
export interface GenerateOptions {
  /** New tokens at most (default 20; fewer when the model's context ends first). */
  maxNewTokens?: number;
  /** 0 (default): greedy; above 0: sample from softmax(logits / temperature). */
  temperature?: number;
  /** Sample among the k most likely tokens only, and those tied with the k-th (0, default: all). */
  topK?: number;
  /** Sample among the most likely tokens whose probabilities reach p (default 1: all). */
  topP?: number;
  /** Drop tokens less likely than minP × the most likely one (default 0: off). */
  minP?: number;
  /**
   * Tokens already in the sequence (the prompt's too) have their logit divided by this when
   * positive, multiplied when negative (default 1: off; greedy and sampling alike).
   */
  repetitionPenalty?: number;
  /** The end-of-sequence token or tokens (default: `generation_config.json`'s, else `config.json`'s). */
  eosTokenId?: number | number[];
  /**
   * Stop when the text holds one of these: the text ends before it (`stopped: 'stop'`), and
   * `onToken` never shows it. Special tokens cannot be stop strings (stop on them by id).
   */
  stop?: string | string[];
  /** The sampler's seed (default 0): the same seed gives the same text. */
  seed?: number;
  /** Called with each new token; return false to stop after it. */
  onToken?: (token: GeneratedToken) => boolean | void;
  /** Stops the generation (resolves with `stopped: 'aborted'`). */
  signal?: AbortSignal;
  /** Use the key/value cache (default true); false recomputes the whole sequence each step. */
  useCache?: boolean;
  /**
   * How the key/value cache stores keys and values (default `'float32'`). `'bfloat16'` or
   * `'float16'` take half the bytes (`cacheBytes`): each key and value is rounded to nearest
   * even once, when cached, and read back exactly; the sums stay float32. `'q8'` takes 34
   * bytes per 32 values (llama.cpp's q8_0 cache: each row of keys or values in blocks of 32,
   * a float16 scale d = max|x| / 127 and int8 codes round(x / d)), rounded once when cached
   * and read back the same way by the prompt's chunks and every decode step; as llama.cpp
   * does, the keys are scored against the query coded per block of 32 (int16 codes, a
   * power-of-two scale: within max|q| / 65534 of q) when head_dim is a multiple of 32, in
   * integers in a decode step (docs/quantization.md).
   */
  kvDtype?: 'float32' | 'bfloat16' | 'float16' | 'q8';
  /** Stop at the end-of-sequence token (`eos_token_id`; default true). */
  stopAtEos?: boolean;
  /** Return each step's logits in `scores` and the processed ones in `processedScores` (default false). */
  returnScores?: boolean;
}

/** One chat message, as chat templates read them (other keys such as `tool_calls` pass through). */
export interface ChatMessage {
  /** `'system'`, `'user'`, `'assistant'`, `'tool'`, … */
  role: string;
  /** The text, or content parts (JSON-like values). */
  content?: unknown;
  [key: string]: unknown;
}

/** Options of {@link PretrainedModel.applyChatTemplate} (and of `generate({ messages })`, but `addGenerationPrompt`, `tokenize`). */
export interface ChatTemplateOptions {
  /** End with the assistant's turn opened (`add_generation_prompt`; default false). */
  addGenerationPrompt?: boolean;
  /** Return token ids (default true, as in transformers) or the text (false). */
  tokenize?: boolean;
  /** A template's name when the checkpoint has several (default `'default'`, or `'tool_use'` with tools). */
  chatTemplate?: string;
  /** Tool definitions (JSON schemas) for templates that describe tools. */
  tools?: unknown[];
  /** Documents for retrieval templates. */
  documents?: unknown[];
  /** More of the template's variables (e.g. Qwen3's `enable_thinking`). */
  templateVariables?: Record<string, unknown>;
}

/** `generate({ messages, … })`: a chat rendered with its generation prompt, then generated from. */
export interface ChatGenerateRequest
  extends GenerateOptions, Omit<ChatTemplateOptions, 'addGenerationPrompt' | 'tokenize'> {
  /** The conversation so far. */
  messages: ChatMessage[];
}

/** What {@link PretrainedModel.generate} uses where an option is not given. */
export interface GenerationDefaults {
  /** `max_new_tokens`, else 20. */
  readonly maxNewTokens: number;
  /** 0 (greedy) unless `do_sample` is true; then `temperature`, else 1. */
  readonly temperature: number;
  /** `top_k`; else 50 with `do_sample`, 0 (no limit) without. */
  readonly topK: number;
  /** `top_p`, else 1. */
  readonly topP: number;
  /** `min_p`, else 0 (off). */
  readonly minP: number;
  /** `repetition_penalty`, else 1 (off). */
  readonly repetitionPenalty: number;
  /** `eos_token_id` (an id or a list), else `config.json`'s. */
  readonly eosTokenId: readonly number[];
}

/** One token reported by {@link GenerateOptions.onToken}. */
export interface GeneratedToken {
  /** Its id. */
  id: number;
  /** The text it adds (a character split over byte tokens appears when complete). */
  text: string;
  /** 0 for the first new token. */
  index: number;
}

/** What {@link PretrainedModel.generate} resolves to. */
export interface GenerateResult {
  /** The prompt's ids and the new ones. */
  ids: number[];
  /** The new ids. */
  newIds: number[];
  /** The new text (special tokens skipped); null without a tokenizer. */
  text: string | null;
  /** Why it stopped. */
  stopped: 'length' | 'eos' | 'stop' | 'callback' | 'aborted';
  /** Bytes of wasm memory the key/value cache took (keys and values of every layer; 0 without `useCache`). */
  cacheBytes: number;
  /** With `returnScores`: each step's logits `[vocabSize]`. */
  scores?: Float32Array[];
  /** With `returnScores`: each step's logits after the processors (float64; −Infinity where a token was removed). */
  processedScores?: Float64Array[];
}

/** A checkpoint's tokenizer (from `tokenizer.json`, read by `@huggingface/tokenizers`). */
export interface TextTokenizer {
  /** The tokenizer model's type in tokenizer.json: `WordPiece`, `BPE`, `Unigram`. */
  readonly type: string;
  /** Vocabulary size, added tokens included. */
  readonly vocabSize: number | undefined;
  /**
   * Text → ids, token strings, each token's `[start, end)` span in the text (UTF-16 units;
   * `[-1, -1]` for special tokens) and which tokens are special. With `pair`, a text pair
   * joined by tokenizer.json's template (each span in its own text; see `segments`).
   */
  encode(text: string, options?: { addSpecialTokens?: boolean; pair?: string }): EncodedText;
  /** Ids → text. */
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): string;
  /** A token string's id, or undefined. */
  tokenToId(token: string): number | undefined;
}

/**
 * A pretrained model from {@link AttentionWasm.loadModel}: its weights live in wasm memory
 * (call `dispose()` when done); its forward pass runs on this package's kernels.
 */
export interface PretrainedModel {
  /**
   * What {@link AttentionWasm.loadModel} was given (the folder path, URL or Hub id as written,
   * and `options.revision` for a Hub id), or null for Files or a map of bytes.
   */
  readonly source: ModelSourceName | null;
  /** `config.json` as loaded. */
  readonly config: Record<string, unknown>;
  /** `'bert'`, `'roberta'`, `'distilbert'`, `'gpt2'`, `'llama'` or `'mistral'`. */
  readonly modelType: string;
  /** The head this model runs. */
  readonly head: ModelHead;
  /** The architecture as the runner sees it. */
  readonly descriptor: Readonly<ModelDescriptor>;
  /** A classifier's labels (from `id2label`), else null. */
  readonly labels: string[] | null;
  /** The tokenizer, or null when the checkpoint has no `tokenizer.json`. */
  readonly tokenizer: TextTokenizer | null;
  /** Bytes of wasm memory the packed weights take. */
  readonly parameterBytes: number;
  /**
   * How many parameters the checkpoint's tensors that this model reads hold, each tensor once
   * (a tied embedding and LM head is one); null for a model built from tensors.
   */
  readonly parameterCount: number | null;
  /**
   * How the matrices (the projections, the feed-forward layers and the LM head) are held:
   * `'bfloat16'` when the checkpoint stores every one of them as BF16 and `dtype` was
   * `'auto'` (the checkpoint's own values in half the bytes, widened exactly to float32 as
   * the kernels read them: the same outputs, bit for bit, as `'float32'`), else `'float32'`.
   * `'q8'` / `'q4'`: Q8_0 or Q4_0 blocks, with that `dtype`. With `'auto'`, every matrix of a
   * GGUF file in Q8_0, Q4_0, Q4_K or Q6_K blocks keeps them, and `matrixDtype` names the
   * storage most of the matrix weights are in: `'q8'`, `'q4'`, `'q4_k'` or `'q6_k'` (a Q4_K_M
   * file: `'q4_k'`; {@link PretrainedModel.matrixStorages} has the mix; docs/gguf.md). Norms, biases and position tables are always
   * float32; the word embeddings are blocks too with quantized matrices.
   */
  readonly matrixDtype: 'bfloat16' | 'float32' | 'q8' | 'q4' | 'q4_k' | 'q6_k';
  /**
   * How many weights held as matrices (every matrix, and the word embeddings when they are
   * blocks) are in each storage: `'float32'`, `'bfloat16'`, `'q8_0'`, `'q4_0'`, `'q4_k'`,
   * `'q6_k'`. A Q4_K_M file loads as, say, `{ q4_k: 169, q6_k: 28 }`.
   */
  readonly matrixStorages: Readonly<Record<string, number>>;
  /**
   * The checkpoint's tensors this model does not read, sorted (as transformers warns of
   * them): an `lm_head.weight` under a base head, GPT-2's attention-mask buffers. A tensor of a
   * layer past the config's layer count is refused at load instead.
   */
  readonly unusedTensors: readonly string[];
  /**
   * With `'q8'` / `'q4'` matrices: how many of the weights held as blocks (the matrices and
   * the word embeddings) were quantized at load rather than kept as a GGUF file's own blocks,
   * by the type they came in (GGUF type names such as `'Q6_K'` or `'F32'`; a Hugging Face
   * folder's `'F32'`, `'F16'`, `'BF16'`). `{}` when every one was kept, or the matrices are float.
   */
  readonly quantizedAtLoad: Readonly<Record<string, number>>;
  /**
   * A sentence-transformers folder's pipeline (`modules.json`, `1_Pooling/config.json`,
   * `sentence_bert_config.json`): what {@link PretrainedModel.embed} does by default. Null
   * when the checkpoint has no `modules.json`.
   */
  readonly sentenceEmbedding: SentenceEmbeddingConfig | null;
  /**
   * `generate`'s defaults: `generation_config.json`'s values as transformers reads them
   * (`do_sample: false` or absent: greedy; `do_sample: true`: temperature 1, top_k 50 and
   * top_p 1 where the file says nothing) over this API's own.
   */
  readonly generationDefaults: GenerationDefaults;
  /** The chat templates by name (`'default'` for a single one), or null. */
  readonly chatTemplates: Readonly<Record<string, string>> | null;
  /**
   * Chat messages → the chat template's text, as transformers' `apply_chat_template` renders
   * it (with `messages`, `add_generation_prompt`, `tools`, `documents`, the special tokens,
   * `raise_exception`, `strftime_now`), by `@huggingface/jinja` in a bounded sandbox.
   * @returns token ids (tokenized without adding special tokens: the template writes them),
   *   or the text with `tokenize: false`.
   * @throws TypeError for bad messages or options; RangeError when the checkpoint has no
   *   template, the template raises, cannot be read, or passes the sandbox's bounds.
   * @example
   * const prompt = model.applyChatTemplate([{ role: 'user', content: 'Hi!' }], { addGenerationPrompt: true, tokenize: false });
   */
  applyChatTemplate(messages: ChatMessage[], options: ChatTemplateOptions & { tokenize: false }): string;
  /** Chat messages → the chat template's token ids (see the signature above, with `tokenize: false`, for the text). */
  applyChatTemplate(messages: ChatMessage[], options?: ChatTemplateOptions): number[];
  /**
   * Text → the tokens `forward` would see, with their spans in the text.
   * @throws RangeError when the checkpoint has no tokenizer.
   */
  tokenize(text: string): ModelToken[];
  /**
   * The forward pass: logits, and on request every layer's attention maps and hidden
   * states. Strings are tokenized; several inputs are right-padded into one batch and the
   * padding is masked (keys past a sequence's length get weight 0).
   * @throws TypeError for inputs of the wrong type; RangeError for ids outside the
   *   vocabulary, sequences longer than the model's positions, left padding, or a batch
   *   that does not fit the wasm heap (see {@link AttentionWasm.estimateMemory},
   *   `'PretrainedModel.forward'`).
   * @example
   * const out = model.forward(['I loved it.', 'Not my thing.'], { attentions: true });
   * out.attentions[0].shape; // [2, heads, T, T]
   */
  forward<I extends ModelInput, O extends ModelForwardOptions = {}>(input: I, options?: O): ModelOutputFor<I, O>;
  /**
   * The probabilities `generate` would sample the next token from, for these logits (a
   * forward's row, or a trace's): softmax(logits / temperature) over the tokens top-k, top-p
   * and min-p keep (generate's warpers, in its order), renormalised; 0 for removed tokens.
   * `temperature: 0` puts 1 on the argmax.
   * @throws TypeError / RangeError naming `PretrainedModel.samplingDistribution` and the option
   * @example
   * const { trace } = model.forward('The cat sat', { trace: { position: 2 } });
   * const p = model.samplingDistribution(trace.logits, { temperature: 0.8, topK: 40, topP: 0.95 });
   */
  samplingDistribution(
    logits: ArrayLike<number> | Tensor,
    options?: { temperature?: number; topK?: number; topP?: number; minP?: number },
  ): Float64Array;
  /**
   * Sentence embeddings, as sentence-transformers' `encode` computes them: each text trimmed
   * (and lowercased when the folder says `do_lower_case`), tokenized, truncated to
   * `max_seq_length` (or the model's context) keeping its special tokens, run through the
   * model in padded batches, its real tokens pooled (the folder's Pooling modes, or
   * `options.pooling`) and, when the folder lists Normalize (or `options.normalize`), scaled
   * to unit length. Each text's embedding is the one it gets alone. Any model runs it; without
   * `modules.json` the default is mean pooling, unnormalized.
   * @returns `[texts, modes · dModel]` (a string gives one row).
   * @throws TypeError for texts that are not strings and options of the wrong type;
   *   RangeError for an empty list, an unknown pooling mode, a checkpoint without a tokenizer,
   *   or a folder whose modules.json lists a module embed does not run (unless
   *   `options.pooling` is given). All before anything is allocated.
   * @example
   * const model = await attn.loadModel('https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/');
   * const { data, shape } = model.embed(['A cat sat.', 'A dog sat.']);   // shape: [2, 384], unit rows
   */
  embed(texts: string | string[], options?: EmbedOptions): Tensor;
  /**
   * Generates text after a prompt with a key/value cache: the prompt runs once, then each
   * new token's query attends over the cached keys and values (bottom-right causal), one
   * token per step. Greedy by default; sampling with a temperature, top-k and top-p, seeded.
   * Yields to the event loop between tokens; stoppable by `onToken` returning false or an
   * AbortSignal. Causal-LM heads only (GPT-2, Llama).
   * @throws TypeError / RangeError (rejected) for bad prompts and options, a prompt as long as
   *   the model's context, a model without a causal-LM head; Error when the model is already
   *   generating or is disposed during the call.
   * @example
   * const { text } = await model.generate('Once upon a time', {
   *   maxNewTokens: 40, temperature: 0.8, topK: 50, topP: 0.95, seed: 1,
   *   onToken: ({ text }) => { out.textContent += text; },
   * });
   */
  generate(prompt: string | ArrayLike<number>, options?: GenerateOptions): Promise<GenerateResult>;
  /** A chat: `generate({ messages, maxNewTokens, … })` (the template rendered with its generation prompt). */
  generate(request: ChatGenerateRequest): Promise<GenerateResult>;
  /** True once {@link PretrainedModel.dispose} ran. */
  readonly disposed: boolean;
  /** Frees the weights' wasm memory. Idempotent; the model cannot be used afterwards. */
  dispose(): void;
}

/** The functions {@link AttentionWasm.estimateMemory} knows. */
export type EstimatedFunction =
  | 'attention'
  | 'attentionBackward'
  | 'matmul'
  | 'layerNorm'
  | 'rmsNorm'
  | 'softmax'
  | 'logSoftmax'
  | 'feedForward'
  | 'setPool'
  | 'sinusoidalEncoding'
  | 'addPositionalEncoding'
  | 'applyRope'
  | 'alibiSlopes'
  | 'alibiBias'
  | 'laplacianEncoding'
  | 'MultiHeadAttention'
  | 'MultiHeadAttention.forward'
  | 'TransformerEncoderLayer'
  | 'TransformerEncoderLayer.forward'
  | 'KVCache'
  | 'PretrainedModel.forward';

/** One block of wasm memory a call would take. */
export interface MemoryBlock {
  /** The tensor's name (`q`, `output`, …) or the core's scratch (`kernel workspace`). */
  name: string;
  /** The tensor's shape (scratch blocks have none). */
  shape?: number[];
  /** Its bytes; null for scratch not asked for (see {@link MemoryEstimate.complete}). */
  bytes: number | null;
}

/** What {@link AttentionWasm.estimateMemory} returns. */
export interface MemoryEstimate {
  /** Bytes of wasm memory the call takes at its peak (its tensors, outputs and the core's scratch). */
  bytes: number;
  /**
   * False when the tensors alone cannot fit the heap: the core's scratch was then not asked
   * for (its blocks have `bytes: null`) and `bytes` is a lower bound.
   */
  complete: boolean;
  /** Each block: a tensor (with its shape) or the core's scratch. */
  blocks: MemoryBlock[];
  /** The most the wasm heap can hold. */
  heapMaxBytes: number;
  /** What is free now (heapMaxBytes minus what live layers and other data hold). */
  freeBytes: number;
  /** Whether the call would fit now. */
  fits: boolean;
}

/** Which build of the module `init` loaded, and with how many threads. */
export interface BuildInfo {
  /** The package version. */
  readonly version: string;
  /** `'relaxed'` (the relaxed-SIMD kernels) or `'baseline'` (SIMD128 only). */
  readonly build: 'baseline' | 'relaxed';
  /** What the kernels were compiled for: `'wasm-relaxed-simd'` or `'wasm-simd128'`. */
  readonly target: string;
  /** Always true: every build uses WebAssembly SIMD128. */
  readonly simd: boolean;
  /** Whether the kernels use relaxed-SIMD FMA (`f32x4.relaxed_madd`). */
  readonly relaxedSimd: boolean;
  /** Threads the kernels use, the caller included (1: the single-threaded build). */
  readonly threads: number;
  /**
   * Why fewer threads run than `init` was asked for (e.g. a page that is not cross-origin
   * isolated), or null.
   */
  readonly threadsReason: string | null;
  /**
   * Rows per register tile of the attention and matmul kernels: 6 for the relaxed build in
   * browsers, 4 in Node (whose V8 spills six) and in the SIMD128 build. For performance
   * reports only: the results are the same bits either way.
   */
  readonly tileRows: 4 | 6;
}

/** Options of {@link init}. */
export interface InitOptions {
  /**
   * Where to load the wasm from (default: the package's own `dist/` file for the chosen
   * build). Which build the bytes are is read from the bytes.
   */
  wasmUrl?: string | URL;
  /** The wasm bytes themselves (skips loading); the build is read from the bytes. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * Which build: `'auto'` (default) takes the relaxed-SIMD build where the engine validates
   * relaxed SIMD (Chromium 114+; Node 20 only with `--experimental-wasm-relaxed-simd`), else
   * the SIMD128 build; `'baseline'` forces the SIMD128 build (bit-identical everywhere);
   * `'relaxed'` requires the relaxed build (RangeError where the engine lacks it).
   * The two builds agree to about 1e-6 relative; each is deterministic.
   */
  simd?: 'auto' | 'relaxed' | 'baseline';
  /**
   * Threads for the kernels (default 1): an integer 1–64 or `'auto'` (one per core). More
   * than one loads the threaded build with a pool of Web Workers (Node: worker_threads),
   * where threads are available: Node, and cross-origin isolated pages and their Workers.
   * Elsewhere one thread runs and {@link BuildInfo.threadsReason} says why. Every thread
   * count gives the same bits.
   */
  threads?: number | 'auto';
}

/**
 * Loads the wasm module and returns the API. Without `wasmUrl`/`wasmBinary` each build (and
 * thread count) is loaded once and shared; with them each call gives a new instance.
 * @param options which build, how many threads, and where the wasm comes from.
 * @throws TypeError / RangeError starting `init:` for bad options (`init: unknown option
 *   'thread' (known: wasmUrl, wasmBinary, simd, threads)`, `simd: 'relaxed'` where the
 *   engine lacks relaxed SIMD); a RangeError (with the original error as `cause`) when the
 *   wasm cannot be loaded (the promise rejects; a later `init` tries again).
 * @example
 * import { init } from 'attention-wasm';
 * const attn = await init();                         // the best build this engine runs
 * const threaded = await init({ threads: 'auto' });  // where threads are available
 */
export function init(options?: InitOptions): Promise<AttentionWasm>;
/**
 * Makes a tensor from flat data and a shape (default: 1-D); no wasm needed.
 * @param data numbers, converted to a Float32Array unless one already.
 * @param shape the dims (default `[data.length]`); their product must be data's length.
 * @throws TypeError / RangeError starting `tensor:` (`tensor: tensor has 5 values but shape
 *   [2, 3] needs 6`).
 * @example
 * import { tensor } from 'attention-wasm';
 * const x = tensor([1, 2, 3, 4], [2, 2]);
 */
export function tensor(data: NumericData, shape?: number[]): Tensor;
/**
 * Turns a tensor into nested arrays (a shape `[]` tensor gives a number); no wasm needed.
 * @param t any {@link TensorLike}.
 * @throws TypeError / RangeError starting `toNested:` for something that is not a tensor.
 * @example
 * toNested(tensor([1, 2, 3, 4], [2, 2]));   // [[1, 2], [3, 4]]
 */
export function toNested(t: TensorLike): NestedNumbers;
/**
 * A TensorFlow.js tensor (float32) of `t`, made with your own `tf` module; no wasm needed
 * (as {@link AttentionWasm.toTfjs}).
 * @param t any {@link TensorLike}.
 * @param tf the TensorFlow.js module (`import * as tf from '@tensorflow/tfjs'`).
 * @throws TypeError / RangeError starting `toTfjs:` (not a tensor, or `tf` without `tensor`).
 * @example
 * const y = toTfjs(result.output, tf);
 */
export function toTfjs<T>(t: TensorLike, tf: { tensor(data: Float32Array, shape: number[], dtype: 'float32'): T }): T;
/**
 * An onnxruntime-web tensor (float32) of `t`, made with your own `ort` module; no wasm
 * needed (as {@link AttentionWasm.toOrt}).
 * @param t any {@link TensorLike}.
 * @param ort the onnxruntime-web module (`import * as ort from 'onnxruntime-web'`).
 * @throws TypeError / RangeError starting `toOrt:` (not a tensor, or `ort` without the class
 *   `Tensor`).
 * @example
 * const y = toOrt(result.output, ort);
 */
export function toOrt<T>(
  t: TensorLike,
  ort: { Tensor: new (type: 'float32', data: Float32Array, dims: number[]) => T },
): T;
/**
 * The package version, e.g. `'0.1.0'` (also in {@link BuildInfo.version}); no wasm needed.
 * @example
 * import { VERSION } from 'attention-wasm';
 */
export const VERSION: string;
