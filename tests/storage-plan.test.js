// choosePlan (bindings/js/models/storage_plan.js): loadModel's storage of every weight, a pure
// function of the checkpoint's tensors, the dtype option and the resolved weight table. Tables
// here are made by hand: a word-embeddings entry, matrices (nn.Linear's [out, in], transposed),
// a norm vector; GGUF tensors by their ggml type (F32 0, F16 1, Q4_0 2, Q8_0 8, Q6_K 14).
import test from 'node:test';
import assert from 'node:assert/strict';
import { choosePlan, keepsBlocks } from '../bindings/js/models/storage_plan.js';

const KIND = Object.freeze({ wordEmbeddings: 0, query: 1, lmDecoder: 2, norm1Weight: 3 });

// A table entry and its tensor: kind, [rows, cols], whether a matrix, the tensor's type.
function row(kind, rows, cols, matrix, tensor) {
  return { entry: { kind, layer: -1, rows, cols, matrix }, tensor, transposed: matrix, name: `t${kind}.${rows}` };
}

// A Hugging Face checkpoint: word embeddings [V, d], two matrices, a norm; `dtypes` each one's.
function folder([emb, q, lm, norm]) {
  const table = [
    row(KIND.wordEmbeddings, 100, 64, false, { dtype: emb }),
    row(KIND.query, 64, 64, true, { dtype: q }),
    row(KIND.lmDecoder, 64, 100, true, { dtype: lm }),
    row(KIND.norm1Weight, 1, 64, false, { dtype: norm }),
  ];
  return { tensors: new Map(table.map((p) => [p.name, p.tensor])), table };
}

// A GGUF file as llama.cpp's Q4_0 writes one (d = 256: whole K-quant blocks): the embeddings and
// two matrices in Q4_0, the output in `output` (Q6_K by default), a norm in F32.
function ggufFile(output = 14, d = 256) {
  const table = [
    row(KIND.wordEmbeddings, 100, d, false, { ggmlType: 2 }),
    row(KIND.query, d, d, true, { ggmlType: 2 }),
    row(KIND.query, d, d, true, { ggmlType: 2 }),
    row(KIND.lmDecoder, d, 100, true, { ggmlType: output }),
    row(KIND.norm1Weight, 1, d, false, { ggmlType: 0 }),
  ];
  return { tensors: new Map(table.map((p, i) => [`${p.name}.${i}`, p.tensor])), table };
}

const storagesOf = (plan) => plan.entries.map((p) => p.storage ?? null);
const keptOf = (plan) => plan.entries.map((p) => p.keptBlocks);

function deepFreeze(x) {
  if (x && typeof x === 'object' && !(x instanceof Map)) for (const v of Object.values(x)) deepFreeze(v);
  return Object.freeze(x);
}

test('choosePlan: a bfloat16 checkpoint keeps its matrices bfloat16 only when every matrix is BF16', () => {
  const bf16 = folder(['BF16', 'BF16', 'BF16', 'BF16']);
  const plan = choosePlan(bf16.tensors, 'auto', bf16.table, KIND);
  assert.equal(plan.storage, 'bfloat16');
  assert.equal(plan.entryStorages, null);
  assert.equal(plan.rawBf16, true);
  // The word embeddings and the matrices are stored; the norm is a vector (no storage).
  assert.deepEqual(storagesOf(plan), ['bfloat16', 'bfloat16', 'bfloat16', null]);
  assert.deepEqual(keptOf(plan), [false, false, false, false]);
  // One float32 matrix: float32, the BF16 tensors converted in JS.
  const mixed = folder(['BF16', 'BF16', 'F32', 'BF16']);
  const float = choosePlan(mixed.tensors, 'auto', mixed.table, KIND);
  assert.deepEqual([float.storage, float.rawBf16], ['float32', false]);
  assert.deepEqual(storagesOf(float), ['float32', 'float32', 'float32', null]);
  // A float32 embedding with BF16 matrices is still a bfloat16 model (only matrices count).
  const embF32 = folder(['F32', 'BF16', 'BF16', 'F32']);
  assert.equal(choosePlan(embF32.tensors, 'auto', embF32.table, KIND).storage, 'bfloat16');
  // A float32 or float16 checkpoint: float32.
  const f16 = folder(['F16', 'F16', 'F16', 'F16']);
  assert.deepEqual(choosePlan(f16.tensors, 'auto', f16.table, KIND).storage, 'float32');
});

