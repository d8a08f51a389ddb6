// softmax and logSoftmax over one axis of a tensor (any axis; the core walks a non-last axis
// with a stride, no transpose).
import { toTensor, sizeOf } from './tensor.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget } from './memory.js';
import { checkKeys } from './checks.js';
import { checkAxis } from './axis.js';

/** Binds softmax and logSoftmax to one module. */
export function makeSoftmax(module) {
  // The checks of softmax / logSoftmax (fn); touches no wasm memory.
  function plan(fn, xIn, options = {}) {
    const x = toTensor(fn, 'x', xIn);
    checkKeys(fn, 'option', options, ['axis']);
    const axis = checkAxis(fn, options.axis ?? -1, x.shape.length);
    const count = sizeOf(x.shape);
    const memory = new MemoryPlan(fn);
    if (count > 0) memory.tensor('x', x.shape).tensor('output', x.shape);
    // x as [outer, axisLen, inner] (int32-sized once the plan fits the heap).
    const outer = sizeOf(x.shape.slice(0, axis)),
      axisLen = x.shape[axis],
      inner = sizeOf(x.shape.slice(axis + 1));
    return { x, outer, axisLen, inner, count, memory };
  }

  function compute(fn, log, xIn, options) {
    const { x, outer, axisLen, inner, count, memory } = plan(fn, xIn, options);
    if (count === 0) return { data: new Float32Array(0), shape: x.shape };
    checkBudget(module, memory);
    const heap = new HeapScope(module, fn);
    try {
      const input = heap.floats(x.data);
      const out = heap.alloc(count);
      const status = module._softmax(input, outer, axisLen, inner, log, out);
      if (status !== 0) throw new RangeError(`${fn}: the core rejected the call: ${module._statusMessage(status)}`);
      return { data: heap.read(out, count), shape: x.shape };
    } finally {
      heap.release();
    }
  }

  /** exp(x - max) / Σ exp(x - max) over options.axis (default -1). */
  const softmax = (x, options = {}) => compute('softmax', false, x, options);
  /** x - max - log Σ exp(x - max) over options.axis (default -1); never log(softmax). */
  const logSoftmax = (x, options = {}) => compute('logSoftmax', true, x, options);

  const estimates = {
    softmax: (x, options = {}) => plan('softmax', x, options).memory,
    logSoftmax: (x, options = {}) => plan('logSoftmax', x, options).memory,
  };
  return { softmax, logSoftmax, estimates };
}
