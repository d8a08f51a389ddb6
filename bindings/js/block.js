// The transformer block around attention: feedForward, setPool, and TransformerEncoderLayer
// (attention + FFN, each with a residual and a layer norm). layerNorm is in normalization.js.
import { typeError, rangeError, describe } from './errors.js';
import { toTensor, formatShape, sizeOf, zeros, checkResultSize, intact } from './tensor.js';
import { checkOut, readOutput } from './out.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget, heapMaxBytes } from './memory.js';
import { Parameters, seededRandom } from './parameters.js';
import {
  checkHeadConfig,
  headWeightShapes,
  initHeadWeights,
  planHeads,
  headCall,
  headMemory,
  headScratchCall,
  PACKED_HEAD_WEIGHTS,
} from './multi_head.js';
import { checkKeys, positiveInteger } from './checks.js';
import { contractOf } from './contract.js';

// The FFN activations these layers offer → the core's (src/kernels/activations.h Activation).
export const ACTIVATIONS = { relu: 'kRelu', gelu: 'kGelu' };
const POOLS = { sum: 0, mean: 1, max: 2 };

// The core's code of `activation` in `module`.
export function checkActivation(fn, activation, module) {
  if (typeof activation !== 'string')
    throw typeError(fn, `activation must be 'relu' or 'gelu', got ${describe(activation)}`);
  if (!Object.hasOwn(ACTIVATIONS, activation))
    throw rangeError(fn, `activation must be 'relu' or 'gelu', got '${activation}'`);
  return contractOf(module).activations[ACTIVATIONS[activation]];
}

export function checkEps(fn, eps) {
  if (typeof eps !== 'number') throw typeError(fn, `eps must be a number, got ${describe(eps)}`);
  if (!(eps >= 0) || !Number.isFinite(eps)) throw rangeError(fn, `eps must be a finite number >= 0, got ${eps}`);
  return eps;
}

// An optional vector parameter of length n, or null.
export function optionalVector(fn, name, value, n) {
  if (value === undefined || value === null) return null;
  const t = toTensor(fn, name, value);
  if (t.shape.length !== 1 || t.shape[0] !== n)
    throw rangeError(fn, `${name} has shape ${formatShape(t.shape)} but must be [${n}]`);
  return t.data;
}

export function matrix(fn, name, value, rows, cols) {
  if (value === undefined) throw typeError(fn, `${name} is required`);
  const t = toTensor(fn, name, value);
  if (
    t.shape.length !== 2 ||
    (rows !== undefined && t.shape[0] !== rows) ||
    (cols !== undefined && t.shape[1] !== cols)
  ) {
    throw rangeError(fn, `${name} has shape ${formatShape(t.shape)} but must be [${rows ?? 'any'}, ${cols ?? 'any'}]`);
  }
  return t;
}

