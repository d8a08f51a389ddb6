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
export type TensorLike = Tensor | NestedNumbers[];

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

export interface AttentionWasm {
  /** What is loaded: package version and the SIMD target in use. */
  readonly info: { readonly version: string; readonly simd: boolean; readonly target: string };
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
  /** Makes a tensor from flat data and a shape (default: 1-D). */
  tensor(data: Float32Array | number[], shape?: number[]): Tensor;
  /** Turns a tensor into nested arrays. */
  toNested(t: TensorLike): NestedNumbers;
  /** Wasm memory now: heap size and bytes handed out by malloc. */
  memory(): { heapBytes: number; inUseBytes: number };
}

export interface InitOptions {
  /** Where to load `attention.wasm` from (default: next to the glue in `dist/`). */
  wasmUrl?: string | URL;
  /** The wasm bytes themselves (skips loading). */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

/**
 * Loads the wasm module and returns the API. Without options the module is loaded once and
 * shared; with options each call gives a new instance.
 */
export function init(options?: InitOptions): Promise<AttentionWasm>;
/** Makes a tensor from flat data and a shape (default: 1-D). */
export function tensor(data: Float32Array | number[], shape?: number[]): Tensor;
/** Turns a tensor into nested arrays. */
export function toNested(t: TensorLike): NestedNumbers;
/** The package version. */
export const VERSION: string;
