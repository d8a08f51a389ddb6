// A TinyTransformer classifier (src/train/tiny_transformer.cc) as a descriptor of the
// pretrained-model runner (src/model/), so that TextClassifier predicts through the one
// runner every checkpoint uses. Training keeps TinyTransformer (it has the backward pass);
// its weights, by TinyTransformer's names, become the runner's:
//   [CLS]        a learned row at position 0    → word-embedding row V (the id after the
//                                                   vocabulary's V tokens)
//   positions    learned [maxLen + 1, d], or    → the runner's learned position table, filled
//                fixed sinusoids                  with the same sinusoid rows (the core's own
//                                                   function, so the same float32 bits)
//   blocks       pre-norm x + f(LN(x)), or      → pre_norm, or post-norm; LayerNorm eps 1e-5
//                post-norm LN(x + f(x))           (kLayerNormEps); biases everywhere; ReLU or
//                                                   GELU (erf); head_dim = d / heads
//   final norm   pre-norm only                  → final_norm
//   head         [CLS] row · head.w + head.b    → the runner's classification head (float64 in
//                                                   JS), pooling the first row
// Shapes: V = vocabSize, d = dModel, f = dFF, K = numClasses, maxLen + 1 positions.
import { rangeError, show } from '../errors.js';
import { HeapScope } from '../heap.js';
import { modelFromTensors } from '../models/model_from_tensors.js';

// The runner's block weights (contract.js names) → TinyTransformer's, under `layers.${l}.`.
const BLOCK_WEIGHTS = {
  query: 'attn.wq',
  queryBias: 'attn.bq',
  key: 'attn.wk',
  keyBias: 'attn.bk',
  value: 'attn.wv',
  valueBias: 'attn.bv',
  attentionOut: 'attn.wo',
  attentionOutBias: 'attn.bo',
  norm1Weight: 'ln1.gamma',
  norm1Bias: 'ln1.beta',
  up: 'ffn.w1',
  upBias: 'ffn.b1',
  down: 'ffn.w2',
  downBias: 'ffn.b2',
  norm2Weight: 'ln2.gamma',
  norm2Bias: 'ln2.beta',
};
const GLOBAL_WEIGHTS = { finalNormWeight: 'finalNorm.gamma', finalNormBias: 'finalNorm.beta' };

// src/train/layer_norm.h kLayerNormEps.
const LAYER_NORM_EPS = 1e-5;

/**
 * The tensors a TinyTransformer classifier has, by name, with their shapes (TinyTransformer's
 * parameterShapes for this config, in its order; src/train/model_config-inl.h).
 * @param {object} c a checked TinyTransformer config with head 'classify'
 * @returns {Record<string, number[]>}
 */
export function classifierShapes(c) {
  const d = c.dModel,
    f = c.dFF;
  const shapes = { tokenEmbedding: [c.vocabSize, d] };
  if (c.positional === 'learned') shapes.positionEmbedding = [c.maxLen + 1, d];
  shapes.cls = [d];
  for (let l = 0; l < c.numLayers; l++) {
    const block = {
      'ln1.gamma': [d],
      'ln1.beta': [d],
      'attn.wq': [d, d],
      'attn.bq': [d],
      'attn.wk': [d, d],
      'attn.bk': [d],
      'attn.wv': [d, d],
      'attn.bv': [d],
      'attn.wo': [d, d],
      'attn.bo': [d],
      'ln2.gamma': [d],
      'ln2.beta': [d],
      'ffn.w1': [d, f],
      'ffn.b1': [f],
      'ffn.w2': [f, d],
      'ffn.b2': [d],
    };
    for (const [name, shape] of Object.entries(block)) shapes[`layers.${l}.${name}`] = shape;
  }
  if (c.norm === 'pre') Object.assign(shapes, { 'finalNorm.gamma': [d], 'finalNorm.beta': [d] });
  return Object.assign(shapes, { 'head.w': [d, c.numClasses], 'head.b': [c.numClasses] });
}

