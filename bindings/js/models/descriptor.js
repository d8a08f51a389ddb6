// The runner's descriptor in the form the wasm takes (bindings/contract.h,
// ATTN_DESCRIPTOR_SLOTS and ATTN_DESCRIPTOR_LISTS): int32 slots (some as float32 bits), then
// the per-layer and per-pair lists; the norm's eps and the rotary base travel beside them.
// Slot positions, list order, flag bits and enum numbers come from the module (contract.js);
// this file says only where each value comes from in a descriptor of architectures.js.
import { contractOf } from '../contract.js';
import { rangeError } from '../errors.js';
import { HeapScope } from '../heap.js';
import { formatBytes } from '../memory.js';

// Hugging Face activation names → the runner's (src/kernels/activations.h Activation).
export const ACTIVATIONS = {
  relu: 'kRelu',
  gelu: 'kGelu',
  gelu_new: 'kGeluTanh',
  gelu_pytorch_tanh: 'kGeluTanh',
  silu: 'kSilu',
};
// rope_scaling types → the runner's (src/model/self_attention.h RopeScaling).
export const ROPE_SCALINGS = { none: 'kNone', linear: 'kLinear', llama3: 'kLlama3', longrope: 'kLongRope' };
// The descriptor's norm → the runner's (src/model/descriptor.h NormKind): a layer norm, an
// RMS norm, or Gemma's RMS norm scaling by 1 + γ.
export const NORMS = { layer: 'kLayerNorm', rms: 'kRmsNorm', 'rms+1': 'kRmsNormPlusOne' };

// How the matrices are stored → the runner's (src/kernels/quantized.h MatrixStorage).
export const MATRIX_STORAGES = {
  float32: 'kFloat32',
  bfloat16: 'kBfloat16',
  q8_0: 'kQ8_0',
  q4_0: 'kQ4_0',
  q4_k: 'kQ4_K',
  q6_k: 'kQ6_K',
};

// Each slot's value from a descriptor (c: the module's contract). The plain scalars
// (attentionScale, embeddingMultiplier, logitsScaling, …: ATTN_DESCRIPTOR_SCALARS in
// src/model/descriptor.h) are not listed: each is the descriptor's value of its name, or the
// default the module gives (c.descriptor.defaults).
export const DESCRIPTOR_SLOTS = {
  vocabSize: (d) => d.vocabSize,
  maxPositions: (d) => d.maxPositions,
  typeVocabSize: (d) => d.typeVocabSize,
  dModel: (d) => d.dModel,
  numHeads: (d) => d.numHeads,
  numKvHeads: (d) => d.numKvHeads,
  qkvHeadDim: (d) => d.headDim,
  numLayers: (d) => d.numLayers,
  dFF: (d) => d.dFF,
  flags: (d, c) => flagsOf(d, c.descriptorFlags),
  norm: (d, c) => c.normKinds[NORMS[d.norm ?? 'layer']],
  activation: (d, c) => c.activations[ACTIVATIONS[d.activation]],
  lmActivation: (d, c) => c.activations[ACTIVATIONS[d.lmActivation]],
  rotaryDim: (d) => d.rotaryDim ?? 0,
  ropeScaling: (d, c) => c.ropeScalings[ROPE_SCALINGS[d.ropeScaling?.type ?? 'none']],
  ropeOriginalMax: (d) => d.ropeScaling?.originalMax ?? 8192,
  ropeFactor: (d) => d.ropeScaling?.factor ?? 1,
  ropeLowFreqFactor: (d) => d.ropeScaling?.lowFreqFactor ?? 1,
  ropeHighFreqFactor: (d) => d.ropeScaling?.highFreqFactor ?? 4,
  ropeAttentionFactor: (d) => d.ropeScaling?.attentionFactor ?? 1,
  matrixStorage: (d, c) => c.matrixStorages[MATRIX_STORAGES[d.matrixStorage ?? 'float32']],
  matrixStorageCount: (d) => d.matrixStorages?.length ?? 0,
};

