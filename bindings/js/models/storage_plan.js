// How loadModel stores a checkpoint's weights, chosen once from the resolved weight table (the
// table is the same in any storage): the descriptor's matrix storage, a GGUF file's per-matrix
// mix, and for each entry its storage and whether a GGUF tensor goes in as its own blocks. A
// pure function of the tensors, the dtype option and the table; load_model.js packs and checks
// the descriptor once with its answer.
import { GGML_TYPES } from './gguf_quants.js';
import { ggufAutoStorage, ggufEntryStorages, blockStorageOf } from './gguf_storage.js';

// dtype → how the matrices are stored when it says (q8, q4: quantized at load as ggml's
// reference quantizers do, Q8_0 / Q4_0 blocks of 32 weights and a float16 scale).
const QUANTIZED = { q8: 'q8_0', q4: 'q4_0' };
/** The storages made of quantized blocks. */
export const QUANTIZED_STORAGES = ['q8_0', 'q4_0', 'q4_k', 'q6_k'];

/**
 * Whether table entry p takes its GGUF tensor's blocks (of ggml type `ggmlType`) as they are:
 * a matrix (nn.Linear's [out, in] rows) or, with quantized matrices, the word embeddings ([V, d]:
 * the runner's [d, V] block matrix), whose blocks are `storage`'s and split at its rows.
 * @param {{ entry: { matrix: boolean, kind: number, rows: number, cols: number }, transposed: boolean }} p
 * @param {number} ggmlType @param {string | undefined} storage the entry's @param {object} KIND weight kinds
 */
export function keepsBlocks(p, ggmlType, storage, KIND) {
  const { entry, transposed } = p;
  const inner = entry.matrix ? entry.rows : entry.cols;
  const asBlocks = (entry.matrix && transposed) || entry.kind === KIND.wordEmbeddings;
  const own = blockStorageOf(ggmlType);
  return asBlocks && own !== undefined && own === storage && inner % GGML_TYPES[ggmlType].block === 0;
}

// The descriptor's matrixStorage: the dtype's when it names one; for 'auto', a GGUF file's
// quantized storage that holds most of its matrices' weights, else bfloat16 when every matrix
// is BF16 in the checkpoint, else float32.
function matrixStorageOf(tensors, dtype, table) {
  if (Object.hasOwn(QUANTIZED, dtype)) return QUANTIZED[dtype];
  if (dtype !== 'auto') return 'float32';
  const all = [...tensors.values()];
  if (all.some((t) => t.ggmlType !== undefined)) {
    const most = ggufAutoStorage(table);
    if (most !== null) return most;
  }
  const bf16 = all.some((t) => t.dtype === 'BF16') && table.every((p) => !p.entry.matrix || p.tensor.dtype === 'BF16');
  return bf16 ? 'bfloat16' : 'float32';
}

/**
 * The smallest matrix storage a load of these tensors with this dtype can choose (choosePlan's
 * answer is never smaller): loadModel checks the descriptor in it before reading the table, so
 * that a config.json whose weights cannot fit in any storage it could choose is refused first.
 * @param {Map<string, { dtype?: string, ggmlType?: number }>} tensors @param {string} dtype
 */
export function smallestStorage(tensors, dtype) {
  if (Object.hasOwn(QUANTIZED, dtype)) return QUANTIZED[dtype];
  if (dtype !== 'auto') return 'float32';
  const all = [...tensors.values()];
  if (all.some((t) => t.ggmlType !== undefined)) return 'q4_0';
  return all.some((t) => t.dtype === 'BF16') ? 'bfloat16' : 'float32';
}

/**
 * The storage of every weight.
 * @param {Map<string, { dtype?: string, ggmlType?: number }>} tensors the checkpoint's
 * @param {'auto' | 'float32' | 'q8' | 'q4'} dtype loadModel's option
 * @param {{ entry: { matrix: boolean, kind: number, rows: number, cols: number }, tensor: object, transposed: boolean }[]} table
 *   each of the runner's weights and the tensor that fills it, in the weight table's order
 * @param {object} KIND the module's weight kinds
 * @returns {{ storage: string, entryStorages: string[] | null, entries: object[], rawBf16: boolean }}
 *   storage: the descriptor's matrixStorage; entryStorages: its matrixStorages (a GGUF file's
 *   mix of blocks kept as they are) or null; entries: the table's entries (new objects) with
 *   `storage` (the word embeddings' and each matrix's) and `keptBlocks`; rawBf16: BF16 tensors
 *   go to wasm as they are (bfloat16 panels, or quantized in wasm).
 */
export function choosePlan(tensors, dtype, table, KIND) {
  const storage = matrixStorageOf(tensors, dtype, table);
  const mixes =
    dtype === 'auto' && QUANTIZED_STORAGES.includes(storage) && table.some((p) => p.tensor.ggmlType !== undefined);
  const entryStorages = mixes
    ? ggufEntryStorages(table, storage, KIND.wordEmbeddings, (p, own) => keepsBlocks(p, p.tensor.ggmlType, own, KIND))
    : null;
  let stored = 0;
  const entries = table.map((p) => {
    const isStored = p.entry.matrix || p.entry.kind === KIND.wordEmbeddings;
    const own = isStored ? (entryStorages?.[stored++] ?? storage) : undefined;
    const keptBlocks = p.tensor.ggmlType !== undefined && keepsBlocks(p, p.tensor.ggmlType, own, KIND);
    return { ...p, storage: own, keptBlocks };
  });
  return { storage, entryStorages, entries, rawBf16: storage === 'bfloat16' || QUANTIZED_STORAGES.includes(storage) };
}
