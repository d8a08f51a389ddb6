// MultiHeadAttention: Concat(head_1 .. head_h)·W_O, head_i = Attention(Q·W_i^Q, K·W_i^K, V·W_i^V),
// with weights in wasm memory. Row-vector convention: W_Q is [dModel, dModel] and Q = X·W_Q.
import { typeError, rangeError, describe } from './errors.js';
import { toTensor, formatShape, sizeOf } from './tensor.js';
import { checkOut, readOutput } from './out.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget } from './memory.js';
import { Parameters, seededRandom } from './parameters.js';
import { planMask, planMaskMemory, maskOffsets, writeMask, checkKeyLengths } from './masks.js';
import { positiveInteger, checkKeys, causalOffset, checkWindow } from './checks.js';

/** Checks the multi-head configuration shared by MultiHeadAttention and the encoder layer. */
export function checkHeadConfig(fn, config) {
  const dModel = positiveInteger(fn, 'dModel', config.dModel);
  const numHeads = positiveInteger(fn, 'numHeads', config.numHeads);
  if (dModel % numHeads !== 0) throw rangeError(fn, `dModel (${dModel}) must be divisible by numHeads (${numHeads})`);
  const numKvHeads = positiveInteger(fn, 'numKvHeads', config.numKvHeads ?? numHeads);
  if (numHeads % numKvHeads !== 0)
    throw rangeError(fn, `numHeads (${numHeads}) must be divisible by numKvHeads (${numKvHeads})`);
  const kDim = positiveInteger(fn, 'kDim', config.kDim ?? dModel);
  const vDim = positiveInteger(fn, 'vDim', config.vDim ?? dModel);
  if (config.bias !== undefined && typeof config.bias !== 'boolean')
    throw typeError(fn, `bias must be a boolean, got ${describe(config.bias)}`);
  const seed = config.seed ?? 0;
  if (typeof seed !== 'number' || !Number.isInteger(seed))
    throw typeError(fn, `seed must be an integer, got ${describe(seed)}`);
  const headDim = dModel / numHeads;
  return {
    dModel,
    numHeads,
    numKvHeads,
    kDim,
    vDim,
    headDim,
    kvWidth: numKvHeads * headDim,
    bias: config.bias ?? true,
    seed,
  };
}

/** Weight shapes of multi-head attention (biases only with `bias`). */
export function headWeightShapes(c) {
  const shapes = {
    wq: [c.dModel, c.dModel],
    wk: [c.kDim, c.kvWidth],
    wv: [c.vDim, c.kvWidth],
    wo: [c.dModel, c.dModel],
  };
  if (c.bias) Object.assign(shapes, { bq: [c.dModel], bk: [c.kvWidth], bv: [c.kvWidth], bo: [c.dModel] });
  return shapes;
}

/** Seeded Xavier-uniform weights and zero biases (PyTorch's MultiheadAttention default). */
export function initHeadWeights(params, c, random) {
  for (const name of ['wq', 'wk', 'wv', 'wo']) params.xavier(name, random);
  if (c.bias) for (const name of ['bq', 'bk', 'bv', 'bo']) params.fill(name, 0);
}

/**
 * Checks the inputs and options of a multi-head forward pass; touches no wasm memory.
 * query: [B?, Lq, dModel]  key: [B?, Lk, kDim]  value: [B?, Lk, vDim]
 */
