// loadModel: a Hugging Face checkpoint folder (config.json, tokenizer.json,
// model.safetensors or sharded model-0000x-of-0000y.safetensors with their index) → a
// PretrainedModel whose weights live in wasm memory once, packed for the kernels.
//   1. config.json → architecture (descriptor + weight names + head); the tokenizer; a
//      sentence-transformers folder's modules (sentence_transformers.js)
//   2. the safetensors headers (every shard), checked whole
//   3. every weight the descriptor needs found and its shape checked, and the bytes needed
//      checked against the heap — all before the model is allocated
//   4. the weights read one tensor at a time and packed in wasm: the matrices of a bfloat16
//      checkpoint as they are (bfloat16 panels, half the bytes; the kernels widen them
//      exactly), everything else converted to float32
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { HeapScope, views } from '../heap.js';
import { formatBytes, heapMaxBytes } from '../memory.js';
import { architectureOf } from './architectures.js';
import { packDescriptor, weightTable, createRunner, MATRIX_STORAGES } from './descriptor.js';
import { toFloat32, DTYPE_BYTES } from './safetensors.js';
import { openWeights } from './weight_files.js';
import { sourceOf } from './sources.js';
import { checkHubOptions } from './hub_ids.js';
import { generationDefaults } from './generation_config.js';
import { loadChatTemplates } from './chat_template.js';
import { loadTokenizer } from './tokenizer.js';
import { PretrainedModel } from './pretrained_model.js';
import { readSentenceTransformers } from './sentence_transformers.js';
import { contractOf } from '../contract.js';
import { ggufFileOf } from './gguf_file.js';
import { readGguf, ggufTypeProblem } from './gguf_checkpoint.js';
import { dequantize, typeBytes, GGML_TYPES } from './gguf_quants.js';
import { choosePlan, smallestStorage, QUANTIZED_STORAGES } from './storage_plan.js';
import { tooLargeError, badDescriptorError } from './descriptor_problems.js';
import { unusedTensors } from './unused_tensors.js';
import { resolveClassifier } from './classifier_head.js';

const FN = 'loadModel';
const DTYPES = ['auto', 'float32', 'q8', 'q4'];
// model.matrixDtype by storage.
const MATRIX_DTYPES = {
  float32: 'float32',
  bfloat16: 'bfloat16',
  q8_0: 'q8',
  q4_0: 'q4',
  q4_k: 'q4_k',
  q6_k: 'q6_k',
};

// model.matrixStorages: the stored weights (matrices, and the word embeddings as blocks) by storage.
function storageCounts(plan) {
  const counts = {};
  for (const { entry, storage } of plan) {
    if (storage === undefined || (!entry.matrix && !QUANTIZED_STORAGES.includes(storage))) continue;
    counts[storage] = (counts[storage] ?? 0) + 1;
  }
  return counts;
}

// How many numbers a checkpoint tensor holds: a GGUF tensor's count, a safetensors one's shape.
function elementCount(tensor) {
  if (!tensor) return 0;
  return tensor.count ?? tensor.shape.reduce((a, b) => a * b, 1);
}

// The storage most of the matrices' weights are in (a GGUF file's mix), or null without a mix.
function mostWeights(plan) {
  const weights = new Map();
  for (const { entry, storage } of plan) {
    if (entry.matrix) weights.set(storage, (weights.get(storage) ?? 0) + entry.rows * entry.cols);
  }
  if (weights.size < 2) return null;
  return [...weights].reduce((best, next) => (next[1] > best[1] ? next : best))[0];
}

const OPTIONS = [
  'head',
  'onProgress',
  'fetchOptions',
  'cache',
  'dtype',
  'signal',
  'revision',
  'hubUrl',
  'chatTemplate',
];

