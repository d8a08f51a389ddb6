// A runner model (PretrainedModel) from a descriptor and float32 tensors already in JS: for
// weights that come from no checkpoint folder (a TextClassifier's own format, trained here).
// loadModel's steps without the files:
//   1. the descriptor packed and checked by the runner (sizes, then the heap), before anything
//      is allocated
//   2. the runner's weight table: each entry's tensor asked of the caller and its size checked
//   3. the model allocated and every weight copied in (packed into panels by the runner)
//   4. the classification head, if any, handed to the model (run in JS, as loadModel's is)
import { rangeError } from '../errors.js';
import { HeapScope, views } from '../heap.js';
import { formatBytes, heapMaxBytes } from '../memory.js';
import { contractOf } from '../contract.js';
import { packDescriptor, weightTable, createRunner } from './descriptor.js';
import { PretrainedModel } from './pretrained_model.js';

/**
 * @param {object} module the Emscripten module
 * @param {string} fn the public function, for messages
 * @param {object} spec
 * @param {string} spec.modelType the model's name in messages and in `model.modelType`
 * @param {object} spec.descriptor a descriptor as architectures.js makes them (float32 matrices)
 * @param {(kind: string, layer: number) => Float32Array} spec.weightOf a table entry's data:
 *   kind as contract.js names weight kinds ('query', 'norm1Weight', …), layer -1 for global
 *   weights; [rows, cols] row-major in the row-vector convention ([in, out] for a matrix)
 * @param {object[] | null} [spec.classifier] the head's layers for PretrainedModel#classify:
 *   [{ weight: [out, in] row-major, bias, out, activation, pool, labels }]
 * @returns {PretrainedModel}
 */
export function modelFromTensors(module, fn, { modelType, descriptor, weightOf, classifier = null }) {
  // 1. The descriptor, checked.
  const contract = contractOf(module);
  const packed = packDescriptor(module, descriptor);
  const scope = new HeapScope(module, fn);
  let plan, parameterBytes;
  try {
    const bytes = scope.bytes(packed.bytes);
    const status = module._pretrainedCheck(bytes);
    if (status === contract.status.kTooLarge) throw rangeError(fn, `the ${modelType} weights pass the 2 GiB wasm heap`);
    if (status !== 0)
      throw rangeError(
        fn,
        `the runner cannot hold this ${modelType} model (${contract.statusNames[status] ?? `status ${status}`})`,
      );
    parameterBytes = 4 * module._pretrainedParameterFloats(bytes);
    // 2. Every weight the runner's table lists, with its data.
    plan = weightTable(module, scope, packed).map((entry) => ({ entry, data: dataOf(fn, contract, weightOf, entry) }));
  } finally {
    scope.release();
  }
  const largest = Math.max(...plan.map((p) => p.data.length));
  const free = heapMaxBytes(module) - module._heapBytesInUse();
  if (parameterBytes + 4 * largest > free) {
    throw rangeError(
      fn,
      `the ${modelType} weights need ${formatBytes(parameterBytes + 4 * largest)} of wasm memory; ${formatBytes(free)} are free of the heap's ${formatBytes(heapMaxBytes(module), true)}`,
    );
  }
  // 3. Allocate, then fill.
  const handle = createRunner(module, fn, packed, parameterBytes);
  const arch = {
    modelType,
    head: classifier ? 'sequence-classification' : 'base',
    descriptor: Object.freeze({ ...descriptor }),
    labels: classifier?.at(-1).labels ?? null,
  };
  const model = new PretrainedModel(module, handle, { arch, config: {}, tokenizer: null, parameterBytes });
  try {
    fill(module, fn, handle, plan, largest);
  } catch (error) {
    model.dispose();
    throw error;
  }
  // 4. The head.
  if (classifier) model._setClassifier(classifier);
  return model;
}

// The caller's data for a table entry, its length checked against the entry's [rows, cols].
function dataOf(fn, contract, weightOf, entry) {
  const kind = contract.weightKindNames[entry.kind];
  const data = weightOf(kind, entry.layer);
  const what = `${kind}${entry.layer >= 0 ? ` of layer ${entry.layer}` : ''}`;
  if (!(data instanceof Float32Array)) throw new Error(`${fn}: internal error: no float32 data for the ${what}`);
  if (data.length !== entry.rows * entry.cols)
    throw rangeError(fn, `the ${what} has ${data.length} numbers but the runner needs [${entry.rows}, ${entry.cols}]`);
  return data;
}

// Copies each weight into one scratch block and has the runner pack it (rows of cols floats,
// not transposed).
function fill(module, fn, handle, plan, largest) {
  const scope = new HeapScope(module, fn);
  try {
    const scratch = scope.alloc(largest);
    for (const { entry, data } of plan) {
      views(module).HEAPF32.set(data, scratch >>> 2);
      const status = module._pretrainedSetWeight(handle, entry.index, scratch, false, entry.cols, false);
      if (status !== 0)
        throw new Error(`${fn}: internal error: the runner refused weight ${entry.index} (status ${status})`);
    }
  } finally {
    scope.release();
  }
}