// Each list's element i (the lists' lengths come from their slots).
export const DESCRIPTOR_LISTS = {
  layerWindows: (d, l) => d.layerWindows?.[l] ?? 0,
  layerNoRope: (d, l) => (d.layerNoRope?.[l] === true ? 1 : 0),
  ropeShortFactors: (d, i) => d.ropeScaling?.shortFactors?.[i] ?? 1,
  ropeLongFactors: (d, i) => d.ropeScaling?.longFactors?.[i] ?? 1,
  // Per matrix (the word embeddings, then each matrix, in the weight table's order): a GGUF
  // file's mix of block types (load_model.js).
  matrixStorages: (d, i, c) => c.matrixStorages[MATRIX_STORAGES[d.matrixStorages[i]]],
};

// A flag is set when the descriptor's property of its name is true.
function flagsOf(d, bits) {
  let flags = 0;
  for (const [key, bit] of Object.entries(bits)) if (d[key] === true) flags |= bit;
  return flags;
}

/** @param {object} module @param {object} d the descriptor of architectures.js @returns {{ ints: Int32Array, eps: number, base: number }} */
export function packDescriptor(module, d) {
  const c = contractOf(module);
  const { count, names, floats, lists, slots } = c.descriptor;
  const slotValues = names.map((name) => {
    if (Object.hasOwn(c.descriptor.defaults, name)) return d[name] ?? c.descriptor.defaults[name];
    const value = DESCRIPTOR_SLOTS[name];
    if (value === undefined)
      throw new Error(`internal error: the descriptor slot '${name}' has no value in descriptor.js`);
    return value(d, c);
  });
  // Each list as long as its slot says, but no longer than the runner reads (a config's
  // head_dim of 1e9 is CheckDescriptor's to refuse, not a 2 GB array's to build here).
  const lengths = lists.map((l) =>
    Math.min(l.max, Math.max(0, Math.trunc(slotValues[slots[l.lengthSlot]] / l.divisor))),
  );
  const ints = new Int32Array(count + lengths.reduce((a, b) => a + b, 0));
  const reals = new Float32Array(ints.buffer);
  slotValues.forEach((value, i) => {
    if (floats.includes(i)) reals[i] = value;
    else ints[i] = value;
  });
  let at = count;
  lists.forEach((l, k) => {
    const value = DESCRIPTOR_LISTS[l.name];
    if (value === undefined)
      throw new Error(`internal error: the descriptor list '${l.name}' has no value in descriptor.js`);
    for (let i = 0; i < lengths[k]; i++, at++) {
      if (l.float) reals[at] = value(d, i, c);
      else ints[at] = value(d, i, c);
    }
  });
  return { ints, eps: d.normEps, base: d.rotaryBase ?? 10000 };
}

/**
 * A runner model for a packed descriptor the runner checked: its handle (loadModel and
 * model_from_tensors.js fill it). A RangeError when the heap cannot hold its parameterBytes.
 */
export function createRunner(module, fn, packed, parameterBytes) {
  const scope = new HeapScope(module, fn);
  let handle;
  try {
    handle = module._pretrainedCreate(scope.ints(packed.ints), packed.eps, packed.base);
  } finally {
    scope.release();
  }
  if (handle <= 0) throw rangeError(fn, `out of wasm memory for the ${formatBytes(parameterBytes)} of weights`);
  return handle;
}

/** Weight table entries: [{ index, kind, layer, rows, cols, matrix }] (matrix: stored as panels), without allocating the model. */
export function weightTable(module, scope, packed) {
  const ints = scope.ints(packed.ints);
  const count = module._pretrainedTableOf(ints, packed.eps, packed.base, 0);
  const table = scope.alloc(4 * 5 * Math.max(1, count));
  module._pretrainedTableOf(ints, packed.eps, packed.base, table);
  const raw = module.HEAP32.slice(table >>> 2, (table >>> 2) + 5 * count);
  return Array.from({ length: count }, (_, index) => {
    const [kind, layer, rows, cols, matrix] = raw.subarray(5 * index, 5 * index + 5);
    return { index, kind, layer, rows, cols, matrix: matrix === 1 };
  });
}