export function planHeads(
  fn,
  c,
  queryIn,
  keyIn,
  valueIn,
  options,
  names = { query: 'query', key: 'key', value: 'value' },
) {
  const query = toTensor(fn, names.query, queryIn);
  const key = keyIn === queryIn ? query : toTensor(fn, names.key, keyIn);
  const value = valueIn === keyIn ? key : toTensor(fn, names.value, valueIn);
  const rank = query.shape.length;
  if (rank !== 2 && rank !== 3)
    throw rangeError(fn, `${names.query} must have shape [B?, L, ${c.dModel}], got ${formatShape(query.shape)}`);
  const check = (name, t, width, len) => {
    if (t.shape.length !== rank)
      throw rangeError(
        fn,
        `${name} ${formatShape(t.shape)} must have as many dims as ${names.query} ${formatShape(query.shape)}`,
      );
    if (t.shape.at(-1) !== width)
      throw rangeError(fn, `${name} has ${t.shape.at(-1)} features but this layer expects ${width}`);
    if (rank === 3 && t.shape[0] !== query.shape[0])
      throw rangeError(fn, `${name} has batch ${t.shape[0]} but ${names.query} has ${query.shape[0]}`);
    if (len !== undefined && t.shape.at(-2) !== len)
      throw rangeError(fn, `${name} has ${t.shape.at(-2)} rows but ${names.key} has ${len} (one value per key)`);
  };
  check(names.query, query, c.dModel);
  check(names.key, key, c.kDim);
  check(names.value, value, c.vDim, key.shape.at(-2));
  const batched = rank === 3;
  const B = batched ? query.shape[0] : 1;
  const seqQ = query.shape.at(-2),
    seqK = key.shape.at(-2);
  const weightBatch = batched ? [B, c.numHeads] : [c.numHeads];
  const maskPlan = planMask(fn, options.mask, weightBatch, seqQ, seqK);
  const keyLengths = checkKeyLengths(fn, options.keyLengths, batched ? [B] : [], seqK);
  return {
    query,
    key,
    value,
    batched,
    B,
    seqQ,
    seqK,
    weightBatch,
    maskPlan,
    keyLengths,
    causal: options.causal === true,
    causalOffset: causalOffset(fn, options.causalAlign, seqQ, seqK),
    window: checkWindow(fn, options.window),
  };
}

/** Adds what headCall copies in (inputs once each, mask, its offsets, key lengths) to `memory`. */
export function headMemory(memory, c, p) {
  const seen = new Set();
  for (const [name, t] of [
    ['query', p.query],
    ['key', p.key],
    ['value', p.value],
  ]) {
    if (!seen.has(t.data)) memory.tensor(name, t.shape);
    seen.add(t.data);
  }
  planMaskMemory(memory, p.maskPlan);
  if (p.maskPlan) memory.tensor('mask offsets', [p.B, c.numHeads]);
  if (p.keyLengths) memory.tensor('key lengths', [p.B]);
  return memory;
}

/**
 * A MultiHeadCall with sizes only, for the core's scratch estimate: `given` names the
 * optional outputs the caller supplies (qProj, kProj, vProj, concat, attentionWeights).
 */
export function headScratchCall(c, p, given = []) {
  const call = {
    query: 0,
    key: 0,
    value: 0,
    batch: p.B,
    seqQ: p.seqQ,
    seqK: p.seqK,
    dModel: c.dModel,
    kDim: c.kDim,
    vDim: c.vDim,
    numHeads: c.numHeads,
    numKvHeads: c.numKvHeads,
    wq: 0,
    wk: 0,
    wv: 0,
    wo: 0,
    bq: 0,
    bk: 0,
    bv: 0,
    bo: 0,
    wqPanels: 1,
    wkPanels: 1,
    wvPanels: 1,
    woPanels: 1, // the layers keep their matrices as panels
    mask: 0,
    allowed: 0,
    maskOffsets: 0,
    keyLengths: 0,
    maskRowStride: 0,
    causal: false,
    causalOffset: 0,
    windowLeft: -1,
    windowRight: -1,
    out: 0,
    qProj: 0,
    kProj: 0,
    vProj: 0,
    concat: 0,
    attentionWeights: 0,
  };
  for (const name of given) call[name] = 1; // non-null: supplied by the caller
  return call;
}

/** Fills the heap side of a MultiHeadCall (inputs, mask, key lengths, weights). */
export function headCall(heap, params, c, p) {
  const [query, key, value] = heap.floatsOnce([p.query.data, p.key.data, p.value.data]);
  return {
    query,
    key,
    value,
    batch: p.B,
    seqQ: p.seqQ,
    seqK: p.seqK,
    dModel: c.dModel,
    kDim: c.kDim,
    vDim: c.vDim,
    numHeads: c.numHeads,
    numKvHeads: c.numKvHeads,
    wq: params.address('wq'),
    wk: params.address('wk'),
    wv: params.address('wv'),
    wo: params.address('wo'),
    wqPanels: params.panelsAddress('wq'),
    wkPanels: params.panelsAddress('wk'),
    wvPanels: params.panelsAddress('wv'),
    woPanels: params.panelsAddress('wo'),
    bq: params.address('bq'),
    bk: params.address('bk'),
    bv: params.address('bv'),
    bo: params.address('bo'),
    ...(p.maskPlan ? writeMask(heap, p.maskPlan, p.seqK) : { mask: 0, allowed: 0 }),
    maskOffsets: p.maskPlan ? heap.ints(maskOffsets(p.maskPlan, p.weightBatch)) : 0, // the mask's own batch axes
    maskRowStride: p.maskPlan ? p.maskPlan.rowStride : 0,
    keyLengths: p.keyLengths ? heap.ints(p.keyLengths) : 0,
    causal: p.causal,
    causalOffset: p.causalOffset,
    windowLeft: p.window.left,
    windowRight: p.window.right,
    out: 0,
    qProj: 0,
    kProj: 0,
    vProj: 0,
    concat: 0,
    attentionWeights: 0,
  };
}