// Each option read once (a getter runs once), checked, unknown keys refused.
function checkOptions(options) {
  if (options === undefined) return { cache: true, dtype: 'auto', hub: checkHubOptions(FN, {}) };
  checkKeys(FN, 'option', options, OPTIONS);
  const {
    head,
    onProgress,
    fetchOptions,
    cache = true,
    dtype = 'auto',
    signal,
    revision,
    hubUrl,
    chatTemplate,
  } = options;
  if (!DTYPES.includes(dtype))
    throw typeError(FN, `options.dtype must be 'auto', 'float32', 'q8' or 'q4', got ${describe(dtype)}`);
  if (typeof cache !== 'boolean') throw typeError(FN, `options.cache must be a boolean, got ${describe(cache)}`);
  if (onProgress !== undefined && typeof onProgress !== 'function')
    throw typeError(FN, `options.onProgress must be a function, got ${describe(onProgress)}`);
  if (head !== undefined && typeof head !== 'string')
    throw typeError(FN, `options.head must be a string, got ${describe(head)}`);
  if (fetchOptions !== undefined && (fetchOptions === null || typeof fetchOptions !== 'object'))
    throw typeError(FN, `options.fetchOptions must be an object (fetch's RequestInit), got ${describe(fetchOptions)}`);
  if (chatTemplate !== undefined && (typeof chatTemplate !== 'string' || chatTemplate === ''))
    throw typeError(
      FN,
      `options.chatTemplate must be a chat template's text (a non-empty string), got ${describe(chatTemplate)}`,
    );
  if (signal !== undefined && !isAbortSignal(signal))
    throw typeError(FN, `options.signal must be an AbortSignal, got ${describe(signal)}`);
  return {
    head,
    onProgress,
    fetchOptions,
    cache,
    dtype,
    signal,
    chatTemplate,
    hub: checkHubOptions(FN, { revision, hubUrl }),
  };
}

const isAbortSignal = (signal) => typeof AbortSignal === 'function' && signal instanceof AbortSignal;

async function readJson(src, name, required) {
  if (!(await src.has(name))) {
    if (required) throw rangeError(FN, `${src.description} has no ${name}`);
    return null;
  }
  const text = await src.text(name);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw rangeError(FN, `${name} is not valid JSON (${error.message})`);
  }
}

// The checkpoint's tensor for a table entry, its shape checked: { tensor, name, transposed, stride, column }.
function resolve(arch, tensors, prefix, entry, { weightKinds: KIND, weightKindNames }) {
  const spec = arch.names[entry.kind](entry.layer);
  const candidates = [];
  if (spec.tied) candidates.push(spec.tied, prefix + spec.tied);
  // An untied checkpoint (tie_word_embeddings: false) must have its own LM matrix.
  const own = spec.tied && arch.untied ? [] : [spec.name, ...(spec.alternatives ?? [])];
  for (const name of own) candidates.push(spec.unprefixed ? name : prefix + name);
  const name = candidates.find((n) => tensors.has(n));
  const what = `${weightKindNames[entry.kind]}${entry.layer >= 0 ? ` of layer ${entry.layer}` : ''}`;
  if (name === undefined) {
    const wanted = spec.tied && arch.untied ? spec.tied : spec.unprefixed ? spec.name : prefix + spec.name;
    throw rangeError(FN, `the checkpoint has no tensor '${wanted}' (the ${what})`);
  }
  const tensor = tensors.get(name);
  if (tensor.ggmlType !== undefined) {
    const problem = ggufTypeProblem(name, tensor);
    if (problem) throw rangeError(FN, problem);
  } else if (DTYPE_BYTES[tensor.dtype] === undefined)
    throw rangeError(FN, `tensor '${name}' is ${tensor.dtype}; weights must be F32, F16 or BF16`);
  // part: [offset, total] of a fused tensor's output features (GPT-2's c_attn, Phi-3's
  // qkv_proj and gate_up_proj): this entry's cols of the total, starting at offset.
  const { rows, cols } = entry;
  const [offset, total] = spec.part ?? [0, cols];
  let expected;
  let transposed = false;
  let stride = total;
  let column = offset;
  if (spec.layout === 'linear') {
    expected = [total, rows]; // nn.Linear: [out, in]
    transposed = true;
    stride = rows;
    column = offset * rows;
  } else if (spec.layout === 'conv1d') {
    expected = [rows, total];
  } else {
    // Embedding tables keep their two axes even with one row (RoBERTa's one token type).
    const table = [KIND.wordEmbeddings, KIND.positionEmbeddings, KIND.tokenTypeEmbeddings].includes(entry.kind);
    expected = rows === 1 && !table ? [total] : [rows, cols];
  }
  if (tensor.shape.length !== expected.length || tensor.shape.some((d, i) => d !== expected[i])) {
    throw rangeError(
      FN,
      `tensor '${name}' has shape [${tensor.shape.join(', ')}] but the ${what} needs [${expected.join(', ')}] (from config.json)`,
    );
  }
  return { name, tensor, transposed, stride, column };
}

