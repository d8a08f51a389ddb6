// Positional encodings: sinusoidal, learned tables, RoPE, ALiBi, graph-Laplacian eigenvectors.
import { typeError, rangeError, describe, show } from './errors.js';
import { toTensor, toIndexTensor, formatShape, sizeOf, intact } from './tensor.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget } from './memory.js';
import { positiveInteger, nonNegativeInteger, checkKeys } from './checks.js';

function checkBase(fn, base) {
  if (typeof base !== 'number') throw typeError(fn, `options.base must be a number, got ${describe(base)}`);
  if (!Number.isFinite(base) || base <= 1)
    throw rangeError(fn, `options.base must be a finite number above 1, got ${base}`);
  return base;
}

/** Binds the positional-encoding functions to one module. */
export function makePositional(module) {
  const run = (fn, body) => {
    const heap = new HeapScope(module, fn);
    try {
      return body(heap);
    } finally {
      heap.release();
    }
  };

  function planSinusoidal(seqLen, dModel, options = {}) {
    const fn = 'sinusoidalEncoding';
    nonNegativeInteger(fn, 'seqLen', seqLen);
    positiveInteger(fn, 'dModel', dModel);
    checkKeys(fn, 'option', options, ['base']);
    const base = checkBase(fn, options.base ?? 10000);
    const shape = [seqLen, dModel];
    const memory = new MemoryPlan(fn);
    if (seqLen > 0) memory.tensor('encoding', shape);
    return { base, shape, memory };
  }

  /** PE[p, 2i] = sin(p / base^(2i/dModel)), PE[p, 2i+1] = cos(...): [seqLen, dModel]. */
  function sinusoidalEncoding(seqLen, dModel, options = {}) {
    const fn = 'sinusoidalEncoding';
    const { base, shape, memory } = planSinusoidal(seqLen, dModel, options);
    if (seqLen === 0) return { data: new Float32Array(0), shape };
    checkBudget(module, memory);
    return run(fn, (heap) => {
      const out = heap.alloc(seqLen * dModel);
      module._sinusoidal(seqLen, dModel, base, out);
      return { data: heap.read(out, seqLen * dModel), shape };
    });
  }

  /** Learned (or any) table: x [..., L, d] + table[offset .. offset + L) ([maxLen, d]). */
  function addPositionalEncoding(xIn, tableIn, options = {}) {
    const fn = 'addPositionalEncoding';
    const x = toTensor(fn, 'x', xIn);
    const table = toTensor(fn, 'table', tableIn);
    checkKeys(fn, 'option', options, ['offset']);
    const offset = nonNegativeInteger(fn, 'options.offset', options.offset ?? 0);
    if (x.shape.length < 2) throw rangeError(fn, `x must have shape [..., L, d], got ${formatShape(x.shape)}`);
    if (table.shape.length !== 2)
      throw rangeError(fn, `table must have shape [maxLen, d], got ${formatShape(table.shape)}`);
    const [L, d] = x.shape.slice(-2);
    if (table.shape[1] !== d) throw rangeError(fn, `table has ${table.shape[1]} columns but x has ${d}`);
    if (table.shape[0] < offset + L)
      throw rangeError(
        fn,
        `table has ${table.shape[0]} positions but x needs ${offset + L} (offset ${offset} + L ${L})`,
      );
    const count = intact(fn, x.data);
    intact(fn, table.data);
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = x.data[i] + table.data[offset * d + (i % (L * d))];
    return { data: out, shape: x.shape };
  }

  /**
   * Rotary embedding of x [..., L, dim] (dim even). positions: [L] (default 0 .. L-1).
   * interleaved false: pairs (i, i + dim/2) ("rotate_half"); true: pairs (2i, 2i+1).
   * With options.cos and options.sin: ONNX RotaryEmbedding from the caller's tables
   * (planRopeTables).
   */
  function planRope(xIn, options = {}) {
    const fn = 'applyRope';
    const x = toTensor(fn, 'x', xIn);
    checkKeys(
      fn,
      'option',
      options,
      ['positions', 'base', 'interleaved', 'cos', 'sin', 'rotaryDim', 'numHeads'],
      ['interleaved'],
    );
    // Each option read once.
    const o = { ...options };
    if (o.cos !== undefined || o.sin !== undefined) return planRopeTables(x, o);
    for (const key of ['rotaryDim', 'numHeads']) {
      if (o[key] !== undefined)
        throw typeError(
          fn,
          `options.${key} needs options.cos and options.sin (the computed tables rotate every feature of x [..., L, dim])`,
        );
    }
    if (x.shape.length < 2) throw rangeError(fn, `x must have shape [..., L, dim], got ${formatShape(x.shape)}`);
    const [L, dim] = x.shape.slice(-2);
    if (dim % 2 !== 0) throw rangeError(fn, `x has ${dim} features; RoPE rotates pairs, so dim must be even`);
    const base = checkBase(fn, o.base ?? 10000);
    let positions = null;
    const pos = o.positions;
    if (pos !== undefined) {
      if (!Array.isArray(pos) && !ArrayBuffer.isView(pos))
        throw typeError(fn, `options.positions must be an array of numbers, got ${describe(pos)}`);
      const count = pos.length; // read once; each entry too, by index
      if (count !== L) throw rangeError(fn, `options.positions has ${show(count)} entries but x has L = ${L}`);
      positions = new Float32Array(L);
      for (let i = 0; i < L; i++) {
        const value = pos[i];
        if (typeof value !== 'number' || !Number.isFinite(value))
          throw rangeError(fn, `options.positions[${i}] must be a finite number, got ${show(value)}`);
        positions[i] = value;
      }
    }
    const rows = sizeOf(x.shape.slice(0, -1));
    const memory = new MemoryPlan(fn);
    if (rows > 0 && dim > 0) memory.tensor('x', x.shape).tensor('positions per row', [rows]);
    return { x, L, dim, base, positions, rows, memory, interleaved: o.interleaved === true };
  }

  /**
   * ONNX RotaryEmbedding (opset 23): x [batch, heads, L, headDim], or [batch, L, hidden] with
   * numHeads; cos/sin [maxPosition, rotaryDim/2] with positions [batch, L], or
   * [batch, L, rotaryDim/2] without; the first rotaryDim features of each head rotate.
   */
  function planRopeTables(x, o) {
    const fn = 'applyRope';
    if (o.cos === undefined || o.sin === undefined)
      throw typeError(
        fn,
        `options.${o.cos === undefined ? 'cos' : 'sin'} is required with options.${o.cos === undefined ? 'sin' : 'cos'}`,
      );
    if (o.base !== undefined)
      throw typeError(fn, 'options.base computes the tables; it cannot be used with options.cos and options.sin');
    const rank = x.shape.length;
    if (rank !== 3 && rank !== 4)
      throw rangeError(
        fn,
        `x must have shape [batch, heads, L, headDim] or [batch, L, hidden] (with options.numHeads), got ${formatShape(x.shape)}`,
      );
    let batch, numHeads, L, headDim;
    if (rank === 4) {
      [batch, numHeads, L, headDim] = x.shape;
      if (o.numHeads !== undefined && positiveInteger(fn, 'options.numHeads', o.numHeads) !== numHeads) {
        throw rangeError(fn, `options.numHeads is ${o.numHeads} but x ${formatShape(x.shape)} has ${numHeads} heads`);
      }
    } else {
      if (o.numHeads === undefined)
        throw typeError(
          fn,
          `options.numHeads is required for a 3-D x [batch, L, hidden] (got ${formatShape(x.shape)})`,
        );
      numHeads = positiveInteger(fn, 'options.numHeads', o.numHeads);
      const hidden = x.shape[2];
      [batch, L] = x.shape;
      if (hidden % numHeads !== 0)
        throw rangeError(
          fn,
          `x has hidden size ${hidden}, which does not divide into options.numHeads = ${numHeads} heads`,
        );
      headDim = hidden / numHeads;
    }
    // ONNX's rotary_embedding_dim: 0 (its default) means the whole head.
    let rotaryDim = o.rotaryDim === undefined ? 0 : nonNegativeInteger(fn, 'options.rotaryDim', o.rotaryDim);
    if (rotaryDim === 0) rotaryDim = headDim;
    if (rotaryDim > headDim)
      throw rangeError(fn, `options.rotaryDim is ${rotaryDim} but the heads have ${headDim} features`);
    if (rotaryDim % 2 !== 0)
      throw rangeError(
        fn,
        `${o.rotaryDim === undefined ? 'the heads have' : 'options.rotaryDim is'} ${rotaryDim}${o.rotaryDim === undefined ? ' features' : ''}; RoPE rotates pairs, so the rotary dim must be even`,
      );
    const half = rotaryDim / 2;
    const cos = toTensor(fn, 'options.cos', o.cos);
    const sin = toTensor(fn, 'options.sin', o.sin);
    if (formatShape(cos.shape) !== formatShape(sin.shape))
      throw rangeError(
        fn,
        `options.cos has shape ${formatShape(cos.shape)} but options.sin ${formatShape(sin.shape)}; they must match`,
      );
    let positions = null,
      tableRows;
    if (o.positions !== undefined) {
      if (cos.shape.length !== 2)
        throw rangeError(
          fn,
          `options.cos must have shape [maxPosition, rotaryDim/2] with options.positions, got ${formatShape(cos.shape)}`,
        );
      tableRows = cos.shape[0];
      const ids = toIndexTensor(fn, 'options.positions', o.positions);
      if (formatShape(ids.shape) !== formatShape([batch, L]))
        throw rangeError(
          fn,
          `options.positions has shape ${formatShape(ids.shape)} but must be [batch, L] = ${formatShape([batch, L])}`,
        );
      positions = new Int32Array(ids.data.length);
      ids.data.forEach((p, i) => {
        if (!Number.isInteger(p) || p < 0 || p >= tableRows)
          throw rangeError(
            fn,
            `options.positions[${Math.floor(i / L)}][${i % L}] is ${p}; positions are integers in [0, ${tableRows}) (the rows of options.cos)`,
          );
        positions[i] = p;
      });
    } else {
      if (cos.shape.length !== 3 || cos.shape[0] !== batch || cos.shape[1] !== L) {
        throw rangeError(
          fn,
          `options.cos must have shape [batch, L, rotaryDim/2] = [${batch}, ${L}, ${half}] without options.positions (or [maxPosition, ${half}] with them), got ${formatShape(cos.shape)}`,
        );
      }
      tableRows = batch * L;
    }
    if (cos.shape.at(-1) !== half)
      throw rangeError(
        fn,
        `options.cos has ${cos.shape.at(-1)} columns but rotaryDim/2 is ${half} (rotaryDim ${rotaryDim})`,
      );
    const count = sizeOf(x.shape);
    const memory = new MemoryPlan(fn);
    if (count > 0) {
      memory.tensor('x', x.shape).tensor('options.cos', cos.shape).tensor('options.sin', sin.shape);
      if (positions) memory.tensor('options.positions', [batch, L]);
    }
    return {
      tables: true,
      x,
      batch,
      numHeads,
      L,
      headDim,
      rotaryDim,
      cos,
      sin,
      positions,
      tableRows,
      count,
      memory,
      interleaved: o.interleaved === true,
    };
  }

  function applyRope(xIn, options = {}) {
    const fn = 'applyRope';
    const plan = planRope(xIn, options);
    if (plan.tables) return applyRopeTables(plan);
    const { x, L, dim, base, positions, rows, memory, interleaved } = plan;
    if (rows === 0 || dim === 0) return { data: new Float32Array(sizeOf(x.shape)), shape: x.shape };
    checkBudget(module, memory);
    const perRow = new Float32Array(rows);
    for (let r = 0; r < rows; r++) perRow[r] = positions ? positions[r % L] : r % L;
    return run(fn, (heap) => {
      const xAddress = heap.floats(x.data);
      module._rope(xAddress, rows, dim, heap.floats(perRow), base, interleaved, xAddress);
      return { data: heap.read(xAddress, sizeOf(x.shape)), shape: x.shape };
    });
  }

  function applyRopeTables({
    x,
    batch,
    numHeads,
    L,
    headDim,
    rotaryDim,
    cos,
    sin,
    positions,
    tableRows,
    count,
    memory,
    interleaved,
  }) {
    const fn = 'applyRope';
    if (count === 0) return { data: new Float32Array(0), shape: x.shape };
    checkBudget(module, memory);
    return run(fn, (heap) => {
      const xAddress = heap.floats(x.data);
      const status = module._ropeTables(
        xAddress,
        batch,
        numHeads,
        L,
        headDim,
        x.shape.length === 4,
        heap.floats(cos.data),
        heap.floats(sin.data),
        tableRows,
        positions ? heap.ints(positions) : 0,
        rotaryDim,
        interleaved,
        xAddress,
      );
      if (status !== 0) throw rangeError(fn, `the core rejected the call: ${module._statusMessage(status)}`);
      return { data: heap.read(xAddress, count), shape: x.shape };
    });
  }

  /** ALiBi head slopes, exactly the reference get_slopes(numHeads). */
  function planSlopes(numHeads) {
    positiveInteger('alibiSlopes', 'numHeads', numHeads);
    return { memory: new MemoryPlan('alibiSlopes').tensor('slopes (float64)', [numHeads], 8) };
  }

  function alibiSlopes(numHeads) {
    checkBudget(module, planSlopes(numHeads).memory);
    return module._alibiSlopes(numHeads);
  }

  /** bias[h, i, j] = -slope_h · |(i + Lk - Lq) - j|, an additive mask: [numHeads, Lq, Lk]. */
  function planAlibiBias(numHeads, seqQ, seqK = seqQ) {
    const fn = 'alibiBias';
    positiveInteger(fn, 'numHeads', numHeads);
    nonNegativeInteger(fn, 'seqQ', seqQ);
    nonNegativeInteger(fn, 'seqK', seqK);
    const shape = [numHeads, seqQ, seqK];
    return { shape, count: sizeOf(shape), memory: new MemoryPlan(fn).tensor('bias', shape) };
  }

  function alibiBias(numHeads, seqQ, seqK = seqQ) {
    const fn = 'alibiBias';
    const { shape, count, memory } = planAlibiBias(numHeads, seqQ, seqK);
    if (count === 0) return { data: new Float32Array(0), shape };
    checkBudget(module, memory);
    return run(fn, (heap) => {
      const out = heap.alloc(count);
      module._alibiBias(numHeads, seqQ, seqK, out);
      return { data: heap.read(out, count), shape };
    });
  }

  /**
   * Eigenvectors of the symmetric normalised graph Laplacian after the trivial one:
   * a tensor [numNodes, k] with `eigenvalues` (ascending). Sign: each column's entry of
   * largest magnitude is positive.
   */
  function planLaplacian(graph, k) {
    const fn = 'laplacianEncoding';
    if (graph === null || typeof graph !== 'object')
      throw typeError(fn, `graph must be { numNodes, edges }, got ${describe(graph)}`);
    checkKeys(fn, 'graph field', graph, ['numNodes', 'edges']);
    const n = positiveInteger(fn, 'graph.numNodes', graph.numNodes);
    nonNegativeInteger(fn, 'k', k);
    if (k > n - 1)
      throw rangeError(fn, `k is ${k} but a graph of ${n} nodes has only ${n - 1} non-trivial eigenvectors`);
    const edges = graph.edges ?? [];
    if (!Array.isArray(edges))
      throw typeError(fn, `graph.edges must be an array of [a, b] pairs, got ${describe(edges)}`);
    // By index, each entry read once (a hole is no edge; a Proxy may not change its answer).
    const count = edges.length;
    if (!Number.isInteger(count) || count < 0 || count > 2 ** 28)
      throw rangeError(fn, `graph.edges has length ${show(count)}; an array length is needed`);
    const flat = new Int32Array(count * 2);
    for (let e = 0; e < count; e++) {
      const edge = edges[e];
      if (!Array.isArray(edge) || edge.length !== 2)
        throw typeError(fn, `graph.edges[${e}] must be a pair [a, b], got ${describe(edge)}`);
      for (let s = 0; s < 2; s++) {
        const node = edge[s];
        if (!Number.isInteger(node) || node < 0 || node >= n)
          throw rangeError(fn, `graph.edges[${e}][${s}] is ${show(node)}; nodes are integers in [0, ${n - 1}]`);
        flat[2 * e + s] = node;
      }
    }
    const shape = [n, k];
    const memory = new MemoryPlan(fn);
    if (k > 0) {
      memory
        .tensor('edges', [count, 2])
        .tensor('eigenvectors', shape)
        .tensor('eigenvalues', [k])
        .scratch(`Laplacian [${n}, ${n}] (float64) and eigensolver`, () => module._laplacianScratch(n));
    }
    return { n, k, flat, count, shape, memory };
  }

  function laplacianEncoding(graph, kIn) {
    const fn = 'laplacianEncoding';
    const { n, k, flat, count, shape, memory } = planLaplacian(graph, kIn);
    if (k === 0) return { data: new Float32Array(0), shape, eigenvalues: new Float32Array(0) };
    checkBudget(module, memory);
    return run(fn, (heap) => {
      const vectors = heap.alloc(n * k);
      const values = heap.alloc(k);
      const status = module._laplacian(n, heap.ints(flat), count, k, vectors, values);
      if (status !== 0) throw rangeError(fn, `the core rejected the call: ${module._statusMessage(status)}`);
      return { data: heap.read(vectors, n * k), shape, eigenvalues: heap.read(values, k) };
    });
  }

  const estimates = {
    sinusoidalEncoding: (...args) => planSinusoidal(...args).memory,
    addPositionalEncoding: (...args) => {
      addPositionalEncoding(...args); // runs in JS (no wasm memory); checks the arguments
      return new MemoryPlan('addPositionalEncoding');
    },
    applyRope: (...args) => planRope(...args).memory,
    alibiSlopes: (...args) => planSlopes(...args).memory,
    alibiBias: (...args) => planAlibiBias(...args).memory,
    laplacianEncoding: (...args) => planLaplacian(...args).memory,
  };
  return { sinusoidalEncoding, addPositionalEncoding, applyRope, alibiSlopes, alibiBias, laplacianEncoding, estimates };
}