/**
 * Checks a classifier's tensors against its config: every tensor there, none extra, each of
 * its shape with finite values. Errors read "<fn>: <file>['<name>'] ...".
 * @param {Map<string, { shape: number[], data: Float32Array }>} tensors
 */
export function checkClassifierTensors(fn, file, c, tensors) {
  const shapes = classifierShapes(c);
  for (const [name, shape] of Object.entries(shapes)) {
    const t = tensors.get(name);
    if (!t) throw rangeError(fn, `${file} has no tensor '${name}' [${shape.join(', ')}]`);
    if (t.shape.length !== shape.length || t.shape.some((n, i) => n !== shape[i])) {
      throw rangeError(
        fn,
        `${file}['${name}'] has shape [${t.shape.join(', ')}] but this model needs [${shape.join(', ')}]`,
      );
    }
    const bad = t.data.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) throw rangeError(fn, `${file}['${name}'][${bad}] must be finite, got ${show(t.data[bad])}`);
  }
  for (const name of tensors.keys())
    if (!Object.hasOwn(shapes, name)) throw rangeError(fn, `${file} has a tensor '${name}' this model does not use`);
}

/** The runner's descriptor of a TinyTransformer classifier config (one more word row: [CLS]). */
export function classifierDescriptor(c) {
  const pre = c.norm === 'pre';
  return {
    vocabSize: c.vocabSize + 1,
    maxPositions: c.maxLen + 1,
    typeVocabSize: 0,
    contextLength: c.maxLen + 1,
    dModel: c.dModel,
    numHeads: c.numHeads,
    numKvHeads: c.numHeads,
    headDim: c.dModel / c.numHeads,
    numLayers: c.numLayers,
    dFF: c.dFF,
    activation: c.activation,
    norm: 'layer',
    normEps: LAYER_NORM_EPS,
    preNorm: pre,
    postNorms: false,
    embeddingNorm: false,
    finalNorm: pre,
    causal: c.causal,
    qkvBias: true,
    outBias: true,
    mlpBias: true,
    gatedFfn: false,
    qkNorm: false,
    lmHead: false,
    lmTransform: false,
    lmBias: false,
    lmActivation: 'gelu',
  };
}

/**
 * A runner model of a TinyTransformer classifier's weights (checked by checkClassifierTensors),
 * its head on the [CLS] row. Feed it [V, ...token ids] (V: the [CLS] row's id).
 * @param {object} module @param {string} fn @param {object} c the TinyTransformer config
 * @param {Map<string, { data: Float32Array }>} tensors @param {string[]} labels
 */
export function classifierRunner(module, fn, c, tensors, labels) {
  const w = (name) => tensors.get(name).data;
  const d = c.dModel;
  const weightOf = (kind, layer) => {
    if (kind === 'wordEmbeddings') return concat(w('tokenEmbedding'), w('cls'));
    if (kind === 'positionEmbeddings')
      return c.positional === 'learned' ? w('positionEmbedding') : sinusoidRows(module, fn, c.maxLen + 1, d);
    return w(layer >= 0 ? `layers.${layer}.${BLOCK_WEIGHTS[kind]}` : GLOBAL_WEIGHTS[kind]);
  };
  const head = {
    weight: transpose(w('head.w'), d, c.numClasses),
    bias: w('head.b'),
    out: c.numClasses,
    activation: null,
    pool: 'first',
    labels,
  };
  return modelFromTensors(module, fn, {
    modelType: 'tiny-transformer',
    descriptor: classifierDescriptor(c),
    weightOf,
    classifier: [head],
  });
}

function concat(a, b) {
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

// [rows, cols] → [cols, rows].
function transpose(data, rows, cols) {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let k = 0; k < cols; k++) out[k * rows + r] = data[r * cols + k];
  return out;
}

// The fixed positions TinyTransformer adds (src/positional.cc SinusoidalEncoding, base 10000,
// computed by the core itself).   [positions, d]
function sinusoidRows(module, fn, positions, d) {
  const scope = new HeapScope(module, fn);
  try {
    const out = scope.alloc(positions * d);
    module._sinusoidal(positions, d, 10000, out);
    return scope.read(out, positions * d);
  } finally {
    scope.release();
  }
}