/**
 * @param {object} module the Emscripten module
 * @param {unknown} source see sources.js
 * @param {object} [options] { head, onProgress, fetchOptions }
 */
export async function loadModel(module, source, options) {
  const checked = checkOptions(options);
  const gguf = await ggufFileOf(FN, source, checked);
  if (gguf !== null) {
    try {
      checked.signal?.throwIfAborted();
      const checkpoint = await readGguf(FN, gguf, contractOf(module).weightKinds, checked);
      checked.signal?.throwIfAborted();
      return await build(module, checkpoint, { ...checked, source: sourceName(source) });
    } finally {
      gguf.close();
    }
  }
  const src = await sourceOf(FN, source, checked);
  try {
    checked.signal?.throwIfAborted();
    return await loadFrom(module, src, { ...checked, source: sourceName(source) });
  } finally {
    // A refused or aborted load stops every download and keeps no partial cache copy; a
    // complete one has nothing left to stop (a response only asked for its existence).
    src.close();
  }
}

// How the model was named, for what refers to it later (a linear probe's config.json): a
// folder path, URL or Hub id as given; null for Files or a map of bytes (nothing to name).
const sourceName = (source) => (typeof source === 'string' ? source : source instanceof URL ? source.href : null);

// A Hugging Face folder as a checkpoint: config.json → the architecture, the tokenizer, a
// sentence-transformers folder's modules, generation defaults, chat templates, and the
// safetensors headers (gguf_checkpoint.js gives the same from a GGUF file).
async function loadFrom(module, src, options) {
  return build(module, await readFolder(module, src, options), options);
}

async function readFolder(module, src, { head, signal, chatTemplate }) {
  // 1. The architecture and the tokenizer.
  const config = await readJson(src, 'config.json', true);
  const contract = contractOf(module);
  const KIND = contract.weightKinds;
  const arch = architectureOf(FN, config, head, KIND);
  const tokenizerJson = await readJson(src, 'tokenizer.json', false);
  const declared = { size: arch.descriptor.vocabSize, source: "config.json's vocab_size" };
  const tokenizerConfig = tokenizerJson === null ? {} : ((await readJson(src, 'tokenizer_config.json', false)) ?? {});
  const tokenizer = tokenizerJson === null ? null : await loadTokenizer(FN, tokenizerJson, tokenizerConfig, declared);
  // A sentence-transformers folder's pooling and normalisation (modules.json), for embed. Only
  // a bare encoder (architectures BertModel, XLMRobertaModel, …: head 'base') is looked for one:
  // asking an LM's folder for a modules.json it never has costs a request, and in a browser a
  // 404 in the console on every load.
  const sentenceEmbedding =
    arch.head === 'base' ? await readSentenceTransformers(FN, src, readJson, arch.descriptor.dModel) : null;
  // A decoder's generation defaults (generation_config.json, as transformers reads it) and
  // chat templates (tokenizer_config.json's, or the caller's).
  const decoder = arch.descriptor.causal && arch.descriptor.lmHead;
  const generation = decoder
    ? generationDefaults(FN, await readJson(src, 'generation_config.json', false), config, arch.descriptor.vocabSize)
    : undefined;
  if (chatTemplate !== undefined && !(decoder && tokenizer))
    throw rangeError(FN, 'options.chatTemplate is for a causal language model with a tokenizer.json');
  const chat = decoder && tokenizer ? await loadChatTemplates(FN, tokenizerConfig, chatTemplate) : null;
  signal?.throwIfAborted();
  // 2. Every tensor's header entry.
  const weights = await openWeights(FN, src, readJson);
  const { tensors } = weights;
  const prefix = arch.names.prefixes.find((p) => tensors.has(p + arch.names[KIND.wordEmbeddings]().name));
  if (prefix === undefined) {
    throw rangeError(
      FN,
      `the checkpoint has no tensor '${arch.names.prefixes[0]}${arch.names[KIND.wordEmbeddings]().name}' (the word embeddings of a ${arch.modelType} model)`,
    );
  }
  return { config, arch, tokenizer, sentenceEmbedding, generation, chat, weights, prefix };
}

