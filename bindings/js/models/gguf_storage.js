// loadModel's dtype 'auto' for a GGUF file: how the runner holds each matrix. Real files mix
// types (llama.cpp's Q4_0 files keep output.weight in Q6_K or Q8_0, Q4_K_M files mix Q4_K and
// Q6_K, a Q8_0 file may keep an F16 output). Every matrix in blocks the runner has a kernel for
// (Q8_0, Q4_0, Q4_K, Q6_K) keeps them bit for bit; the others (a float output, blocks that do
// not split at a weight's rows) are dequantized and quantized again at load into the storage
// that holds most of the matrices' weights. Float only when most weights are float.
import { GGML_TYPES } from './gguf_quants.js';

// The storage that holds each type the reader decodes best: its own blocks, else blocks of
// about its bits or more (6-bit Q6_K in Q8_0, 4-bit Q4_K in Q4_0: the bits the file chose for
// it). Q5_0, Q5_1, Q5_K would go to q8_0 and Q4_1 to q4_0, but the reader refuses them
// (gguf_quants.js).
const BEST_STORAGE = {
  0: 'float', // F32
  1: 'float', // F16
  30: 'float', // BF16
  8: 'q8_0', // Q8_0
  14: 'q8_0', // Q6_K
  2: 'q4_0', // Q4_0
  12: 'q4_0', // Q4_K
};

// On a tie the storage with more bits wins.
const BY_PRECISION = ['float', 'q8_0', 'q4_0'];

/**
 * The matrix storage 'auto' gives a GGUF file: 'q8_0', 'q4_0', or null (float, as before).
 * @param {{ entry: { matrix: boolean, rows: number, cols: number }, tensor: { ggmlType: number } }[]} plan
 *   loadModel's plan: each of the runner's weights and the file's tensor that fills it
 */
export function ggufAutoStorage(plan) {
  const weights = { float: 0, q8_0: 0, q4_0: 0 };
  for (const { entry, tensor } of plan) {
    if (!entry.matrix) continue;
    const storage = BEST_STORAGE[tensor.ggmlType];
    if (storage === undefined)
      throw new Error(`internal error: no matrix storage for GGUF type ${GGML_TYPES[tensor.ggmlType]?.name}`);
    weights[storage] += entry.rows * entry.cols;
  }
  const most = BY_PRECISION.reduce((best, s) => (weights[s] > weights[best] ? s : best));
  return most === 'float' ? null : most;
}

/** The matrix storage that keeps a GGUF type's blocks as they are ('q8_0', 'q4_0', 'q4_k', 'q6_k'), or undefined. */
export const blockStorageOf = (ggmlType) => ({ 8: 'q8_0', 2: 'q4_0', 12: 'q4_k', 14: 'q6_k' })[ggmlType];

/**
 * Each stored weight's storage (the word embeddings and every matrix, in the weight table's
 * order, as the descriptor's matrixStorages list takes them): its own blocks' when `keeps`
 * says the runner takes them as they are, else `storage` (a quantizable one: 'q8_0' or 'q4_0').
 * Null when every one is `storage` (no list needed).
 * @param {{ entry: { matrix: boolean, kind: number }, tensor: { ggmlType: number } }[]} plan
 * @param {string} storage @param {number} wordEmbeddings the word embeddings' weight kind
 * @param {(p: object, storage: string) => boolean} keeps
 */
export function ggufEntryStorages(plan, storage, wordEmbeddings, keeps) {
  const storages = plan
    .filter(({ entry }) => entry.matrix || entry.kind === wordEmbeddings)
    .map((p) => {
      const own = blockStorageOf(p.tensor.ggmlType);
      return own !== undefined && keeps(p, own) ? own : storage;
    });
  return storages.every((s) => s === storage) ? null : storages;
}
