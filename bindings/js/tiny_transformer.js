// TinyTransformer: a small transformer trained in wasm memory ("learning the matrices").
// One wasm call per forward, evaluation, gradient or train step (forward + backward +
// optimizer); parameters, gradients, AdamW's moments and the activations live in the heap.
// Shapes: B sequences of L tokens; T = L, or L + 1 with the [CLS] row of a classifier.
import { statusError } from './status.js';
import { typeError, rangeError, describe, show } from './errors.js';
import { views, HeapScope } from './heap.js';
import { contractOf } from './contract.js';
import { checkModelConfig, readBatch, readStepOptions } from './model_inputs.js';

/** getWeights()'s format tag, which setWeights checks. */
export const WEIGHTS_FORMAT = 'attention-wasm/tiny-transformer';
const FORMAT = WEIGHTS_FORMAT;
// What the training model's statuses mean here, by the status's C++ name (src/status.h; the
// numbers come from the module).

// Parameter names by kind and the Create flags come from the module (src/train/model_config.h
// ATTN_PARAM_KINDS, bindings/contract.h ATTN_TRAINING_FLAGS: contract.js paramKindNames,
// trainingFlags); block parameters get the prefix `layers.${l}.`.

// Frees a model's wasm memory if its JS object is collected without dispose().
const finalizer = new FinalizationRegistry(({ module, handle }) => module._modelDestroy(handle));

// Why the core refused a call with `status`, in this model's words.
const fail = (module, fn, status) =>
  statusError(fn, module, status, {
    words: { kBadKeyLength: 'a length is outside [1, L]', kBadHeadCount: 'dModel must divide into heads' },
  });

export class TinyTransformer {
  #module;
  #handle;
  #table; // [{ name, shape, offset, count, decays }]
  #token = {};