// How a too-large message names the storage it was counted in.
const STORAGE_LABELS = {
  float32: 'as float32',
  bfloat16: 'with bfloat16 matrices',
  q8_0: 'with Q8_0 matrices',
  q4_0: 'with Q4_0 matrices',
};

// The descriptor at `at` (in the heap), checked: a RangeError when the runner refuses it, its
// weights passing the heap in `storage` (and a GGUF file's own blocks: entryStorages), or
// config.json (or the GGUF file's metadata) describing no model the runner can hold.
function checkDescriptor(module, arch, at, ggufFile, storage, entryStorages) {
  const { status } = contractOf(module);
  const code = module._pretrainedCheck(at);
  if (code === status.kOk) return;
  if (code === status.kTooLarge) {
    const floats = module._pretrainedParameterFloats(at);
    const blocks = entryStorages ? " (and the file's own Q4_K and Q6_K blocks)" : '';
    throw tooLargeError(
      FN,
      arch.modelType,
      arch.descriptor,
      floats,
      STORAGE_LABELS[storage] + blocks,
      heapMaxBytes(module),
    );
  }
  const source = ggufFile ? "the GGUF file's metadata" : 'config.json';
  throw badDescriptorError(FN, arch.descriptor, code === status.kBadHeadCount, source);
}

