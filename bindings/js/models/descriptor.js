// The runner's descriptor in the form the wasm takes (bindings/pretrained_bindings.cc):
// 18 int32 (the last three float32 bits: rope_scaling's factors), the norm's eps and the
// rotary base.
const ACTIVATION_CODES = { relu: 0, gelu: 1, gelu_new: 2, gelu_pytorch_tanh: 2, silu: 3 };
const ROPE_TYPES = { none: 0, linear: 1, llama3: 2 };
const FLAGS = { preNorm: 1, embeddingNorm: 2, finalNorm: 4, causal: 8, attentionBias: 16, mlpBias: 32, lmHead: 64, lmTransform: 128, lmBias: 256,
  gatedFfn: 512, rmsNorm: 1024, rotaryInterleaved: 2048, bf16Matrices: 4096 };

/** @param {object} d the descriptor of architectures.js @returns {{ ints: Int32Array, eps: number, base: number }} */
export function packDescriptor(d) {
  let flags = d.norm === 'rms' ? FLAGS.rmsNorm : 0;
  for (const [key, bit] of Object.entries(FLAGS)) if (d[key] === true) flags |= bit;
  const ints = Int32Array.of(d.vocabSize, d.maxPositions, d.typeVocabSize, d.dModel, d.numHeads, d.numKvHeads, d.numLayers, d.dFF,
    flags, ACTIVATION_CODES[d.activation], ACTIVATION_CODES[d.lmActivation], d.rotaryDim ?? 0, d.slidingWindow ?? 0,
    ROPE_TYPES[d.ropeScaling?.type ?? 'none'], d.ropeScaling?.originalMax ?? 8192, 0, 0, 0);
  const factors = new Float32Array(ints.buffer, 15 * 4, 3);
  factors.set([d.ropeScaling?.factor ?? 1, d.ropeScaling?.lowFreqFactor ?? 1, d.ropeScaling?.highFreqFactor ?? 4]);
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