  /**
   * @param {object} module the Emscripten module
   * @param {object} config see checkModelConfig
   */
  constructor(module, config) {
    const c = checkModelConfig('TinyTransformer', config);
    const FLAGS = contractOf(module).trainingFlags;
    const flags =
      (c.norm === 'pre' ? FLAGS.preNorm : 0) |
      (c.causal ? FLAGS.causal : 0) |
      (c.head === 'classify' ? FLAGS.classify : 0) |
      (c.activation === 'relu' ? FLAGS.relu : 0) |
      (c.positional === 'learned' ? FLAGS.learned : 0);
    const handle = module._modelCreate(
      c.vocabSize,
      c.maxLen,
      c.dModel,
      c.numHeads,
      c.numLayers,
      c.dFF,
      flags,
      c.numClasses,
      c.seed,
    );
    if (handle <= 0)
      throw -handle === contractOf(module).status.kOutOfMemory
        ? rangeError('TinyTransformer', 'out of wasm memory for the parameters')
        : fail(module, 'TinyTransformer', -handle);
    this.#module = module;
    this.#handle = handle;
    this.#table = readTable(module, handle);
    this.config = c;
    this.parameterCount = module._modelParameterCount(handle);
    this.parameterShapes = Object.freeze(
      Object.fromEntries(this.#table.map((p) => [p.name, Object.freeze(p.shape.slice())])),
    );
    finalizer.register(this, { module, handle }, this.#token);
    Object.freeze(this);
  }

  // Throws if dispose() was called: on entry, and again once the caller's code (getters,
  // iterators) has run, just before wasm memory is touched (`during`).
  #check(method, during = false) {
    if (this.#handle === 0)
      throw new Error(
        `TinyTransformer.${method}: this model was disposed${during ? " during the call (by the caller's own code, e.g. a getter)" : ''}; create a new one`,
      );
  }

  /** The optimizer steps taken since creation or the last setWeights. */
  get step() {
    this.#check('step');
    return this.#module._modelStep(this.#handle);
  }

  // Copies a checked batch in, runs `call(addresses)` and frees the copies.
  #withBatch(fn, b, call) {
    const scope = new HeapScope(this.#module, fn);
    try {
      const tokens = scope.ints(b.tokens);
      const targets = b.targets ? scope.ints(b.targets) : 0;
      const lengths = b.lengths ? scope.ints(b.lengths) : 0;
      return call({ tokens, targets, lengths });
    } finally {
      scope.release();
    }
  }

  /**
   * The forward pass: logits [B, L, outputs] (token head) or [B, numClasses] (classify), and
   * each layer's attention weights [B, numHeads, T, T].
   */
  forward(tokens, options = {}) {
    const fn = 'TinyTransformer.forward';
    this.#check('forward');
    if (options === null || typeof options !== 'object')
      throw typeError(fn, `options must be an object, got ${describe(options)}`);
    const b = readBatch(
      fn,
      this.config,
      { tokens, ...(options.lengths !== undefined ? { lengths: options.lengths } : {}) },
      false,
    );
    for (const key of Object.keys(options))
      if (key !== 'lengths') throw typeError(fn, `unknown option '${key}' (known: lengths)`);
    this.#check('forward', true);
    const c = this.config;
    const T = b.L + (c.head === 'classify' ? 1 : 0);
    return this.#withBatch(fn, b, (a) => {
      const status = this.#module._modelForward(this.#handle, a.tokens, a.lengths, b.B, b.L);
      if (status !== 0) throw fail(this.#module, fn, status);
      const heap = views(this.#module).HEAPF32;
      const read = (address, count) => heap.slice(address >>> 2, (address >>> 2) + count);
      const logitShape = c.head === 'classify' ? [b.B, c.numClasses] : [b.B, b.L, c.numClasses];
      const logits = {
        data: read(
          this.#module._modelLogits(this.#handle),
          logitShape.reduce((x, y) => x * y),
        ),
        shape: logitShape,
      };
      const attention = [];
      for (let l = 0; l < c.numLayers; l++) {
        const shape = [b.B, c.numHeads, T, T];
        attention.push({ data: read(this.#module._modelAttention(this.#handle, l), b.B * c.numHeads * T * T), shape });
      }
      return { logits, attention };
    });
  }

  #run(fn, mode, batch, options) {
    this.#check(fn.split('.')[1]);
    const b = readBatch(fn, this.config, batch, true);
    const o = readStepOptions(fn, mode === 2 ? options : undefined);
    this.#check(fn.split('.')[1], true);
    const scope = new HeapScope(this.#module, fn);
    try {
      const tokens = scope.ints(b.tokens),
        targets = scope.ints(b.targets),
        lengths = b.lengths ? scope.ints(b.lengths) : 0;
      const result = scope.allocBytes(5 * 8);
      const status = this.#module._modelRun(
        this.#handle,
        mode,
        tokens,
        targets,
        lengths,
        b.B,
        b.L,
        o.optimizer === 'sgd',
        o.lr,
        o.beta1,
        o.beta2,
        o.eps,
        o.weightDecay,
        o.momentum,
        o.clipNorm,
        result,
      );
      if (status !== 0) throw fail(this.#module, fn, status);
      const [loss, count, correct, gradNorm, step] = new Float64Array(views(this.#module).HEAP8.buffer, result, 5);
      return { loss, accuracy: count > 0 ? correct / count : 0, count, gradNorm, step };
    } finally {
      scope.release();
    }
  }

  /** Loss and accuracy on a batch; nothing changes. */
  evaluate(batch) {
    const { loss, accuracy, count } = this.#run('TinyTransformer.evaluate', 0, batch);
    return { loss, accuracy, count };
  }

  /** Loss, accuracy and every parameter's gradient (by name) on a batch; nothing changes. */
  gradients(batch) {
    const { loss, accuracy, count, gradNorm } = this.#run('TinyTransformer.gradients', 1, batch);
    const heap = views(this.#module).HEAPF32;
    const base = this.#module._modelGrads(this.#handle) >>> 2;
    const gradients = {};
    for (const p of this.#table) gradients[p.name] = heap.slice(base + p.offset, base + p.offset + p.count);
    return { loss, accuracy, count, gradNorm, gradients };
  }

  /** Forward, backward and one optimizer step in one wasm call. */
  trainStep(batch, options) {
    return this.#run('TinyTransformer.trainStep', 2, batch, options);
  }

  /** Every parameter as JSON-serialisable numbers, with the config and the step count. */
  getWeights() {
    this.#check('getWeights');
    const heap = views(this.#module).HEAPF32;
    const base = this.#module._modelParams(this.#handle) >>> 2;
    const tensors = {};
    for (const p of this.#table)
      tensors[p.name] = {
        shape: p.shape.slice(),
        data: Array.from(heap.subarray(base + p.offset, base + p.offset + p.count)),
      };
    return { format: FORMAT, version: 1, config: { ...this.config }, step: this.step, tensors };
  }

  /**
   * Replaces every parameter with those of getWeights() output (a parsed JSON object); the
   * config must match (all but the seed). Resets the optimizer (moments and step count). All or nothing.
   */
  setWeights(weights) {
    const fn = 'TinyTransformer.setWeights';
    this.#check('setWeights');
    if (weights === null || typeof weights !== 'object')
      throw typeError(fn, `weights must be an object from getWeights(), got ${describe(weights)}`);
    if (weights.format !== FORMAT)
      throw typeError(fn, `weights.format must be '${FORMAT}', got ${describe(weights.format)}`);
    if (weights.version !== 1)
      throw rangeError(
        fn,
        `weights.version ${describe(weights.version)} is not supported (this package reads version 1)`,
      );
    const config = weights.config;
    if (config === null || typeof config !== 'object')
      throw typeError(fn, `weights.config must be an object, got ${describe(config)}`);
    for (const [key, value] of Object.entries(this.config)) {
      if (key === 'seed') continue; // only the initial weights depend on it
      if (config[key] !== value)
        throw rangeError(
          fn,
          `weights.config.${key} is ${show(config[key])} but this model's is ${show(value)} (create the model with the saved config)`,
        );
    }
    const tensors = weights.tensors;
    if (tensors === null || typeof tensors !== 'object')
      throw typeError(fn, `weights.tensors must be an object, got ${describe(tensors)}`);
    for (const name of Object.keys(tensors))
      if (!Object.hasOwn(this.parameterShapes, name)) throw rangeError(fn, `unknown tensor '${name}'`);
    const checked = this.#table.map((p) => [p, checkTensor(fn, p, tensors[p.name])]);
    this.#check('setWeights', true);
    const heap = views(this.#module).HEAPF32;
    const base = this.#module._modelParams(this.#handle) >>> 2;
    for (const [p, data] of checked) heap.set(data, base + p.offset);
    this.#module._modelResetOptimizer(this.#handle);
  }

  /** True once dispose() ran. */
  get disposed() {
    return this.#handle === 0;
  }

  /** Frees the model's wasm memory; every method throws afterwards. Safe to call twice. */
  dispose() {
    if (this.#handle === 0) return;
    this.#module._modelDestroy(this.#handle);
    finalizer.unregister(this.#token);
    this.#handle = 0;
  }
}

// The parameter table: [{ name, shape, offset, count }] in layout order.
function readTable(module, handle) {
  const count = module._modelParameterTensors(handle);
  const scope = new HeapScope(module, 'TinyTransformer');
  try {
    const address = scope.alloc(5 * count);
    module._modelTable(handle, address);
    const t = views(module).HEAP32.slice(address >>> 2, (address >>> 2) + 5 * count);
    return Array.from({ length: count }, (_, i) => {
      const [kind, layer, rows, cols, offset] = t.subarray(5 * i, 5 * i + 5);
      const names = contractOf(module).paramKindNames;
      const name = layer >= 0 ? `layers.${layer}.${names[kind]}` : names[kind];
      return { name, shape: cols > 0 ? [rows, cols] : [rows], offset, count: rows * Math.max(1, cols) };
    });
  } finally {
    scope.release();
  }
}

// One tensor of setWeights: { shape, data } with this parameter's shape and finite numbers.
function checkTensor(fn, p, t) {
  if (t === undefined) throw rangeError(fn, `weights.tensors is missing '${p.name}' [${p.shape.join(', ')}]`);
  if (t === null || typeof t !== 'object')
    throw typeError(fn, `weights.tensors['${p.name}'] must be { shape, data }, got ${describe(t)}`);
  if (!Array.isArray(t.shape) || t.shape.length !== p.shape.length || t.shape.some((n, i) => n !== p.shape[i])) {
    throw rangeError(
      fn,
      `weights.tensors['${p.name}'] has shape ${describe(t.shape)}${Array.isArray(t.shape) ? ` [${t.shape.join(', ')}]` : ''} but this model needs [${p.shape.join(', ')}]`,
    );
  }
  const data = t.data;
  if (!Array.isArray(data) && !ArrayBuffer.isView(data))
    throw typeError(fn, `weights.tensors['${p.name}'].data must be an array of numbers, got ${describe(data)}`);
  if (data.length !== p.count)
    throw rangeError(
      fn,
      `weights.tensors['${p.name}'].data has ${data.length} values but [${p.shape.join(', ')}] needs ${p.count}`,
    );
  const out = new Float32Array(p.count);
  for (let i = 0; i < p.count; i++) {
    const v = data[i];
    if (typeof v !== 'number')
      throw typeError(fn, `weights.tensors['${p.name}'].data[${i}] must be a number, got ${describe(v)}`);
    if (!Number.isFinite(v)) throw rangeError(fn, `weights.tensors['${p.name}'].data[${i}] must be finite, got ${v}`);
    out[i] = v;
  }
  return out;
}
