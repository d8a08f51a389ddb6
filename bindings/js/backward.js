// The backward of each block step, one function per forward (issue 10): what a learner calls
// to see a gradient, and what the gradient checks test step by step. Each checks its inputs
// exactly as its forward does, then makes one wasm call.
//   linearBackward(x, w, dy)                      y = x·w + b
//   layerNormBackward(x, dy, { gamma, beta, eps })  (beta takes no part: dβ = Σ dy)
//   feedForwardBackward(x, dy, { w1, b1, w2, b2, activation })
//   softmaxCrossEntropy(logits, targets)           loss and dLogits (ignore: target < 0)
import { typeError, rangeError, describe } from './errors.js';
import { toTensor, formatShape, sizeOf } from './tensor.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget } from './memory.js';
import { checkKeys } from './checks.js';
import { checkActivation, checkEps, optionalVector, matrix } from './block.js';
import { readIntegers } from './model_inputs.js';

// dy must have x's leading dims and `width` columns.
function gradientOf(fn, x, dyIn, width) {
  const dy = toTensor(fn, 'dy', dyIn);
  const expected = [...x.shape.slice(0, -1), width];
  if (dy.shape.length !== expected.length || dy.shape.some((n, i) => n !== expected[i])) {
    throw rangeError(fn, `dy must have shape ${formatShape(expected)} (the output's), got ${formatShape(dy.shape)}`);
  }
  return dy;
}

function lastAxis(fn, name, t, what) {
  if (t.shape.length < 1) throw rangeError(fn, `${name} must have shape [..., ${what}], got ${formatShape(t.shape)}`);
  return t.shape.at(-1);
}

function refused(fn, module, status) {
  return rangeError(
    fn,
    `the core rejected the call: ${module._statusMessage ? module._statusMessage(status) : `status ${status}`}`,
  );
}

