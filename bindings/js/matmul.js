// attn.matmul(a, b): the projection X·W of the course material (row-vector convention).
import { rangeError } from './errors.js';
import { toTensor, formatShape, sizeOf } from './tensor.js';
import { HeapScope } from './heap.js';

const FN = 'matmul';

/**
 * Creates `matmul` bound to one loaded module: a [..., m, k] · b [k, n] → [..., m, n].
 * @param {object} module the Emscripten module
 */
export function makeMatmul(module) {
  return function matmul(aIn, bIn) {
    const a = toTensor(FN, 'a', aIn);
    const b = toTensor(FN, 'b', bIn);
    if (a.shape.length < 1) throw rangeError(FN, `a must have shape [..., m, k], got ${formatShape(a.shape)}`);
    if (b.shape.length !== 2) throw rangeError(FN, `b must have shape [k, n], got ${formatShape(b.shape)}`);
    const inner = a.shape.at(-1);
    const [bRows, cols] = b.shape;
    if (bRows !== inner) throw rangeError(FN, `b has ${bRows} rows but a has ${inner} columns (k must match)`);
    const outShape = [...a.shape.slice(0, -1), cols];
    const rows = inner === 0 ? sizeOf(a.shape.slice(0, -1)) : a.data.length / inner;
    if (rows === 0 || cols === 0 || inner === 0) return { data: new Float32Array(sizeOf(outShape)), shape: outShape };
    const heap = new HeapScope(module, FN);
    try {
      const out = heap.alloc(rows * cols);
      const status = module._matmul(heap.floats(a.data), heap.floats(b.data), rows, inner, cols, out);
      if (status !== 0) throw rangeError(FN, `the core rejected the call: ${module._statusMessage(status)}`);
      return { data: heap.read(out, rows * cols), shape: outShape };
    } finally {
      heap.release();
    }
  };
}
