// Types for attention-wasm. Glossary: Lq = query length (seqQ), Lk = key length (seqK),
// dk = head dim (headDim), dv = value dim (valueDim). Shapes are row-major.

/** A dense float tensor, row-major: `data.length === shape.reduce((a, b) => a * b, 1)`. */
export interface Tensor {
  data: Float32Array;
  shape: number[];
}

/** Nested arrays of numbers, e.g. `[[1, 2], [3, 4]]` (shape inferred, must be rectangular). */
export type NestedNumbers = number | NestedNumbers[];
/** Nested arrays of booleans, e.g. `[[true, false], [true, true]]`. */
export type NestedBooleans = boolean | NestedBooleans[];

/** Anything a function accepts as a float tensor. */
/** Numeric data accepted in a tensor: Float32Array is used as is, anything else converted once. */
export type NumericData = Float32Array | Float64Array | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array
  | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array | number[];

/**
 * Anything a function takes as a tensor: `{ data, shape }` (any numeric data), nested number
 * arrays, a TensorFlow.js `Tensor` (read with `dataSync()`) or an onnxruntime-web `Tensor`
 * (`dims` and `data`). Non-Float32 data costs one conversion (a copy) per call.
 */
export type TensorLike = Tensor | { data: NumericData; shape: number[] } | NestedNumbers[]
  | { shape: number[]; dtype: string; dataSync(): ArrayLike<number> }
  | { dims: readonly number[]; type: string; data: unknown };

/**
 * An attention mask, broadcast to the weights' shape `[..., Lq, Lk]` (PyTorch rules):
 * - boolean: `{ data: Uint8Array, shape }` or nested booleans; **true / 1 = may attend**;
 * - additive: `{ data: Float32Array, shape }` or nested numbers, added to the scaled
 *   scores; `-Infinity` blocks the key whatever its score.
 */
export type MaskLike = Tensor | { data: Uint8Array; shape: number[] } | NestedBooleans[] | NestedNumbers[];

export interface AttentionOptions {
  /** Boolean or additive mask, broadcast to `[..., Lq, Lk]`. */
  mask?: MaskLike;
  /** Hide keys after each query's position. Default false. */
  causal?: boolean;
  /**
   * Where the causal diagonal starts when Lq ≠ Lk. `'top-left'` (default, PyTorch): row i
   * sees keys j ≤ i. `'bottom-right'` (FlashAttention, KV-cache decoding): row i sees
   * keys j ≤ i + Lk − Lq.
   */
  causalAlign?: 'top-left' | 'bottom-right';
  /** Multiplies q·kᵀ. Default `1 / sqrt(dk)`; 0 is legal (uniform weights); must be finite. */
  scale?: number;
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
}

/** The stages of one attention call, each `[..., Lq, Lk]` except `output`. */
export interface AttentionTrace {
  /** Raw scores q·kᵀ. */
  scores: Tensor;
  /** q·kᵀ·scale. */
  scaledScores: Tensor;
  /** After the mask, the causal rule and key lengths (-Infinity where blocked). */
  maskedScores: Tensor;
  /** softmax of the masked scores; rows with no visible key are zeros. */
  weights: Tensor;
  /** weights·v, `[..., Lq, dv]`. */
  output: Tensor;
}

export interface AttentionResult {
  /** `[..., Lq, dv]`, where `...` is the broadcast of the leading dims of q, k, v. */
  output: Tensor;
  /** `[..., Lq, Lk]`, with `returnWeights` or `trace`. */
  weights?: Tensor;
  /** With `trace`. */
  trace?: AttentionTrace;
}

/** Weights of multi-head attention (row-vector convention: `Q = X·W_Q`). */
export interface MultiHeadWeights {
  /** `[dModel, dModel]` */ wq: Tensor;
  /** `[kDim, numKvHeads·headDim]` */ wk: Tensor;
  /** `[vDim, numKvHeads·headDim]` */ wv: Tensor;
  /** `[dModel, dModel]` */ wo: Tensor;
  /** `[dModel]` (with bias) */ bq?: Tensor;
  /** `[numKvHeads·headDim]` */ bk?: Tensor;
  /** `[numKvHeads·headDim]` */ bv?: Tensor;
  /** `[dModel]` */ bo?: Tensor;
}

