// A model must never answer with confident garbage: when its weights (or a caller's inputs)
// hold a NaN or infinity, every logit that touches one is non-finite, and a greedy argmax then
// picks token 0 every time. forward, generate and embed check what they return and throw an
// Error naming the function, the output and the first position that is not finite.

/** The error's `code`, so that a caller (embed) can name itself instead. */
export const NON_FINITE = 'ATTENTION_WASM_NON_FINITE';

/**
 * Throws when `data` ([rows, width], row r at position positionOf(r)) holds a NaN or infinity.
 * @param {string} fn @param {string} what the output's name @param {Float32Array} data
 * @param {number} width @param {(row: number) => string} positionOf
 */
export function checkFiniteRows(fn, what, data, width, positionOf) {
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    if (x - x === 0) continue; // finite (NaN - NaN and ∞ - ∞ are NaN)
    const error = new Error(
      `${fn}: the model computed ${Number.isNaN(x) ? 'NaN' : x > 0 ? 'infinity' : '-infinity'} in its ${what} at ${positionOf(Math.floor(i / width))} (column ${i % width}); its weights or inputs hold a NaN or infinity, so no answer it gives can be trusted`,
    );
    error.code = NON_FINITE;
    throw error;
  }
}

/** The same error with another function's name (a call made on its behalf). */
export function renamed(error, fn) {
  if (error?.code !== NON_FINITE) return error;
  const again = new Error(error.message.replace(/^[^:]+:/, `${fn}:`));
  again.code = NON_FINITE;
  return again;
}
