// The sizes past which an element shows a message instead of trying: a few bytes of
// attribute (a shape of [10000000, 0, 0], a 1000 × 1000 matrix as table cells) once froze a
// tab for minutes. Each limit is checked on the parsed sizes, before anything is built, and
// is documented in docs/elements.md ("Size limits").
export const LIMITS = Object.freeze({
  /** Attribute and inline JSON text, characters. */
  jsonChars: 4 << 20,
  /** <attention-matrix>: cells drawn as a table (32 × 32: about 140 ms to build and lay out in
   *  Chromium here; 64 × 64 took 250-350 ms); larger matrices are drawn on a canvas ... */
  tableCells: 1024,
  /** ... up to this many cells (1024 × 1024); past it, a message. */
  canvasCells: 1 << 20,
  /** <attention-steps>: tokens (rows of X or C) and features (columns of X, C and the weights). */
  steps: Object.freeze({ tokens: 32, features: 32 }),
  /** <attention-flash>: query rows, keys and features. */
  flash: Object.freeze({ queries: 32, keys: 64, features: 32 }),
  /** <attention-heatmap>: heads, and query or key tokens (64 in the lines view). */
  heatmap: Object.freeze({ heads: 64, tokens: 256, lineTokens: 64 }),
  /** <token-pruning>: tokens and the features of their made-up vectors. */
  pruning: Object.freeze({ tokens: 64, dim: 64 }),
  /** <attention-model>: tokens of the reader's text (the model view draws layers × heads
   *  maps of tokens²; the lines view takes heatmap.lineTokens), and its characters, checked
   *  before tokenizing (128 tokens of English are under 1,000 characters; a 1 MB text took
   *  0.8 s to tokenize). */
  model: Object.freeze({ tokens: 128, chars: 4096 }),
  /** The page's URL state (#state=…), characters. */
  urlStateChars: 16384,
});

/** A RangeError naming the element, what is too big, its size and the limit. */
export function tooBig(element, what, size, limit) {
  return new RangeError(
    `${element}: ${what} is ${size}, more than the ${limit} this element shows (its size limits are in docs/elements.md)`,
  );
}

/**
 * JSON text of attribute `name` of `element`, parsed ("-Infinity" strings stay strings:
 * callers convert), or a named TypeError/RangeError.
 */
export function parseAttributeJson(element, name, text, reviver) {
  if (text.length > LIMITS.jsonChars)
    throw tooBig(element, `${name} (JSON text)`, `${text.length} characters`, LIMITS.jsonChars);
  try {
    return JSON.parse(text, reviver);
  } catch (error) {
    throw new TypeError(`${element}: ${name} is not JSON (${error.message})`);
  }
}

/** A dimension read from a shape: an integer from 0 to 2^31 − 1, else a RangeError. */
export function dimension(element, what, x) {
  if (!Number.isInteger(x) || x < 0 || x > 2 ** 31 - 1)
    throw new RangeError(`${element}: ${what} must be a whole number ≥ 0, got ${String(x)}`);
  return x;
}

/**
 * An element's new input, or why there is none: { value: make(), error: null }, or
 * { value: fallback, error } when make() throws. The element shows the error in its place and
 * recovers on the next good input.
 */
export function attempt(make, fallback = null) {
  try {
    return { value: make(), error: null };
  } catch (error) {
    return { value: fallback, error };
  }
}