/** Binds the backward steps to one module. */
export function makeBackward(module) {
  const run = (fn, memory, body) => {
    checkBudget(module, memory);
    const heap = new HeapScope(module, fn);
    try {
      return body(heap);
    } finally {
      heap.release();
    }
  };
  const tensor = (heap, address, shape) => ({ data: heap.read(address, sizeOf(shape)), shape });

  /** x: [..., in]  w: [in, out]  dy: [..., out] → { dx: [..., in], dw: [in, out], db: [out] } */
  function linearBackward(xIn, wIn, dyIn) {
    const fn = 'linearBackward';
    const x = toTensor(fn, 'x', xIn);
    const inDim = lastAxis(fn, 'x', x, 'in');
    const w = matrix(fn, 'w', wIn, inDim);
    const out = w.shape[1];
    const dy = gradientOf(fn, x, dyIn, out);
    const rows = inDim === 0 ? 0 : sizeOf(x.shape) / inDim;
    const memory = new MemoryPlan(fn)
      .tensor('x', x.shape)
      .tensor('w', w.shape)
      .tensor('dy', dy.shape)
      .tensor('dx', x.shape)
      .tensor('dw', w.shape)
      .tensor('db', [out])
      .scratch('packed weights', () => 4 * Math.ceil(inDim / 8) * 8 * out);
    return run(fn, memory, (heap) => {
      if (rows === 0 || inDim === 0 || out === 0) {
        return {
          dx: { data: new Float32Array(sizeOf(x.shape)), shape: x.shape },
          dw: { data: new Float32Array(inDim * out), shape: [inDim, out] },
          db: { data: dyColumnSums(dy.data, out), shape: [out] },
        };
      }
      const dx = heap.alloc(sizeOf(x.shape)),
        dw = heap.alloc(inDim * out),
        db = heap.alloc(out);
      const status = module._linearBackward(
        heap.floats(x.data),
        heap.floats(w.data),
        heap.floats(dy.data),
        rows,
        inDim,
        out,
        dx,
        dw,
        db,
      );
      if (status !== 0) throw refused(fn, module, status);
      return { dx: tensor(heap, dx, x.shape), dw: tensor(heap, dw, [inDim, out]), db: tensor(heap, db, [out]) };
    });
  }

  /** x, dy: [..., d] → { dx: [..., d], dgamma: [d], dbeta: [d] } */
  function layerNormBackward(xIn, dyIn, options = {}) {
    const fn = 'layerNormBackward';
    const x = toTensor(fn, 'x', xIn);
    checkKeys(fn, 'option', options, ['gamma', 'beta', 'eps']);
    const d = lastAxis(fn, 'x', x, 'd');
    const dy = gradientOf(fn, x, dyIn, d);
    const gamma = optionalVector(fn, 'gamma', options.gamma, d);
    optionalVector(fn, 'beta', options.beta, d);
    const eps = checkEps(fn, options.eps ?? 1e-5);
    const rows = d === 0 ? 0 : sizeOf(x.shape) / d;
    const memory = new MemoryPlan(fn)
      .tensor('x', x.shape)
      .tensor('dy', dy.shape)
      .tensor('dx', x.shape)
      .tensor('dgamma and dbeta', [2, d])
      .scratch('row statistics and the normalised rows', () => 4 * (2 * rows + rows * d + 2 * d));
    return run(fn, memory, (heap) => {
      if (rows === 0)
        return {
          dx: { data: new Float32Array(sizeOf(x.shape)), shape: x.shape },
          dgamma: { data: new Float32Array(d), shape: [d] },
          dbeta: { data: new Float32Array(d), shape: [d] },
        };
      const dx = heap.alloc(sizeOf(x.shape)),
        dg = heap.alloc(d),
        dbeta = heap.alloc(d);
      const status = module._layerNormBackward(
        heap.floats(x.data),
        rows,
        d,
        gamma ? heap.floats(gamma) : 0,
        eps,
        heap.floats(dy.data),
        dx,
        dg,
        dbeta,
      );
      if (status !== 0) throw refused(fn, module, status);
      return { dx: tensor(heap, dx, x.shape), dgamma: tensor(heap, dg, [d]), dbeta: tensor(heap, dbeta, [d]) };
    });
  }

  /** x, dy: [..., dModel] → { dx, dw1: [dModel, dFF], db1: [dFF], dw2: [dFF, dModel], db2: [dModel] } */
  function feedForwardBackward(xIn, dyIn, options) {
    const fn = 'feedForwardBackward';
    const x = toTensor(fn, 'x', xIn);
    if (options === undefined)
      throw typeError(fn, "options { w1, b1?, w2, b2?, activation? } are required (the forward's)");
    checkKeys(fn, 'option', options, ['w1', 'b1', 'w2', 'b2', 'activation']);
    const dModel = lastAxis(fn, 'x', x, 'dModel');
    const w1 = matrix(fn, 'w1', options.w1, dModel);
    const dFF = w1.shape[1];
    const w2 = matrix(fn, 'w2', options.w2, dFF, dModel);
    const b1 = optionalVector(fn, 'b1', options.b1, dFF);
    optionalVector(fn, 'b2', options.b2, dModel);
    const activation = checkActivation(fn, options.activation ?? 'relu', module);
    const dy = gradientOf(fn, x, dyIn, dModel);
    const rows = dModel === 0 ? 0 : sizeOf(x.shape) / dModel;
    const memory = new MemoryPlan(fn)
      .tensor('x', x.shape)
      .tensor('dy', dy.shape)
      .tensor('w1', w1.shape)
      .tensor('w2', w2.shape)
      .tensor('dx', x.shape)
      .tensor('dw1', w1.shape)
      .tensor('dw2', w2.shape)
      .tensor('biases and their gradients', [4, dFF + dModel])
      .scratch(
        'hidden layers',
        () => 4 * (3 * rows * dFF + Math.ceil(Math.max(dFF, dModel) / 8) * 8 * Math.max(dFF, dModel)),
      );
    return run(fn, memory, (heap) => {
      const shapes = { dx: x.shape, dw1: [dModel, dFF], db1: [dFF], dw2: [dFF, dModel], db2: [dModel] };
      if (rows === 0 || dFF === 0) {
        // Nothing flows through the hidden layer; b2 still gets Σ dy.
        const out = Object.fromEntries(
          Object.entries(shapes).map(([k, s]) => [k, { data: new Float32Array(sizeOf(s)), shape: s }]),
        );
        out.db2.data = dyColumnSums(dy.data, dModel);
        return out;
      }
      const a = Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, heap.alloc(sizeOf(s))]));
      const status = module._feedForwardBackward(
        heap.floats(x.data),
        rows,
        dModel,
        dFF,
        heap.floats(w1.data),
        b1 ? heap.floats(b1) : 0,
        heap.floats(w2.data),
        activation,
        heap.floats(dy.data),
        a.dx,
        a.dw1,
        a.db1,
        a.dw2,
        a.db2,
      );
      if (status !== 0) throw refused(fn, module, status);
      return Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, tensor(heap, a[k], s)]));
    });
  }

  /**
   * logits: [..., C]  targets: [...] integers (< 0: ignored) →
   * { loss (mean over counted rows), count, accuracy, dLogits: [..., C] }
   */
  function softmaxCrossEntropy(logitsIn, targetsIn) {
    const fn = 'softmaxCrossEntropy';
    const logits = toTensor(fn, 'logits', logitsIn);
    const classes = lastAxis(fn, 'logits', logits, 'C');
    if (classes < 1) throw rangeError(fn, `logits must have at least one class, got ${formatShape(logits.shape)}`);
    const rows = sizeOf(logits.shape) / classes;
    const targets = readTargets(fn, targetsIn, classes);
    if (targets.data.length !== rows)
      throw rangeError(
        fn,
        `targets has ${targets.data.length} values but logits ${formatShape(logits.shape)} has ${rows} rows (one target per row)`,
      );
    const memory = new MemoryPlan(fn)
      .tensor('logits', logits.shape)
      .tensor('dLogits', logits.shape)
      .tensor('targets', [rows]);
    return run(fn, memory, (heap) => {
      const d = heap.alloc(sizeOf(logits.shape));
      const r =
        rows === 0
          ? { loss: 0, count: 0, correct: 0 }
          : module._softmaxCrossEntropy(heap.floats(logits.data), heap.ints(targets.data), rows, classes, d);
      return {
        loss: r.loss,
        count: r.count,
        accuracy: r.count > 0 ? r.correct / r.count : 0,
        dLogits: rows === 0 ? { data: new Float32Array(0), shape: logits.shape } : tensor(heap, d, logits.shape),
      };
    });
  }

  return { linearBackward, layerNormBackward, feedForwardBackward, softmaxCrossEntropy };
}

// Targets of softmaxCrossEntropy: [rows] or [B][L] nested arrays, or { data, shape } of any
// rank; integers below C (negative: ignored). Returned as { data: Int32Array }.
function readTargets(fn, value, classes) {
  const min = -(2 ** 31),
    max = classes - 1;
  if (Array.isArray(value) && value.length > 0 && Array.isArray(value[0]))
    return readIntegers(fn, 'targets', value, 2, min, max);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'shape' in value) {
    const shape = value.shape;
    if (!Array.isArray(shape) || shape.some((n) => !Number.isSafeInteger(n) || n < 0))
      throw rangeError(fn, `targets.shape must be a list of dims, got ${describe(shape)}`);
    return readIntegers(fn, 'targets', { data: value.data, shape: [shape.reduce((a, b) => a * b, 1)] }, 1, min, max);
  }
  return readIntegers(fn, 'targets', value, 1, min, max);
}

// Σ over rows of dy [rows, out] (the bias gradient when nothing else is computed).
function dyColumnSums(dy, out) {
  const sums = new Float32Array(out);
  for (let i = 0; i < dy.length; i++) sums[i % out] += dy[i];
  return sums;
}
