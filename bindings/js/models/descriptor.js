// The runner's descriptor in the form the wasm takes (src/model/descriptor.h,
// ATTN_DESCRIPTOR_FIELDS and ATTN_DESCRIPTOR_LISTS): a float64 per field, then the per-layer
// and per-pair lists. The fields, their order, types and defaults, the lists and the enum
// numbers come from the module (contract.js); this file says only how a descriptor of
// architectures.js names an enum's values and where the few fields it nests are.
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

// The descriptor's enum types (src/model/descriptor.h) → the names a descriptor of
// architectures.js gives their values, and the contract's table of the runner's numbers.
const ENUMS = {
  Activation: [ACTIVATIONS, 'activations'],
  NormKind: [NORMS, 'normKinds'],
  MatrixStorage: [MATRIX_STORAGES, 'matrixStorages'],
  RopeScaling: [ROPE_SCALINGS, 'ropeScalings'],
};

// The fields and lists a descriptor holds under another name than their own: rope_scaling's
// parameters in its ropeScaling object, the per-matrix storages' count as their list's length.
// Every other field of ATTN_DESCRIPTOR_FIELDS is descriptor[its name] (kAttentionScale →
// attentionScale). Absent (undefined): the field's default, which the module gives.
export const DESCRIPTOR_SOURCES = {
  ropeScaling: (d) => d.ropeScaling?.type,
  ropeFactor: (d) => d.ropeScaling?.factor,
  ropeLowFreqFactor: (d) => d.ropeScaling?.lowFreqFactor,
  ropeHighFreqFactor: (d) => d.ropeScaling?.highFreqFactor,
  ropeOriginalMax: (d) => d.ropeScaling?.originalMax,
  ropeAttentionFactor: (d) => d.ropeScaling?.attentionFactor,
  ropeShortFactors: (d) => d.ropeScaling?.shortFactors,
  ropeLongFactors: (d) => d.ropeScaling?.longFactors,
  matrixStorageCount: (d) => d.matrixStorages?.length,
};

const sourceOf = (d, name) => (Object.hasOwn(DESCRIPTOR_SOURCES, name) ? DESCRIPTOR_SOURCES[name](d) : d[name]);

// The number the runner reads for a value of `type` (a bool 1 or 0, an enum's number), or
// `fallback` (the module's default) when the descriptor leaves it out.
function numberOf(c, name, type, value, fallback) {
  if (value === undefined || value === null) return fallback;
  if (type === 'bool') return value === true ? 1 : 0;
  if (type === 'int' || type === 'float') return value;
  const [names, table] = ENUMS[type] ?? [];
  const number = names === undefined ? undefined : c[table][names[value]];
  if (number === undefined)
    throw new Error(`internal error: the descriptor's ${name} '${value}' is not a ${type} descriptor.js knows`);
  return number;
}

/** @param {object} module @param {object} d the descriptor of architectures.js @returns {{ bytes: Uint8Array }} */
export function packDescriptor(module, d) {
  const c = contractOf(module);
  const { count, fields, slots, lists } = c.descriptor;
  const values = fields.map((f) => numberOf(c, f.name, f.type, sourceOf(d, f.name), f.default));
  // Each list as long as its length field says, but no longer than the runner reads (a
  // config's head_dim of 1e9 is CheckDescriptor's to refuse, not a 2 GB array's to build here).
  const lengths = lists.map((l) => Math.min(l.max, Math.max(0, Math.trunc(values[slots[l.lengthSlot]] / l.divisor))));
  const buffer = new ArrayBuffer(8 * count + 4 * lengths.reduce((a, b) => a + b, 0));
  new Float64Array(buffer, 0, count).set(values);
  const ints = new Int32Array(buffer, 8 * count);
  const reals = new Float32Array(buffer, 8 * count);
  let at = 0;
  lists.forEach((l, k) => {
    const list = sourceOf(d, l.name);
    for (let i = 0; i < lengths[k]; i++, at++) {
      const value = numberOf(c, l.name, l.type, list?.[i], l.default);
      if (l.type === 'float') reals[at] = value;
      else ints[at] = value;
    }
  });
  return { bytes: new Uint8Array(buffer) };
}

/**
 * A runner model for a packed descriptor the runner checked: its handle (loadModel and
 * model_from_tensors.js fill it). A RangeError when the heap cannot hold its parameterBytes.
 */
export function createRunner(module, fn, packed, parameterBytes) {
  const scope = new HeapScope(module, fn);
  let handle;
  try {
    handle = module._pretrainedCreate(scope.bytes(packed.bytes));
  } finally {
    scope.release();
  }
  if (handle <= 0) throw rangeError(fn, `out of wasm memory for the ${formatBytes(parameterBytes)} of weights`);
  return handle;
}

/**
 * Weight table entries: [{ index, kind, layer, rows, cols, matrix }] (matrix: stored as panels),
 * without allocating the model; null when the runner refuses the descriptor (other than for its
 * size: the table is the same in any storage).
 */
export function weightTable(module, scope, packed) {
  const descriptor = scope.bytes(packed.bytes);
  const count = module._pretrainedTableOf(descriptor, 0);
  if (count < 0) return null;
  const table = scope.alloc(4 * 5 * Math.max(1, count));
  module._pretrainedTableOf(descriptor, table);
  const raw = module.HEAP32.slice(table >>> 2, (table >>> 2) + 5 * count);
  return Array.from({ length: count }, (_, index) => {
    const [kind, layer, rows, cols, matrix] = raw.subarray(5 * index, 5 * index + 5);
    return { index, kind, layer, rows, cols, matrix: matrix === 1 };
  });
}
