// Why the runner refuses a model's descriptor, in the words of its config: a value out of range
// named by its key (badDescriptorError), or weights too large to hold (tooLargeError).
//
// Too large: the runner refuses
// (kTooLarge) when one table, as float32 while it loads, would pass one wasm buffer's 2 GiB
// (src/model/descriptor.cc: [the widest of vocab_size, max_position_embeddings,
// intermediate_size, hidden_size and the query width] × hidden_size), or when all the weights
// together would. The message names which, and its size, never a total that fits.
import { rangeError } from '../errors.js';
import { formatBytes } from '../memory.js';

const MAX_BUFFER_BYTES = 2 ** 31 - 1; // src/sizes.h kMaxBufferBytes

// The tables of one row per …, each [rows, hidden_size], by the config key that sets the rows.
function widestTable(d) {
  const tables = [
    ['the word embeddings', 'vocab_size', d.vocabSize],
    ['the position embeddings', 'max_position_embeddings', d.maxPositions],
    ['an MLP matrix', 'intermediate_size', d.dFF],
    ['the query projection', 'num_attention_heads × head_dim', d.numHeads * d.headDim],
    ['a hidden-size matrix', 'hidden_size', d.dModel],
  ];
  return tables.reduce((a, b) => (b[2] > a[2] ? b : a));
}

/**
 * The RangeError for a kTooLarge descriptor.
 * @param {string} fn @param {string} modelType @param {object} d the descriptor
 * @param {number} floats the weights' float32 count as the runner counts them (-1: unknown)
 * @param {string} storage how the matrices are stored ('with Q4_0 matrices', …)
 * @param {number} heapMax the heap's most bytes
 */
export function tooLargeError(fn, modelType, d, floats, storage, heapMax) {
  const [what, key, rows] = widestTable(d);
  const tableBytes = 4 * rows * d.dModel;
  if (tableBytes > MAX_BUFFER_BYTES)
    return rangeError(
      fn,
      `the ${modelType} model's largest table, ${what} (${key} ${rows} × hidden_size ${d.dModel}), takes ${formatBytes(tableBytes)} as float32 while it loads; one wasm buffer may take at most 2 GiB`,
    );
  const bytes = floats > 0 ? 4 * floats : null;
  return rangeError(
    fn,
    `the ${modelType} weights need ${bytes === null ? 'more than 2 GiB' : formatBytes(bytes)} of wasm memory ${storage}; ${bytes !== null && bytes <= heapMax ? "one model's weights may take at most 2 GiB" : `the wasm heap holds at most ${formatBytes(heapMax, true)}`}`,
  );
}

const MAX_LAYERS = 1024; // src/model/descriptor.h kMaxLayers
const MAX_ROTARY_PAIRS = 512; // kMaxRotaryPairs

// The first value CheckDescriptor (src/model/descriptor.cc) refuses as kBadArgument, named.
function descriptorProblem(d) {
  const rotary = d.rotaryDim ?? 0;
  const nonNegative = (x) => x === undefined || (Number.isFinite(x) && x >= 0);
  if (d.numLayers > MAX_LAYERS) return `num_hidden_layers is ${d.numLayers}; the runner holds at most ${MAX_LAYERS}`;
  if (rotary % 2 !== 0 || rotary > d.headDim || rotary / 2 > MAX_ROTARY_PAIRS)
    return `the rotary dimension (head_dim × partial_rotary_factor, or a GGUF file's rope.dimension_count) is ${rotary}; it must be even and at most the head's ${d.headDim} (and ${2 * MAX_ROTARY_PAIRS})`;
  if (!(d.normEps > 0)) return `the norm's epsilon is ${d.normEps}; it must be positive`;
  if (d.rotaryBase !== undefined && !(Number.isFinite(d.rotaryBase) && d.rotaryBase > 0))
    return `rope_theta is ${d.rotaryBase}; it must be positive and finite`;
  for (const key of ['localRotaryBase', 'attentionScale', 'attentionSoftcap', 'finalSoftcap'])
    if (!nonNegative(d[key])) return `${key} is ${d[key]}; it must be zero or positive and finite`;
  if (!Number.isFinite(d.embeddingMultiplier ?? 1))
    return `the embedding multiplier is ${d.embeddingMultiplier}; it must be finite`;
  return null;
}

/** The RangeError for a descriptor the runner refuses (kBadArgument, kBadHeadCount, …). */
export function badDescriptorError(fn, d, headCount, source = 'config.json') {
  const problem = headCount
    ? `num_attention_heads (${d.numHeads}) must be a multiple of num_key_value_heads (${d.numKvHeads})`
    : (descriptorProblem(d) ??
      'a size is out of range (zero where it must be positive, more than 1024 layers, or a rotary dimension that is odd or wider than a head)');
  return rangeError(fn, `${source} describes a model the runner cannot hold: ${problem}`);
}
