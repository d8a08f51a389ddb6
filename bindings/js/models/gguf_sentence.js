// A GGUF embedder's sentence pipeline, as embed takes a sentence-transformers folder's
// (sentence_transformers.js): llama.cpp's `${arch}.pooling_type` for the Pooling module and, in a
// file converted with --sentence-transformers-dense-modules (EmbeddingGemma), the Dense modules'
// weights as tensors dense_2.weight and dense_3.weight ([out, in], no bias, Identity: the only
// Dense llama.cpp writes) with their `${arch}.dense_N_feat_in/out`. Unit length at the end, as
// llama.cpp's embeddings are by default (the file does not say; the folder's Normalize module did).
import { rangeError } from '../errors.js';
import { GGML_TYPES, canDequantize, dequantize } from './gguf_quants.js';

// llama.cpp's LLAMA_POOLING_TYPE_* (pooling_type) → embed's pooling mode.
const POOLING = { 1: 'mean', 2: 'cls', 3: 'last' };
const DENSE = ['dense_2', 'dense_3'];

/** The Dense tensors a GGUF file holds, by name (read before the model's, as the converter writes them first). */
export const ggufDenseNames = (tensors) => DENSE.map((n) => `${n}.weight`).filter((n) => tensors.has(n));

/**
 * The pipeline, or null for a file that is not an embedder (no pooling_type).
 * @param {string} fn @param {string} file @param {Map<string, unknown>} meta
 * @param {Map<string, { type: number, dims: number[], count: number }>} tensors the file's
 * @param {{ arch: string }} family @param {number} d the hidden size
 * @param {Map<string, Uint8Array>} bytes the Dense tensors' bytes (ggufDenseNames)
 */
export function ggufSentenceEmbedding(fn, file, meta, tensors, family, d, bytes) {
  const type = meta.get(`${family.arch}.pooling_type`);
  if (type === undefined) return null;
  const settings = { maxSeqLength: null, lowerCase: false };
  if (!Object.hasOwn(POOLING, type))
    return { pooling: null, dense: [], normalize: false, ...settings, unsupported: `pooling_type ${type}` };
  const dense = [];
  let width = d;
  for (const name of DENSE) {
    const t = tensors.get(`${name}.weight`);
    if (t === undefined) break;
    const inFeatures = meta.get(`${family.arch}.${name}_feat_in`);
    const outFeatures = meta.get(`${family.arch}.${name}_feat_out`);
    // ggml's dims: [in, out] (the [out, in] matrix, row-major).
    if (t.dims.length !== 2 || t.dims[0] !== inFeatures || t.dims[1] !== outFeatures || inFeatures !== width)
      throw rangeError(
        fn,
        `${file}: tensor '${name}.weight' has dims [${t.dims}], but ${family.arch}.${name}_feat_in/out say [${inFeatures}, ${outFeatures}] after ${width} features`,
      );
    if (!canDequantize(t.type))
      throw rangeError(
        fn,
        `${file}: tensor '${name}.weight' is ${GGML_TYPES[t.type]?.name ?? t.type}, which is not read`,
      );
    const weight = dequantize(t.type, bytes.get(`${name}.weight`), new Float32Array(t.count));
    dense.push({ weight, bias: null, inFeatures, outFeatures, activation: (x) => x });
    width = outFeatures;
  }
  return { pooling: [POOLING[type]], dense, normalize: true, ...settings, unsupported: null };
}