export interface MultiHeadConfig {
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

export interface MultiHeadForwardOptions {
  /** Boolean or additive mask broadcast to `[B?, numHeads, Lq, Lk]`. */
  mask?: MaskLike;
  causal?: boolean;
  causalAlign?: 'top-left' | 'bottom-right';
  /** `[B]` (or one number unbatched): keys past the length are padding. */
  keyLengths?: number | number[] | Int32Array;
  /** Return `weights: [B?, numHeads, Lq, Lk]`. */
  returnWeights?: boolean;
  /** Return `weights` averaged over heads: `[B?, Lq, Lk]` (implies returnWeights). */
  averageWeights?: boolean;
  /** Return per-head q, k, v, weights, the concatenation and the output. */
  trace?: boolean;
}

export interface MultiHeadResult {
  /** `[B?, Lq, dModel]` */
  output: Tensor;
  weights?: Tensor;
  trace?: {
    /** `[B?, numHeads, Lq, headDim]` */ q: Tensor;
    /** `[B?, numKvHeads, Lk, headDim]` */ k: Tensor;
    /** `[B?, numKvHeads, Lk, headDim]` */ v: Tensor;
    /** `[B?, numHeads, Lq, Lk]` */ weights: Tensor;
    /** `[B?, Lq, dModel]`: heads side by side */ concat: Tensor;
    /** `[B?, Lq, dModel]` */ output: Tensor;
  };
}

/** Multi-head attention with weights in wasm memory; call dispose() when done. */
export declare class MultiHeadAttention {
  constructor(config: MultiHeadConfig);
  readonly dModel: number;
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
  readonly kDim: number;
  readonly vDim: number;
  /** Replaces any subset of the weights; all shapes are checked before anything changes. */
  setWeights(weights: Partial<Record<keyof MultiHeadWeights, TensorLike>>): void;
  getWeights(): MultiHeadWeights;
  /**
   * @param query `[B?, Lq, dModel]`
   * @param key `[B?, Lk, kDim]` (default: query)
   * @param value `[B?, Lk, vDim]` (default: key)
   */
  forward(query: TensorLike, key?: TensorLike, value?: TensorLike, options?: MultiHeadForwardOptions): MultiHeadResult;
  /** Frees the weights' wasm memory; any later call throws. */
  dispose(): void;
}

export interface EncoderLayerConfig {
  dModel: number;
  numHeads: number;
  /** Hidden width of the feed-forward network. */
  dFF: number;
  /** 'post' (default, original Transformer): LN(x + sublayer(x)); 'pre': x + sublayer(LN(x)). */
  norm?: 'pre' | 'post';
  activation?: 'relu' | 'gelu';
  seed?: number;
  bias?: boolean;
  /** Layer-norm epsilon (default 1e-5). */
  eps?: number;
  numKvHeads?: number;
}

/** Weights of the encoder layer: MultiHeadWeights plus norms and FFN. */
export interface EncoderLayerWeights extends MultiHeadWeights {
  /** `[dModel]` */ ln1Gamma: Tensor; ln1Beta: Tensor; ln2Gamma: Tensor; ln2Beta: Tensor;
  /** `[dModel, dFF]` */ w1: Tensor;
  /** `[dFF]` */ b1: Tensor;
  /** `[dFF, dModel]` */ w2: Tensor;
  /** `[dModel]` */ b2: Tensor;
}

/** Self-attention and FFN, each with a residual connection and a layer norm. */
export declare class TransformerEncoderLayer {
  constructor(config: EncoderLayerConfig);
  readonly dModel: number;
  readonly numHeads: number;
  readonly dFF: number;
  readonly norm: 'pre' | 'post';
  setWeights(weights: Partial<Record<keyof EncoderLayerWeights, TensorLike>>): void;
  getWeights(): EncoderLayerWeights;
  /** x: `[B?, L, dModel]` → `[B?, L, dModel]`. */
  forward(x: TensorLike, options?: { mask?: MaskLike; causal?: boolean; causalAlign?: 'top-left' | 'bottom-right'; keyLengths?: number | number[] | Int32Array }): Tensor;
  dispose(): void;
}

export interface AttentionWasm {
  /** What is loaded: the package version and which build of the module. */
  readonly info: BuildInfo;
  /**
   * Scaled dot-product attention `softmax(q·kᵀ·scale + mask)·v`.
   * @param q `[..., Lq, dk]`
   * @param k `[..., Lk, dk]`
   * @param v `[..., Lk, dv]` (leading dims of q, k, v broadcast)
   * @throws TypeError for wrong types, RangeError for wrong shapes or values; the
   *   message starts with `attention:` and names the tensor. Nothing is allocated first.
   *
   * Rows that see no key give zeros (never NaN). Blocked keys never reach the output, even
   * if their k or v rows hold NaN or Infinity. Without `returnWeights`/`trace` no
   * Lq × Lk buffer is allocated (fused online-softmax kernel).
   */
  attention(q: TensorLike, k: TensorLike, v: TensorLike, options?: AttentionOptions): AttentionResult;
  /**
   * Matrix product `a·b` (the projections `Q = X·W_Q` of the row-vector convention).
   * @param a `[..., m, k]`
   * @param b `[k, n]`
   * @returns `[..., m, n]`
   */
  matmul(a: TensorLike, b: TensorLike): Tensor;
  /** Multi-head attention layer class bound to this module. */
  MultiHeadAttention: typeof MultiHeadAttention;
  /** Transformer encoder layer class bound to this module. */
  TransformerEncoderLayer: typeof TransformerEncoderLayer;
  /** `PE[p, 2i] = sin(p / base^(2i/dModel))`, `PE[p, 2i+1] = cos(...)`: `[seqLen, dModel]`. */
  sinusoidalEncoding(seqLen: number, dModel: number, options?: { base?: number }): Tensor;
  /** Adds rows `offset .. offset+L-1` of a (learned) table `[maxLen, d]` to x `[..., L, d]`. */
  addPositionalEncoding(x: TensorLike, table: TensorLike, options?: { offset?: number }): Tensor;
  /**
   * Rotary position embedding of x `[..., L, dim]` (dim even). `interleaved: false` (default)
   * rotates pairs (i, i + dim/2) ("rotate_half", GPT-NeoX/LLaMA); `true` pairs (2i, 2i+1)
   * (RoFormer/GPT-J). Angle of pair i at position p: `p · base^(-2i/dim)`.
   */
  applyRope(x: TensorLike, options?: { positions?: number[] | Float32Array; base?: number; interleaved?: boolean }): Tensor;
  /** ALiBi slopes exactly as the reference `get_slopes(numHeads)`. */
  alibiSlopes(numHeads: number): number[];
  /** `bias[h, i, j] = -slope_h · |(i + Lk - Lq) - j|`, `[numHeads, Lq, Lk]`: an additive mask. */
  alibiBias(numHeads: number, seqQ: number, seqK?: number): Tensor;
  /**
   * The k eigenvectors of the symmetric normalised Laplacian after the trivial one,
   * `[numNodes, k]`, with their eigenvalues (ascending). Isolated nodes have a zero row in
   * L. Sign: each vector's largest-magnitude entry is positive.
   */
  laplacianEncoding(graph: { numNodes: number; edges: Array<[number, number]> }, k: number): Tensor & { eigenvalues: Float32Array };
  /** Layer norm over the last axis (biased variance, as PyTorch). */
  layerNorm(x: TensorLike, options?: { gamma?: TensorLike; beta?: TensorLike; eps?: number }): Tensor;
  /** `act(x·w1 + b1)·w2 + b2`; gelu is the exact erf form. */
  feedForward(x: TensorLike, options: { w1: TensorLike; b1?: TensorLike; w2: TensorLike; b2?: TensorLike; activation?: 'relu' | 'gelu' }): Tensor;
  /** Deep Sets pooling over the set axis: x `[..., n, d]` → `[..., d]`. */
  setPool(x: TensorLike, op?: 'sum' | 'mean' | 'max'): Tensor;
  /** Makes a tensor from flat data and a shape (default: 1-D). */
  tensor(data: Float32Array | number[], shape?: number[]): Tensor;
  /** Turns a tensor into nested arrays. */
  toNested(t: TensorLike): NestedNumbers;
  /**
   * A TensorFlow.js tensor (float32) of `t`, made with your own `tf` module (this package
   * does not depend on tfjs): `attn.toTfjs(result.output, tf)`.
   */
  toTfjs<T>(t: TensorLike, tf: { tensor(data: Float32Array, shape: number[], dtype: 'float32'): T }): T;
  /**
   * An onnxruntime-web tensor (float32) of `t`, made with your own `ort` module:
   * `attn.toOrt(result.output, ort)`.
   */
  toOrt<T>(t: TensorLike, ort: { Tensor: new (type: 'float32', data: Float32Array, dims: number[]) => T }): T;
  /**
   * Wasm memory: heap size now and the most it can grow to (2 GiB), bytes handed out by
   * malloc now, and the high-water mark of what malloc ever took from the heap (scratch
   * memory included).
   */
  memory(): { heapBytes: number; heapMaxBytes: number; inUseBytes: number; peakBytes: number };
  /**
   * The wasm memory a call would take, without making it: the same arguments as the call,
   * checked the same way (same TypeError/RangeError), nothing allocated.
   * ```js
   * const { fits, bytes } = attn.estimateMemory('attention', q, k, v, { returnWeights: true });
   * if (!fits) slider.setCustomValidity(`needs ${(bytes / 2 ** 30).toFixed(1)} GiB`);
   * ```
   * Layers: `('MultiHeadAttention', config)` or `('TransformerEncoderLayer', config)` for
   * their weights, `('MultiHeadAttention.forward', layerOrConfig, query, key?, value?, options?)`
   * and `('TransformerEncoderLayer.forward', layerOrConfig, x, options?)` for a forward pass.
   * A call whose plan does not fit throws a RangeError naming the tensor and the bytes.
   */
  estimateMemory(fnName: EstimatedFunction, ...args: unknown[]): MemoryEstimate;
}

/** The functions estimateMemory knows. */
export type EstimatedFunction =
  | 'attention' | 'matmul' | 'layerNorm' | 'feedForward' | 'setPool'
  | 'sinusoidalEncoding' | 'addPositionalEncoding' | 'applyRope' | 'alibiSlopes' | 'alibiBias' | 'laplacianEncoding'
  | 'MultiHeadAttention' | 'MultiHeadAttention.forward' | 'TransformerEncoderLayer' | 'TransformerEncoderLayer.forward';

export interface MemoryEstimate {
  /** Bytes of wasm memory the call takes at its peak (its tensors, outputs and the core's scratch). */
  bytes: number;
  /**
   * False when the tensors alone cannot fit the heap: the core's scratch was then not asked
   * for (its blocks have `bytes: null`) and `bytes` is a lower bound.
   */
  complete: boolean;
  /** Each block: a tensor (with its shape) or the core's scratch. */
  blocks: Array<{ name: string; shape?: number[]; bytes: number | null }>;
  /** The most the wasm heap can hold. */
  heapMaxBytes: number;
  /** What is free now (heapMaxBytes minus what live layers and other data hold). */
  freeBytes: number;
  /** Whether the call would fit now. */
  fits: boolean;
}

/** Which build of the module `init` loaded. */
export interface BuildInfo {
  /** The package version. */
  readonly version: string;
  /** `'relaxed'` (`dist/attention-relaxed.wasm`) or `'baseline'` (`dist/attention.wasm`). */
  readonly build: 'baseline' | 'relaxed';
  /** What the kernels were compiled for: `'wasm-relaxed-simd'` or `'wasm-simd128'`. */
  readonly target: string;
  /** Always true: both builds use WebAssembly SIMD128. */
  readonly simd: boolean;
  /** Whether the kernels use relaxed-SIMD FMA (`f32x4.relaxed_madd`). */
  readonly relaxedSimd: boolean;
}

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
}

/**
 * Loads the wasm module and returns the API. Without `wasmUrl`/`wasmBinary` each build is
 * loaded once and shared; with them each call gives a new instance.
 */
export function init(options?: InitOptions): Promise<AttentionWasm>;
/** Makes a tensor from flat data and a shape (default: 1-D). */
export function tensor(data: Float32Array | number[], shape?: number[]): Tensor;
/** Turns a tensor into nested arrays. */
export function toNested(t: TensorLike): NestedNumbers;
/** See {@link AttentionWasm.toTfjs}. */
export function toTfjs<T>(t: TensorLike, tf: { tensor(data: Float32Array, shape: number[], dtype: 'float32'): T }): T;
/** See {@link AttentionWasm.toOrt}. */
export function toOrt<T>(t: TensorLike, ort: { Tensor: new (type: 'float32', data: Float32Array, dims: number[]) => T }): T;
/** The package version. */
export const VERSION: string;
