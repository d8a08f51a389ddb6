// options.out: a caller's Float32Array that a forward pass writes its output into, instead of
// returning a new array. A loop that calls attention again and again (a benchmark, a
// generation loop, a live demo) then allocates nothing per call. Why it matters: a new typed
// array's memory is new to the process, and first touching those pages is what costs. Chromium
// 156 on the benchmark machine, a new array filled: 96–210 µs for 16 KB, 0.75–1.1 ms for
// 256 KB, 3.1–3.4 ms for 1 MB (Node 20: 9–26 µs, 54–102 µs, 75–362 µs); attention at N = 64
// takes 0.03 ms.
import { typeError, rangeError, describe } from './errors.js';
import { typedArrayKind, lengthOf, sizeOf, formatShape } from './tensor.js';

// The intrinsics, so that a subclass's own `set` or `fill` plays no part.
const setFloats = Float32Array.prototype.set;
const fillFloats = Float32Array.prototype.fill;

/**
 * Checks `out` (undefined/null: none) against the output's shape; returns it, or null.
 * Call it once the plan is complete: after it no caller code runs before the copy-out.
 *   out: Float32Array of exactly sizeOf(shape) values (any buffer, shared or not; it may
 *   be one of the inputs, which are copied into the wasm heap before anything is written)
 */
export function checkOut(fn, out, shape) {
  if (out === undefined || out === null) return null;
  if (typedArrayKind(out) !== 'Float32Array') {
    throw typeError(fn, `options.out must be a Float32Array, got ${describe(out)}`);
  }
  const count = sizeOf(shape);
  const length = lengthOf(out);
  if (length !== count) {
    throw rangeError(fn, `options.out has ${length} values but the output ${formatShape(shape)} has ${count}`);
  }
  return out;
}

/**
 * The output's data: `count` floats of the heap at `address` copied into `out`, or into a
 * new Float32Array when there is none.
 */
export function readOutput(heap, address, count, out) {
  if (out === null) return heap.read(address, count);
  setFloats.call(out, heap.view(address, count));
  return out;
}

/** `out` filled with zeros (an output with nothing to sum: k = 0). */
export function zeroOutput(out) {
  fillFloats.call(out, 0);
  return out;
}
