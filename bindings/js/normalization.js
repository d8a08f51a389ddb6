// layerNorm and rmsNorm over the trailing axes of a tensor (ONNX LayerNormalization and
// RMSNormalization: every axis from options.axis to the last is normalised together).
import { rangeError } from './errors.js';
import { toTensor, formatShape, sizeOf, checkResultSize } from './tensor.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget, heapMaxBytes } from './memory.js';
import { checkKeys } from './checks.js';
import { checkAxis } from './axis.js';
import { checkEps } from './block.js';

// An optional parameter of exactly `shape`, or null.
function optionalParameter(fn, name, value, shape) {
  if (value === undefined || value === null) return null;
  const t = toTensor(fn, name, value);
  if (formatShape(t.shape) !== formatShape(shape))
    throw rangeError(
      fn,
      `${name} has shape ${formatShape(t.shape)} but must be ${formatShape(shape)} (x.shape from options.axis on)`,
    );
  return t.data;
}

// x as [rows, dim] around options.axis, with the parameters' shape and the stats' shape.
function normShape(fn, x, axisOption) {
  const rank = x.shape.length;
  if (rank < 1) throw rangeError(fn, `x must have at least one dim, got ${formatShape(x.shape)}`);
  const axis = checkAxis(fn, axisOption ?? -1, rank);
  const inner = x.shape.slice(axis);
  const statsShape = [...x.shape.slice(0, axis), ...inner.map(() => 1)];
  return { axis, inner, statsShape, rows: sizeOf(x.shape.slice(0, axis)), dim: sizeOf(inner) };
}

/** Binds layerNorm and rmsNorm to one module. */
export function makeNormalization(module) {
  const run = (fn, body) => {
    const heap = new HeapScope(module, fn);
    try {
      return body(heap);
    } finally {
      heap.release();
    }
  };

  // layerNorm's checks; touches no wasm memory.
  function planLayerNorm(xIn, options = {}) {
    const fn = 'layerNorm';
    const x = toTensor(fn, 'x', xIn);
    checkKeys(fn, 'option', options, ['gamma', 'beta', 'eps', 'axis', 'returnStats'], ['returnStats']);
    const o = { ...options }; // each option read once
    const { inner, statsShape, rows, dim } = normShape(fn, x, o.axis);
    const gamma = optionalParameter(fn, 'gamma', o.gamma, inner);
    const beta = optionalParameter(fn, 'beta', o.beta, inner);
    const eps = checkEps(fn, o.eps ?? 1e-5);
    const returnStats = o.returnStats === true;
    const memory = new MemoryPlan(fn);
    if (rows > 0) {
      if (dim > 0) memory.tensor('x', x.shape); // normalised in place
      if (gamma && dim > 0) memory.tensor('gamma', inner);
      if (beta && dim > 0) memory.tensor('beta', inner);
      if (returnStats) memory.tensor('mean', statsShape).tensor('invStdDev', statsShape);
    }
    return { x, gamma, beta, eps, rows, dim, statsShape, returnStats, memory };
  }

  /**
   * Layer normalisation over the axes from options.axis (default -1) to the last:
   * (x - μ)/sqrt(σ² + eps)·gamma + beta; with returnStats, { output, mean, invStdDev }.
   */
  function layerNorm(xIn, options = {}) {
    const fn = 'layerNorm';
    const { x, gamma, beta, eps, rows, dim, statsShape, returnStats, memory } = planLayerNorm(xIn, options);
    const count = rows * dim;
    if (count === 0) {
      // No values, or rows of no values (whose mean and variance are NaN, as NumPy's).
      const output = { data: new Float32Array(0), shape: x.shape };
      if (!returnStats) return output;
      checkResultSize(fn, 'mean', statsShape, heapMaxBytes(module));
      const stats = () => ({ data: new Float32Array(rows).fill(NaN), shape: statsShape });
      return { output, mean: stats(), invStdDev: stats() };
    }
    checkBudget(module, memory);
    return run(fn, (heap) => {
      const xa = heap.floats(x.data);
      const mean = returnStats ? heap.alloc(rows) : 0,
        inv = returnStats ? heap.alloc(rows) : 0;
      module._layerNormStats(
        xa,
        rows,
        dim,
        gamma ? heap.floats(gamma) : 0,
        beta ? heap.floats(beta) : 0,
        eps,
        xa,
        mean,
        inv,
      );
      const output = { data: heap.read(xa, count), shape: x.shape };
      if (!returnStats) return output;
      return {
        output,
        mean: { data: heap.read(mean, rows), shape: statsShape },
        invStdDev: { data: heap.read(inv, rows), shape: statsShape },
      };
    });
  }

  // rmsNorm's checks; touches no wasm memory.
  function planRmsNorm(xIn, options = {}) {
    const fn = 'rmsNorm';
    const x = toTensor(fn, 'x', xIn);
    checkKeys(fn, 'option', options, ['weight', 'eps', 'axis']);
    const o = { ...options };
    const { inner, rows, dim } = normShape(fn, x, o.axis);
    const weight = optionalParameter(fn, 'weight', o.weight, inner);
    const eps = checkEps(fn, o.eps ?? 1e-5);
    const memory = new MemoryPlan(fn);
    if (rows > 0 && dim > 0) {
      memory.tensor('x', x.shape); // normalised in place
      if (weight) memory.tensor('weight', inner);
    }
    return { x, weight, eps, rows, dim, memory };
  }

  /** x / sqrt(mean(x²) + eps)·weight over the axes from options.axis (default -1) to the last. */
  function rmsNorm(xIn, options = {}) {
    const fn = 'rmsNorm';
    const { x, weight, eps, rows, dim, memory } = planRmsNorm(xIn, options);
    const count = rows * dim;
    if (count === 0) return { data: new Float32Array(0), shape: x.shape };
    checkBudget(module, memory);
    return run(fn, (heap) => {
      const xa = heap.floats(x.data);
      module._rmsNorm(xa, rows, dim, weight ? heap.floats(weight) : 0, eps, xa);
      return { data: heap.read(xa, count), shape: x.shape };
    });
  }

  const estimates = {
    layerNorm: (...args) => planLayerNorm(...args).memory,
    rmsNorm: (...args) => planRmsNorm(...args).memory,
  };
  return { layerNorm, rmsNorm, estimates };
}