// [B, L, heads·hd] → [B, heads, L, hd]
function splitHeads(data, B, L, heads, hd) {
  const out = new Float32Array(data.length);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < heads; h++)
      for (let i = 0; i < L; i++) {
        const src = (b * L + i) * heads * hd + h * hd;
        out.set(data.subarray(src, src + hd), ((b * heads + h) * L + i) * hd);
      }
  return out;
}

// [B, H, Lq, Lk] → mean over H → [B, Lq, Lk]
function averageHeads(data, B, H, block) {
  const out = new Float32Array(B * block);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++) {
      const src = data.subarray((b * H + h) * block, (b * H + h + 1) * block);
      for (let i = 0; i < block; i++) out[b * block + i] += src[i] / H;
    }
  return out;
}

const FORWARD_OPTIONS = [
  'mask',
  'causal',
  'causalAlign',
  'window',
  'keyLengths',
  'returnWeights',
  'averageWeights',
  'trace',
  'out',
];
const FORWARD_BOOLEANS = ['causal', 'returnWeights', 'averageWeights', 'trace'];
const CONFIG_KEYS = ['dModel', 'numHeads', 'kDim', 'vDim', 'bias', 'seed', 'numKvHeads'];

/** The projection matrices a layer stores as MatMul's panels (see parameters.js). */
export const PACKED_HEAD_WEIGHTS = ['wq', 'wk', 'wv', 'wo'];

/** Checks a MultiHeadAttention config; returns it with its weights' memory plan. */
export function planMultiHeadConfig(config) {
  const fn = 'MultiHeadAttention';
  checkKeys(fn, 'config', config ?? {}, CONFIG_KEYS);
  const c = checkHeadConfig(fn, config ?? {});
  return { c, shapes: headWeightShapes(c), memory: Parameters.plan(fn, headWeightShapes(c), PACKED_HEAD_WEIGHTS) };
}

/** Checks a forward pass of a layer with config `c`; returns the plan and its memory. */
export function planForward(module, c, query, key, value, options) {
  const fn = 'MultiHeadAttention.forward';
  checkKeys(fn, 'option', options, FORWARD_OPTIONS, FORWARD_BOOLEANS);
  const p = planHeads(fn, c, query, key, value, options);
  p.trace = options.trace === true;
  p.wantWeights = p.trace || options.returnWeights === true || options.averageWeights === true;
  const lead = p.batched ? [p.B] : [];
  p.outShape = [...lead, p.seqQ, c.dModel];
  p.out = checkOut(fn, options.out, p.outShape);
  p.memory = new MemoryPlan(fn);
  if (p.B === 0 || p.seqQ === 0) return p;
  headMemory(p.memory, c, p).tensor('output', p.outShape);
  const given = [];
  if (p.wantWeights) (p.memory.tensor('weights', [p.B, c.numHeads, p.seqQ, p.seqK]), given.push('attentionWeights'));
  if (p.trace) {
    p.memory
      .tensor('projected queries', [p.B, p.seqQ, c.dModel])
      .tensor('projected keys', [p.B, p.seqK, c.kvWidth])
      .tensor('projected values', [p.B, p.seqK, c.kvWidth])
      .tensor('concatenated heads', [p.B, p.seqQ, c.dModel]);
    given.push('qProj', 'kProj', 'vProj', 'concat');
  }
  p.memory.scratch('projections and kernel workspace', () => module._multiHeadScratch(headScratchCall(c, p, given)));
  return p;
}

// The config of a MultiHeadAttention, or null for anything else (a brand check that no
// caller-made object passes, for estimateMemory).
let configOf;

export class MultiHeadAttention {
  #module;
  #config;
  #params;

