// The `axis` option of the per-axis operators (softmax, logSoftmax, rmsNorm, layerNorm).
import { typeError, rangeError, describe } from './errors.js';

/**
 * options.axis as a non-negative axis of a tensor of `rank` dims: an integer in
 * [-rank, rank), negative counting from the end (-1 is the last).
 */
export function checkAxis(fn, axis, rank) {
  if (typeof axis !== 'number') throw typeError(fn, `options.axis must be an integer, got ${describe(axis)}`);
  if (!Number.isInteger(axis) || axis < -rank || axis >= rank) {
    throw rangeError(
      fn,
      `options.axis is ${axis} but x has ${rank} dims${rank > 0 ? ` (axes are integers in [${-rank}, ${rank - 1}])` : ''}`,
    );
  }
  return axis < 0 ? axis + rank : axis;
}