// The model from a checkpoint: the plan checked, then allocated and filled.
async function build(module, checkpoint, { onProgress, dtype, signal, source = null, hub }) {
  const { config, arch, tokenizer, sentenceEmbedding, generation, chat, weights, prefix } = checkpoint;
  const { tensors } = weights;
  const contract = contractOf(module);
  // 3. The plan, checked before anything is allocated: the weight table, each entry's tensor
  //    found and its shape checked, the storage of every weight chosen (storage_plan.js), then
  //    the descriptor packed with it and checked.
  const ggufFile = [...tensors.values()].some((t) => t.ggmlType !== undefined);
  const scope = new HeapScope(module, FN);
  let plan, storage, entryStorages, rawBf16, packed, parameterBytes;
  try {
    // The weight table, from the descriptor in the smallest storage this load can choose
    // (checked: refused here when it cannot fit even so); the table is the same in any storage.
    const floor = smallestStorage(tensors, dtype);
    const smallest = packDescriptor(module, { ...arch.descriptor, matrixStorage: floor });
    checkDescriptor(module, arch, scope.bytes(smallest.bytes), ggufFile, floor, null);
    const table = weightTable(module, scope, smallest);
    const resolved = table.map((entry) => ({ entry, ...resolve(arch, tensors, prefix, entry, contract) }));
    ({ storage, entryStorages, entries: plan, rawBf16 } = choosePlan(tensors, dtype, resolved, contract.weightKinds));
    packed = packDescriptor(module, {
      ...arch.descriptor,
      matrixStorage: storage,
      ...(entryStorages && { matrixStorages: entryStorages }),
    });
    const at = scope.bytes(packed.bytes);
    checkDescriptor(module, arch, at, ggufFile, storage, entryStorages);
    parameterBytes = 4 * module._pretrainedParameterFloats(at);
  } finally {
    scope.release();
  }
  const classifier =
    arch.head === 'sequence-classification' ? resolveClassifier(FN, arch, tensors, prefix, config) : null;
  const used = new Set(plan.map((p) => p.name));
  for (const layer of classifier ?? []) for (const t of [layer.weightName, layer.biasName]) if (t) used.add(t);
  // The parameters: the numbers the tensors this model reads hold, each tensor once (a tied
  // or fused one feeds several entries; buffers such as GPT-2's attention mask are unused).
  const parameterCount = [...used].reduce((n, name) => n + elementCount(tensors.get(name)), 0);
  const unused = unusedTensors(
    FN,
    tensors.keys(),
    used,
    arch.descriptor.numLayers,
    ggufFile ? "the GGUF file's metadata" : 'config.json',
  );
  // The scratch one tensor passes through on its way in: its bytes as the runner takes them
  // (a BF16 tensor of a bfloat16 model as it is, 2 bytes an element; any other as float32).
  // A GGUF tensor kept as its blocks passes through as its bytes; one dequantized, as float32.
  const scratchBytes = Math.max(
    ...plan.map((p) => {
      const { ggmlType } = p.tensor;
      if (ggmlType === undefined)
        return (
          ((p.tensor.end - p.tensor.begin) / DTYPE_BYTES[p.tensor.dtype]) *
          (rawBf16 && p.tensor.dtype === 'BF16' ? 2 : 4)
        );
      return p.keptBlocks ? typeBytes(ggmlType, p.entry.rows * p.entry.cols) : 4 * p.tensor.count;
    }),
  );
  const needed = parameterBytes + scratchBytes;
  const free = heapMaxBytes(module) - module._heapBytesInUse();
  if (needed > free) {
    throw rangeError(
      FN,
      `the ${arch.modelType} weights need ${formatBytes(needed)} of wasm memory (${formatBytes(parameterBytes)} packed + ${formatBytes(scratchBytes)} to convert the largest tensor); ${formatBytes(free)} are free of the heap's ${formatBytes(heapMaxBytes(module), true)}`,
    );
  }
  // 4. Allocate, then fill every weight.
  const handle = createRunner(module, FN, packed, parameterBytes);
  const model = new PretrainedModel(module, handle, {
    arch,
    config,
    tokenizer,
    classifier: null,
    parameterBytes,
    parameterCount,
    matrixDtype: MATRIX_DTYPES[mostWeights(plan) ?? storage],
    quantizedAtLoad: quantizedAtLoad(plan),
    matrixStorages: storageCounts(plan),
    unusedTensors: unused,
    sentenceEmbedding,
    generation,
    chat,
    source: source === null ? null : { source, revision: hub.revisionGiven ? hub.revision : null },
  });
  try {
    const head = await fillWeights(module, handle, weights, plan, {
      classifier,
      scratchBytes,
      onProgress,
      rawBf16,
      signal,
    });
    if (classifier) model._setClassifier(head);
  } catch (error) {
    model.dispose();
    throw error;
  }
  return model;
}