/** Binds the block functions and the encoder layer class to one module. */
export function makeBlock(module) {
  const run = (fn, body) => {
    const heap = new HeapScope(module, fn);
    try {
      return body(heap);
    } finally {
      heap.release();
    }
  };

  // feedForward's checks; touches no wasm memory.
  function planFeedForward(xIn, options) {
    const fn = 'feedForward';
    const x = toTensor(fn, 'x', xIn);
    checkKeys(fn, 'option', options, ['w1', 'b1', 'w2', 'b2', 'activation']);
    if (options === undefined) throw typeError(fn, 'options { w1, b1?, w2, b2?, activation? } are required');
    if (x.shape.length < 1) throw rangeError(fn, `x must have shape [..., dModel], got ${formatShape(x.shape)}`);
    const dModel = x.shape.at(-1);
    const w1 = matrix(fn, 'w1', options.w1, dModel);
    const dFF = w1.shape[1];
    const w2 = matrix(fn, 'w2', options.w2, dFF, dModel);
    const b1 = optionalVector(fn, 'b1', options.b1, dFF);
    const b2 = optionalVector(fn, 'b2', options.b2, dModel);
    const activation = checkActivation(fn, options.activation ?? 'relu', module);
    const rows = dModel === 0 ? 0 : sizeOf(x.shape) / dModel;
    const memory = new MemoryPlan(fn);
    const empty = rows === 0 || dFF === 0;
    if (!empty) {
      memory.tensor('x', x.shape).tensor('w1', w1.shape).tensor('w2', w2.shape);
      if (b1) memory.tensor('b1', [dFF]);
      if (b2) memory.tensor('b2', [dModel]);
      memory
        .tensor('output', x.shape)
        .scratch('hidden layer and packed weights', () => module._feedForwardScratch(rows, dModel, dFF));
    }
    return { x, w1, w2, b1, b2, dModel, dFF, activation, rows, empty, memory };
  }

  /** Position-wise FFN: act(x·w1 + b1)·w2 + b2, x [..., dModel], w1 [dModel, dFF], w2 [dFF, dModel]. */
  function feedForward(xIn, options) {
    const fn = 'feedForward';
    const { x, w1, w2, b1, b2, dModel, dFF, activation, rows, empty, memory } = planFeedForward(xIn, options);
    if (empty) {
      if (b2) intact(fn, b2);
      return { data: new Float32Array(sizeOf(x.shape)).map((_, i) => (b2 ? b2[i % dModel] : 0)), shape: x.shape };
    }
    checkBudget(module, memory);
    return run(fn, (heap) => {
      const out = heap.alloc(sizeOf(x.shape));
      const status = module._feedForward(
        heap.floats(x.data),
        rows,
        dModel,
        dFF,
        heap.floats(w1.data),
        b1 ? heap.floats(b1) : 0,
        heap.floats(w2.data),
        b2 ? heap.floats(b2) : 0,
        activation,
        out,
      );
      if (status !== 0) throw rangeError(fn, `the core rejected the call: ${module._statusMessage(status)}`);
      return { data: heap.read(out, sizeOf(x.shape)), shape: x.shape };
    });
  }

  // setPool's checks; touches no wasm memory.
  function planSetPool(xIn, op = 'sum') {
    const fn = 'setPool';
    const x = toTensor(fn, 'x', xIn);
    if (typeof op !== 'string') throw typeError(fn, `op must be 'sum', 'mean' or 'max', got ${describe(op)}`);
    if (!Object.hasOwn(POOLS, op)) throw rangeError(fn, `op must be 'sum', 'mean' or 'max', got '${op}'`);
    if (x.shape.length < 2) throw rangeError(fn, `x must have shape [..., n, d], got ${formatShape(x.shape)}`);
    const [n, d] = x.shape.slice(-2);
    const lead = x.shape.slice(0, -2);
    if (n === 0 && op !== 'sum') throw rangeError(fn, `the ${op} of an empty set is undefined (x has n = 0)`);
    const shape = [...lead, d];
    const sets = sizeOf(lead);
    const empty = sets === 0 || d === 0 || n === 0;
    const memory = new MemoryPlan(fn);
    if (!empty) memory.tensor('x', x.shape).tensor('output', shape);
    else checkResultSize(fn, 'output', shape, heapMaxBytes(module)); // zeros, made in JS
    return { x, op, n, d, shape, sets, empty, memory };
  }

  /** Deep Sets pooling over the set axis: x [..., n, d] → [..., d] with sum, mean or max. */
  function setPool(xIn, opIn = 'sum') {
    const fn = 'setPool';
    const { x, op, n, d, shape, sets, empty, memory } = planSetPool(xIn, opIn);
    if (empty) return zeros(fn, 'output', shape, heapMaxBytes(module));
    checkBudget(module, memory);
    return run(fn, (heap) => {
      const out = heap.alloc(sets * d);
      module._setPool(heap.floats(x.data), sets, n, d, POOLS[op], out);
      return { data: heap.read(out, sets * d), shape };
    });
  }

  const LAYER_CONFIG = ['dModel', 'numHeads', 'dFF', 'norm', 'activation', 'seed', 'bias', 'eps', 'numKvHeads'];
  const FORWARD_OPTIONS = ['mask', 'causal', 'causalAlign', 'window', 'keyLengths', 'out'];
  // The matrices the layer stores as MatMul's panels (see parameters.js).
  const PACKED_LAYER_WEIGHTS = [...PACKED_HEAD_WEIGHTS, 'w1', 'w2'];

  // Checks an encoder layer's config; returns it with its weights' shapes and memory.
  function planLayerConfig(config) {
    const fn = 'TransformerEncoderLayer';
    checkKeys(fn, 'config', config ?? {}, LAYER_CONFIG);
    const c = checkHeadConfig(fn, { ...config, kDim: undefined, vDim: undefined });
    c.dFF = positiveInteger(fn, 'dFF', config.dFF);
    c.norm = config.norm ?? 'post';
    if (c.norm !== 'pre' && c.norm !== 'post')
      throw rangeError(fn, `norm must be 'pre' or 'post', got ${describe(c.norm)}`);
    c.preNorm = c.norm === 'pre';
    c.activation = checkActivation(fn, config.activation ?? 'relu', module);
    c.eps = checkEps(fn, config.eps ?? 1e-5);
    const d = c.dModel;
    const shapes = {
      ...headWeightShapes(c),
      ln1Gamma: [d],
      ln1Beta: [d],
      ln2Gamma: [d],
      ln2Beta: [d],
      w1: [d, c.dFF],
      b1: [c.dFF],
      w2: [c.dFF, d],
      b2: [d],
    };
    return { c, shapes, memory: Parameters.plan(fn, shapes, PACKED_LAYER_WEIGHTS) };
  }

  // Checks a forward pass of a layer with config `c`; returns the plan and its memory.
  function planLayerForward(c, x, options) {
    const fn = 'TransformerEncoderLayer.forward';
    checkKeys(fn, 'option', options, FORWARD_OPTIONS, ['causal']);
    const p = planHeads(fn, c, x, x, x, options, { query: 'x', key: 'x', value: 'x' });
    p.out = checkOut(fn, options.out, p.query.shape);
    p.memory = new MemoryPlan(fn);
    if (p.B === 0 || p.seqQ === 0) return p;
    headMemory(p.memory, c, p)
      .tensor('output', p.query.shape)
      .scratch('sub-layer streams and kernel workspace', () =>
        module._encoderLayerScratch(headScratchCall(c, p), c.dFF, c.preNorm),
      );
    return p;
  }

  // The config of a TransformerEncoderLayer of this module, or null for anything else.
  let configOf;

  // A method called on something that is not a TransformerEncoderLayer (method.call(other)).
  const receiver = (self, method) => {
    if (configOf(self) === null) {
      throw typeError(
        `TransformerEncoderLayer.${method}`,
        `called on ${describe(self)}, which is not a TransformerEncoderLayer`,
      );
    }
  };

  class TransformerEncoderLayer {
    #config;
    #params;

    static {
      configOf = (x) => (x !== null && typeof x === 'object' && #config in x ? x.#config : null);
    }

    /**
     * @param {{ dModel: number, numHeads: number, dFF: number, norm?: 'pre' | 'post', activation?: 'relu' | 'gelu', seed?: number, bias?: boolean, eps?: number, numKvHeads?: number }} config
     */
    constructor(config) {
      const fn = 'TransformerEncoderLayer';
      const { c, shapes } = planLayerConfig(config);
      this.#config = c;
      Object.assign(this, { dModel: c.dModel, numHeads: c.numHeads, dFF: c.dFF, norm: c.norm });
      this.#params = new Parameters(module, fn, shapes, PACKED_LAYER_WEIGHTS);
      const random = seededRandom(c.seed);
      initHeadWeights(this.#params, c, random);
      this.#params.xavier('w1', random);
      this.#params.xavier('w2', random);
      for (const name of ['b1', 'b2', 'ln1Beta', 'ln2Beta']) this.#params.fill(name, 0);
      for (const name of ['ln1Gamma', 'ln2Gamma']) this.#params.fill(name, 1);
    }

    /** Replaces any weights: wq, wk, wv, wo, bq, bk, bv, bo, ln1Gamma, ln1Beta, ln2Gamma, ln2Beta, w1, b1, w2, b2. */
    setWeights(weights) {
      receiver(this, 'setWeights');
      checkKeys('TransformerEncoderLayer.setWeights', 'weights', weights, Object.keys(this.#params.shapes));
      this.#params.set('setWeights', weights);
    }

    getWeights() {
      receiver(this, 'getWeights');
      return this.#params.get('getWeights');
    }

    /** x: [B?, L, dModel] → [B?, L, dModel]. */
    forward(x, options = {}) {
      const fn = 'TransformerEncoderLayer.forward';
      receiver(this, 'forward');
      this.#params.check('forward');
      const c = this.#config;
      const p = planLayerForward(c, x, options);
      this.#params.check('forward', true); // the caller's getters have run
      const shape = p.query.shape;
      if (p.B === 0 || p.seqQ === 0) return { data: p.out ?? new Float32Array(0), shape };
      checkBudget(module, p.memory);
      return run(fn, (heap) => {
        const attention = headCall(heap, this.#params, c, p);
        const out = heap.alloc(sizeOf(p.query.shape));
        const a = (name) => this.#params.address(name);
        const status = module._encoderLayer({
          attention,
          preNorm: c.preNorm,
          eps: c.eps,
          ln1Gamma: a('ln1Gamma'),
          ln1Beta: a('ln1Beta'),
          ln2Gamma: a('ln2Gamma'),
          ln2Beta: a('ln2Beta'),
          dFF: c.dFF,
          w1: a('w1'),
          b1: a('b1'),
          w2: a('w2'),
          b2: a('b2'),
          activation: c.activation,
          out,
          w1Panels: this.#params.panelsAddress('w1'),
          w2Panels: this.#params.panelsAddress('w2'),
        });
        if (status !== 0) throw rangeError(fn, `the core rejected the call: ${module._statusMessage(status)}`);
        return { data: readOutput(heap, out, sizeOf(p.query.shape), p.out), shape };
      });
    }

    dispose() {
      receiver(this, 'dispose');
      this.#params.dispose();
    }
  }

  const estimates = {
    feedForward: (...args) => planFeedForward(...args).memory,
    setPool: (...args) => planSetPool(...args).memory,
    TransformerEncoderLayer: (config) => planLayerConfig(config).memory,
    'TransformerEncoderLayer.forward': (layerOrConfig, x, options = {}) => {
      const c = configOf(layerOrConfig) ?? planLayerConfig(layerOrConfig).c;
      return planLayerForward(c, x, options).memory;
    },
  };
  return { feedForward, setPool, TransformerEncoderLayer, estimates };
}
