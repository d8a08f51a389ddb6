// attn.matmul(a, b): the projection X·W of the course material (row-vector convention).
import { rangeError } from './errors.js';
import { toTensor, formatShape, sizeOf, zeros, checkResultSize } from './tensor.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget, heapMaxBytes } from './memory.js';
import { checkKeys } from './checks.js';
import { checkOut, readOutput, zeroOutput } from './out.js';

const FN = 'matmul';

// Checks a [..., m, k], b [k, n] and the options; touches no wasm memory.
function plan(module, aIn, bIn, optionsIn) {
  const options = checkKeys(FN, 'option', optionsIn, ['out']);
  const outIn = options.out; // read once, before the tensors
  const a = toTensor(FN, 'a', aIn);
  const b = toTensor(FN, 'b', bIn);
  if (a.shape.length < 1) throw rangeError(FN, `a must have shape [..., m, k], got ${formatShape(a.shape)}`);
  if (b.shape.length !== 2) throw rangeError(FN, `b must have shape [k, n], got ${formatShape(b.shape)}`);
  const inner = a.shape.at(-1);
  const [bRows, cols] = b.shape;
  if (bRows !== inner) throw rangeError(FN, `b has ${bRows} rows but a has ${inner} columns (k must match)`);
  const outShape = [...a.shape.slice(0, -1), cols];
  const rows = sizeOf(a.shape.slice(0, -1));
  const empty = rows === 0 || cols === 0 || inner === 0;
  const out = checkOut(FN, outIn, outShape); // last: no caller code runs after
  if (empty && out === null) checkResultSize(FN, 'output', outShape, heapMaxBytes(module)); // zeros, made in JS
  return { a, b, rows, inner, cols, outShape, empty, out };
}

function memoryPlan(module, p) {
  const memory = new MemoryPlan(FN);
  if (p.empty) return memory;
  return memory
    .tensor('a', p.a.shape)
    .tensor('b', p.b.shape)
    .tensor('output', p.outShape)
    .scratch('packed b', () => module._matmulScratch(p.inner, p.cols));
}

/**
 * Creates `matmul` bound to one loaded module: a [..., m, k] · b [k, n] → [..., m, n].
 * @param {object} module the Emscripten module
 */
export function makeMatmul(module) {
  function matmul(aIn, bIn, options) {
    const p = plan(module, aIn, bIn, options);
    if (p.empty && p.out !== null) return { data: zeroOutput(p.out), shape: p.outShape };
    if (p.empty) return zeros(FN, 'output', p.outShape, heapMaxBytes(module));
    checkBudget(module, memoryPlan(module, p));
    const heap = new HeapScope(module, FN);
    try {
      const out = heap.alloc(p.rows * p.cols);
      const status = module._matmul(heap.floats(p.a.data), heap.floats(p.b.data), p.rows, p.inner, p.cols, out);
      if (status !== 0) throw rangeError(FN, `the core rejected the call: ${module._statusMessage(status)}`);
      return { data: readOutput(heap, out, p.rows * p.cols, p.out), shape: p.outShape };
    } finally {
      heap.release();
    }
  }
  return { matmul, estimate: (a, b, options) => memoryPlan(module, plan(module, a, b, options)) };
}
