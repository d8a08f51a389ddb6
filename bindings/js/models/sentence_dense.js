// sentence-transformers' Dense module (sentence_transformers/models/Dense.py): a linear layer
// on the pooled sentence vector, then its activation — EmbeddingGemma's two projections
// (768 → 3072 → 768, no bias, Identity) between Pooling and Normalize. The folder holds
//   <path>/config.json        { in_features, out_features, bias, activation_function }
//   <path>/model.safetensors  linear.weight [out, in] (and linear.bias [out] with bias)
// Read whole (a few MB at most), applied in float64 to each pooled row, results in float32.
import { rangeError } from '../errors.js';
import { gather } from './sources.js';
import { headerLength, parseHeader, toFloat32 } from './safetensors.js';

// Dense's activation_function (a torch class path) → the function applied to each output.
const ACTIVATIONS = {
  'torch.nn.modules.linear.Identity': (x) => x,
  'torch.nn.modules.activation.Tanh': Math.tanh,
};
// Dense's default activation when the config names none.
const DEFAULT_ACTIVATION = 'torch.nn.modules.activation.Tanh';
// Far above any published head (EmbeddingGemma's: 3072 × 768 = 2.4 M).
const MAX_ENTRIES = 1 << 26;

async function fileBytes(src, name) {
  if (src.stream) return gather(src.stream(name));
  return src.read(name, 0, await src.size(name));
}

// A tensor of the module's safetensors as float32, its shape checked against `shape`.
function tensorOf(fn, file, bytes, header, name, shape) {
  const entry = header.tensors.get(name);
  if (entry === undefined) throw rangeError(fn, `${file} has no tensor '${name}'`);
  if (entry.shape.length !== shape.length || entry.shape.some((n, i) => n !== shape[i]))
    throw rangeError(
      fn,
      `${file}: tensor '${name}' has shape [${entry.shape}] but its config.json asks for [${shape}]`,
    );
  return toFloat32(
    bytes.subarray(entry.begin, entry.end),
    entry.dtype,
    new Float32Array(shape.reduce((a, b) => a * b, 1)),
  );
}

/**
 * One Dense module of the folder, taking `inWidth` features.
 * @returns {Promise<{ weight: Float32Array, bias: Float32Array | null, inFeatures: number,
 *   outFeatures: number, activation: (x: number) => number } | { unsupported: string }>}
 *   weight: [out, in] row-major; unsupported: what embed cannot run, described
 */
export async function readDense(fn, src, readJson, path, inWidth) {
  const where = `${path}/config.json`;
  const config = await readJson(src, where, true);
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw rangeError(fn, `${where} must be a JSON object`);
  const { in_features: inFeatures, out_features: outFeatures, bias = true } = config;
  const activationName = config.activation_function ?? DEFAULT_ACTIVATION;
  for (const [key, value] of [
    ['in_features', inFeatures],
    ['out_features', outFeatures],
  ])
    if (!Number.isSafeInteger(value) || value < 1)
      throw rangeError(fn, `${where} has ${key} ${JSON.stringify(value)}; it must be a positive integer`);
  if (typeof bias !== 'boolean')
    throw rangeError(fn, `${where} has bias ${JSON.stringify(bias)}; it must be true or false`);
  if (inFeatures !== inWidth)
    throw rangeError(fn, `${where} has in_features ${inFeatures} but the module before it gives ${inWidth} features`);
  if (inFeatures * outFeatures > MAX_ENTRIES)
    throw rangeError(
      fn,
      `${where} asks for a ${outFeatures} × ${inFeatures} matrix; at most ${MAX_ENTRIES} entries are read`,
    );
  if (!Object.hasOwn(ACTIVATIONS, activationName))
    return { unsupported: `a Dense module (${path}) with activation_function ${JSON.stringify(activationName)}` };
  const file = `${path}/model.safetensors`;
  if (!(await src.has(file))) return { unsupported: `a Dense module (${path}) without model.safetensors` };
  const bytes = await fileBytes(src, file);
  const header = parseHeader(
    bytes.subarray(8, 8 + headerLength(bytes.subarray(0, 8), fn, file, bytes.length)),
    fn,
    file,
    bytes.length,
  );
  return {
    weight: tensorOf(fn, file, bytes, header, 'linear.weight', [outFeatures, inFeatures]),
    bias: bias ? tensorOf(fn, file, bytes, header, 'linear.bias', [outFeatures]) : null,
    inFeatures,
    outFeatures,
    activation: ACTIVATIONS[activationName],
  };
}

/**
 * rows [n, in] → activation(rows · Wᵀ + b) [n, out], sums in float64.
 * @param {Float32Array} rows @param {number} n @param {object} dense readDense's
 */
export function applyDense(rows, n, { weight, bias, inFeatures: k, outFeatures: m, activation }) {
  const out = new Float32Array(n * m);
  for (let r = 0; r < n; r++)
    for (let o = 0; o < m; o++) {
      let sum = bias === null ? 0 : bias[o];
      for (let i = 0; i < k; i++) sum += weight[o * k + i] * rows[r * k + i];
      out[r * m + o] = activation(sum);
    }
  return out;
}