// Packs every weight into the model as its tensor's bytes come (a fused tensor such as
// GPT-2's c_attn feeds several entries from one conversion), and reads the classifier's
// layers into JS. With bfloat16 or quantized matrices (rawBf16) a BF16 tensor goes to wasm as
// it is (the runner packs or quantizes its matrices and widens its vectors); any other is
// converted to float32 here; a GGUF tensor goes through setGgufWeight (into its entry's storage).
// Returns the classifier's layers with their weights.
async function fillWeights(module, handle, weights, plan, { classifier, scratchBytes, onProgress, rawBf16, signal }) {
  const entries = new Map(); // tensor name → plan entries it fills
  for (const p of plan) entries.set(p.name, [...(entries.get(p.name) ?? []), p]);
  const heads = new Map(); // tensor name → the classifier's float32 copy
  for (const layer of classifier ?? []) for (const t of [layer.weightName, layer.biasName]) if (t) heads.set(t, null);
  const scope = new HeapScope(module, FN);
  let done = 0;
  try {
    const scratch = scope.allocBytes(scratchBytes);
    await weights.forEach(new Set([...entries.keys(), ...heads.keys()]), (name, bytes, ggmlType) => {
      signal?.throwIfAborted();
      const t = weights.tensors.get(name);
      if (t.ggmlType !== undefined) {
        for (const p of entries.get(name)) {
          setGgufWeight(module, handle, p, ggmlType, bytes, scratch);
          onProgress?.({ file: t.file, stage: 'weights', loaded: ++done, total: plan.length });
        }
        return;
      }
      const count = (t.end - t.begin) / DTYPE_BYTES[t.dtype];
      if (heads.has(name)) heads.set(name, toFloat32(bytes, t.dtype, new Float32Array(count)));
      if (!entries.has(name)) return;
      const raw = rawBf16 && t.dtype === 'BF16';
      if (raw) views(module).HEAPU8.set(bytes, scratch);
      else toFloat32(bytes, t.dtype, views(module).HEAPF32.subarray(scratch >>> 2, (scratch >>> 2) + count));
      for (const p of entries.get(name)) {
        const status = module._pretrainedSetWeight(
          handle,
          p.entry.index,
          scratch + (raw ? 2 : 4) * p.column,
          raw,
          p.stride,
          p.transposed,
        );
        if (status !== 0)
          throw new Error(`${FN}: internal error: the runner refused the weights of '${name}' (status ${status})`);
        onProgress?.({ file: t.file, stage: 'weights', loaded: ++done, total: plan.length });
      }
    });
  } finally {
    scope.release();
  }
  return classifier?.map((l) => ({
    ...l,
    weight: heads.get(l.weightName),
    bias: l.biasName ? heads.get(l.biasName) : null,
  }));
}

// The one place a GGUF tensor becomes a weight of the runner. `bytes` are the whole tensor's as
// the Hugging Face model holds it (gguf_checkpoint.js), of ggml type `ggmlType`; the entry takes
// its own rows (a fused tensor's part: whole rows, so whole blocks), of shape [cols, rows]
// (nn.Linear's [out, in]) for a matrix, [rows, cols] otherwise. A matrix whose type is its
// entry's storage (p.storage: Q8_0, Q4_0, Q4_K or Q6_K blocks) goes in as its blocks, repacked by
// the runner; any other weight is dequantized to float32 in the scratch (and quantized by the
// runner when the storage is).
function setGgufWeight(module, handle, p, ggmlType, bytes, scratch) {
  const { entry, column, transposed } = p;
  const count = entry.rows * entry.cols;
  const { block } = GGML_TYPES[ggmlType];
  if (column % block !== 0 || count % block !== 0)
    throw rangeError(
      FN,
      `tensor '${p.name}': the ${GGML_TYPES[ggmlType].name} blocks do not split at this weight's rows`,
    );
  const own = bytes.subarray(typeBytes(ggmlType, column), typeBytes(ggmlType, column + count));
  let status;
  if (p.keptBlocks) {
    views(module).HEAPU8.set(own, scratch);
    const kind = contractOf(module).matrixStorages[MATRIX_STORAGES[p.storage]];
    status = module._pretrainedSetQuantizedWeight(handle, entry.index, scratch, kind);
  } else {
    dequantize(ggmlType, own, views(module).HEAPF32.subarray(scratch >>> 2, (scratch >>> 2) + count));
    status = module._pretrainedSetWeight(
      handle,
      entry.index,
      scratch,
      false,
      transposed ? entry.rows : entry.cols,
      transposed,
    );
  }
  if (status !== 0)
    throw new Error(`${FN}: internal error: the runner refused the weights of '${p.name}' (status ${status})`);
}

// model.quantizedAtLoad: with quantized matrices, how many of the weights stored as blocks (the
// matrices and the word embeddings) were quantized at load rather than kept as a GGUF file's
// blocks, by the type they came in (GGUF's type names; a Hugging Face folder's dtype).
function quantizedAtLoad(plan) {
  const counts = {};
  for (const p of plan) {
    if (!QUANTIZED_STORAGES.includes(p.storage)) continue;
    if (p.keptBlocks) continue;
    const gguf = p.tensor.ggmlType !== undefined;
    const type = gguf ? GGML_TYPES[p.tensor.ggmlType].name : p.tensor.dtype;
    counts[type] = (counts[type] ?? 0) + 1;
  }
  return counts;
}