test('choosePlan: dtype float32, q8 and q4 say the storage whatever the checkpoint holds', () => {
  const bf16 = folder(['BF16', 'BF16', 'BF16', 'BF16']);
  const f32 = choosePlan(bf16.tensors, 'float32', bf16.table, KIND);
  assert.deepEqual([f32.storage, f32.rawBf16, f32.entryStorages], ['float32', false, null]);
  for (const [dtype, storage] of [
    ['q8', 'q8_0'],
    ['q4', 'q4_0'],
  ]) {
    const plan = choosePlan(bf16.tensors, dtype, bf16.table, KIND);
    assert.deepEqual([plan.storage, plan.rawBf16, plan.entryStorages], [storage, true, null], dtype);
    assert.deepEqual(storagesOf(plan), [storage, storage, storage, null], dtype);
  }
  // A GGUF file with dtype q8: one storage, its Q8_0-less blocks quantized again (none kept).
  const file = ggufFile();
  const q8 = choosePlan(file.tensors, 'q8', file.table, KIND);
  assert.deepEqual([q8.storage, q8.entryStorages], ['q8_0', null]);
  assert.deepEqual(keptOf(q8), [false, false, false, false, false]);
  // dtype q4 on the Q4_0 file: its Q4_0 blocks kept, the Q6_K output quantized to Q4_0.
  const q4 = choosePlan(file.tensors, 'q4', file.table, KIND);
  assert.deepEqual(storagesOf(q4), ['q4_0', 'q4_0', 'q4_0', 'q4_0', null]);
  assert.deepEqual(keptOf(q4), [true, true, true, false, false]);
});

test("choosePlan: a GGUF file in 'auto' keeps every block the runner has, in the storage most weights are in", () => {
  const file = ggufFile();
  const plan = choosePlan(file.tensors, 'auto', file.table, KIND);
  // Matrix weights: 2·256² in Q4_0, 256·100 in Q6_K (counted with Q8_0): Q4_0 holds most.
  assert.equal(plan.storage, 'q4_0');
  // The word embeddings, then each matrix: the Q6_K output keeps its own blocks.
  assert.deepEqual(plan.entryStorages, ['q4_0', 'q4_0', 'q4_0', 'q6_k']);
  assert.deepEqual(storagesOf(plan), ['q4_0', 'q4_0', 'q4_0', 'q6_k', null]);
  assert.deepEqual(keptOf(plan), [true, true, true, true, false]);
  assert.equal(plan.rawBf16, true);
  // An F16 output is dequantized and quantized again into Q4_0: no list needed.
  const f16Output = ggufFile(1);
  const requantized = choosePlan(f16Output.tensors, 'auto', f16Output.table, KIND);
  assert.deepEqual([requantized.storage, requantized.entryStorages], ['q4_0', null]);
  assert.deepEqual(keptOf(requantized), [true, true, true, false, false]);
  // d = 64: Q6_K's blocks of 256 do not split at the output's rows, so it goes to Q4_0 too.
  const narrow = ggufFile(14, 64);
  const narrowPlan = choosePlan(narrow.tensors, 'auto', narrow.table, KIND);
  assert.deepEqual([narrowPlan.storage, narrowPlan.entryStorages], ['q4_0', null]);
  assert.deepEqual(keptOf(narrowPlan), [true, true, true, false, false]);
  // A float GGUF file: float32, nothing kept.
  const float = {
    table: ggufFile().table.map((p) => ({ ...p, tensor: { ggmlType: 0 } })),
  };
  float.tensors = new Map(float.table.map((p, i) => [String(i), p.tensor]));
  const floatPlan = choosePlan(float.tensors, 'auto', float.table, KIND);
  assert.deepEqual([floatPlan.storage, floatPlan.entryStorages, floatPlan.rawBf16], ['float32', null, false]);
});

test('choosePlan is pure: the same answer twice, its inputs untouched', () => {
  const file = ggufFile();
  deepFreeze(file.table);
  const before = JSON.stringify(file.table);
  const a = choosePlan(file.tensors, 'auto', file.table, KIND);
  const b = choosePlan(file.tensors, 'auto', file.table, KIND);
  assert.deepEqual(a, b);
  assert.equal(JSON.stringify(file.table), before);
  assert.ok(a.entries.every((p, i) => p !== file.table[i] && p.entry === file.table[i].entry));
});

test('keepsBlocks: a transposed matrix or the word embeddings, in their own storage, in whole blocks', () => {
  const matrix = row(KIND.query, 64, 64, true, { ggmlType: 8 });
  assert.equal(keepsBlocks(matrix, 8, 'q8_0', KIND), true);
  assert.equal(keepsBlocks(matrix, 8, 'q4_0', KIND), false, 'another storage');
  assert.equal(keepsBlocks({ ...matrix, transposed: false }, 8, 'q8_0', KIND), false, 'not [out, in]');
  assert.equal(keepsBlocks(matrix, 14, 'q6_k', KIND), false, '64 rows are not a Q6_K block of 256');
  assert.equal(keepsBlocks(row(KIND.norm1Weight, 1, 64, false, {}), 8, 'q8_0', KIND), false, 'a vector');
  assert.equal(keepsBlocks(row(KIND.wordEmbeddings, 100, 64, false, {}), 2, 'q4_0', KIND), true, 'embeddings');
  assert.equal(keepsBlocks(matrix, 1, undefined, KIND), false, 'F16 has no block storage');
});
