// The runner's descriptor in the form the wasm takes (bindings/contract.h,
// ATTN_DESCRIPTOR_SLOTS): int32 slots (rope_scaling's factors as float32 bits), the norm's
// eps and the rotary base. Slot positions, flag bits and enum numbers come from the module
// (contract.js); this file says only where each slot's value comes from.
import { contractOf } from '../contract.js';

// Hugging Face activation names → the runner's (src/block.h Activation).
export const ACTIVATIONS = { relu: 'kRelu', gelu: 'kGelu', gelu_new: 'kGeluTanh', gelu_pytorch_tanh: 'kGeluTanh', silu: 'kSilu' };
// rope_scaling types → the runner's (src/model/self_attention.h RopeScaling).
export const ROPE_SCALINGS = { none: 'kNone', linear: 'kLinear', llama3: 'kLlama3' };

// Each slot's value from a descriptor of architectures.js (c: the module's contract).
export const DESCRIPTOR_SLOTS = {
  vocabSize: (d) => d.vocabSize,
  maxPositions: (d) => d.maxPositions,
  typeVocabSize: (d) => d.typeVocabSize,
  dModel: (d) => d.dModel,
  numHeads: (d) => d.numHeads,
  numKvHeads: (d) => d.numKvHeads,
  numLayers: (d) => d.numLayers,
  dFF: (d) => d.dFF,
  flags: (d, c) => flagsOf(d, c.descriptorFlags),
  activation: (d, c) => c.activations[ACTIVATIONS[d.activation]],
  lmActivation: (d, c) => c.activations[ACTIVATIONS[d.lmActivation]],
  rotaryDim: (d) => d.rotaryDim ?? 0,
  slidingWindow: (d) => d.slidingWindow ?? 0,
  ropeScaling: (d, c) => c.ropeScalings[ROPE_SCALINGS[d.ropeScaling?.type ?? 'none']],
  ropeOriginalMax: (d) => d.ropeScaling?.originalMax ?? 8192,
  ropeFactor: (d) => d.ropeScaling?.factor ?? 1,
  ropeLowFreqFactor: (d) => d.ropeScaling?.lowFreqFactor ?? 1,
  ropeHighFreqFactor: (d) => d.ropeScaling?.highFreqFactor ?? 4,
};

// A flag is set when the descriptor's property of its name is true; rmsNorm by norm: 'rms'.
function flagsOf(d, bits) {
  let flags = d.norm === 'rms' ? bits.rmsNorm : 0;
  for (const [key, bit] of Object.entries(bits)) if (d[key] === true) flags |= bit;
  return flags;
}

/** @param {object} module @param {object} d the descriptor of architectures.js @returns {{ ints: Int32Array, eps: number, base: number }} */
export function packDescriptor(module, d) {
  const c = contractOf(module);
  const { count, names, floats } = c.descriptor;
  const ints = new Int32Array(count);
  const reals = new Float32Array(ints.buffer);
  for (let i = 0; i < count; i++) {
    const value = DESCRIPTOR_SLOTS[names[i]];
    if (value === undefined) throw new Error(`internal error: the descriptor slot '${names[i]}' has no value in descriptor.js`);
    if (floats.includes(i)) reals[i] = value(d, c);
    else ints[i] = value(d, c);
  }
  return { ints, eps: d.normEps, base: d.rotaryBase ?? 10000 };
}

/** Weight table entries: [{ index, kind, layer, rows, cols, matrix }] (matrix: stored as panels), without allocating the model. */
export function weightTable(module, scope, packed) {
  const ints = scope.ints(packed.ints);
  const count = module._pretrainedTableOf(ints, packed.eps, packed.base, 0);
  const table = scope.alloc(4 * 5 * Math.max(1, count));
  module._pretrainedTableOf(ints, packed.eps, packed.base, table);
  const raw = module.HEAP32.slice(table >> 2, (table >> 2) + 5 * count);
  return Array.from({ length: count }, (_, index) => {
    const [kind, layer, rows, cols, matrix] = raw.subarray(5 * index, 5 * index + 5);
    return { index, kind, layer, rows, cols, matrix: matrix === 1 };
  });
}

/** Parameters of a descriptor's matrices (before panel padding), in float64. */
function matrixParameterCount(d) {
  const kv = (d.dModel / d.numHeads) * d.numKvHeads;
  const layer = d.dModel * (2 * d.dModel + 2 * kv) + (d.gatedFfn ? 3 : 2) * d.dModel * d.dFF;
  return d.numLayers * layer + (d.lmHead ? d.dModel * d.vocabSize + (d.lmTransform ? d.dModel * d.dModel : 0) : 0);
}

/** Bytes of a descriptor's weights (before panel padding), the matrices in bfloat16 when `bf16`: for messages about sizes. */
export function parameterBytes(d, bf16) {
  return 4 * parameterCount(d) - (bf16 ? 2 * matrixParameterCount(d) : 0);
}

/** Parameters of a descriptor (before panel padding), in float64: for messages about sizes. */
export function parameterCount(d) {
  const kv = (d.dModel / d.numHeads) * d.numKvHeads;
  const layerVectors = (d.attentionBias ? 2 * d.dModel + 2 * kv : 0) + (d.mlpBias ? d.dFF + d.dModel : 0) + 4 * d.dModel;
  const lmVectors = d.lmHead ? (d.lmTransform ? 3 * d.dModel : 0) + (d.lmBias ? d.vocabSize : 0) : 0;
  return matrixParameterCount(d) + (d.vocabSize + d.maxPositions + d.typeVocabSize) * d.dModel + d.numLayers * layerVectors + lmVectors + 4 * d.dModel;
}