  static {
    configOf = (x) => (x !== null && typeof x === 'object' && #config in x ? x.#config : null);
  }

  /**
   * @param {object} module the Emscripten module (bound by init)
   * @param {{ dModel: number, numHeads: number, kDim?: number, vDim?: number, bias?: boolean, seed?: number, numKvHeads?: number }} config
   */
  constructor(module, config) {
    const fn = 'MultiHeadAttention';
    const { c, shapes } = planMultiHeadConfig(config);
    this.#module = module;
    this.#config = c;
    Object.assign(this, {
      dModel: c.dModel,
      numHeads: c.numHeads,
      numKvHeads: c.numKvHeads,
      headDim: c.headDim,
      kDim: c.kDim,
      vDim: c.vDim,
    });
    this.#params = new Parameters(module, fn, shapes, PACKED_HEAD_WEIGHTS);
    initHeadWeights(this.#params, c, seededRandom(c.seed));
  }

  /** Replaces any of { wq, wk, wv, wo, bq, bk, bv, bo }; shapes are checked first. */
  setWeights(weights) {
    receiver(this, 'setWeights');
    checkKeys('MultiHeadAttention.setWeights', 'weights', weights, Object.keys(this.#params.shapes));
    this.#params.set('setWeights', weights);
  }

  /** Copies the weights out: { wq, wk, wv, wo, bq?, bk?, bv?, bo? }. */
  getWeights() {
    receiver(this, 'getWeights');
    return this.#params.get('getWeights');
  }

  /**
   * query: [B?, Lq, dModel], key: [B?, Lk, kDim], value: [B?, Lk, vDim] → output [B?, Lq, dModel].
   */
  forward(query, key = query, value = key, options = {}) {
    const fn = 'MultiHeadAttention.forward';
    receiver(this, 'forward');
    this.#params.check('forward');
    const c = this.#config;
    const module = this.#module;
    const p = planForward(module, c, query, key, value, options);
    this.#params.check('forward', true); // the caller's getters have run
    const { trace, wantWeights, outShape } = p;
    const lead = p.batched ? [p.B] : [];
    if (p.B === 0 || p.seqQ === 0) return { output: { data: p.out ?? new Float32Array(0), shape: outShape } };
    checkBudget(module, p.memory);
    const heap = new HeapScope(module, fn);
    try {
      const call = headCall(heap, this.#params, c, p);
      const weightCount = p.B * c.numHeads * p.seqQ * p.seqK;
      call.out = heap.alloc(sizeOf(outShape));
      if (wantWeights) call.attentionWeights = heap.alloc(weightCount);
      if (trace) {
        call.qProj = heap.alloc(p.B * p.seqQ * c.dModel);
        call.kProj = heap.alloc(p.B * p.seqK * c.kvWidth);
        call.vProj = heap.alloc(p.B * p.seqK * c.kvWidth);
        call.concat = heap.alloc(p.B * p.seqQ * c.dModel);
      }
      const status = module._multiHead(call);
      if (status !== 0) throw rangeError(fn, `the core rejected the call: ${module._statusMessage(status)}`);
      const result = { output: { data: readOutput(heap, call.out, sizeOf(outShape), p.out), shape: outShape } };
      if (wantWeights) {
        const all = heap.read(call.attentionWeights, weightCount);
        result.weights = options.averageWeights
          ? { data: averageHeads(all, p.B, c.numHeads, p.seqQ * p.seqK), shape: [...lead, p.seqQ, p.seqK] }
          : { data: all, shape: [...lead, c.numHeads, p.seqQ, p.seqK] };
        if (trace) {
          const heads = (address, L, H) => ({
            data: splitHeads(heap.read(address, p.B * L * H * c.headDim), p.B, L, H, c.headDim),
            shape: [...lead, H, L, c.headDim],
          });
          result.trace = {
            q: heads(call.qProj, p.seqQ, c.numHeads),
            k: heads(call.kProj, p.seqK, c.numKvHeads),
            v: heads(call.vProj, p.seqK, c.numKvHeads),
            weights: { data: all, shape: [...lead, c.numHeads, p.seqQ, p.seqK] },
            concat: { data: heap.read(call.concat, p.B * p.seqQ * c.dModel), shape: outShape.slice() },
            output: result.output,
          };
        }
      }
      return result;
    } finally {
      heap.release();
    }
  }

  /** Frees the weights' wasm memory; the object cannot be used afterwards. */
  dispose() {
    receiver(this, 'dispose');
    this.#params.dispose();
  }
}

// A method called on something that is not a MultiHeadAttention (method.call(other)).
function receiver(self, method) {
  if (configOf(self) === null) {
    throw typeError(`MultiHeadAttention.${method}`, `called on ${describe(self)}, which is not a MultiHeadAttention`);
  }
}

export { configOf as multiHeadConfigOf };
