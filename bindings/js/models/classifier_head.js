// A sequence classifier's head (a Hugging Face *ForSequenceClassification checkpoint): its
// dense layers found and checked in the checkpoint (resolveClassifier, for loadModel), and run
// in JS in float64 on each sequence's pooled row of the runner's last hidden states
// (classifyRows, for PretrainedModel.forward); the layers are small.
import { rangeError } from '../errors.js';
import { tensor as makeTensor } from '../tensor.js';
import { DTYPE_BYTES } from './safetensors.js';

/**
 * The head's layers as the checkpoint has them: [{ weightName, biasName, out, activation,
 * pool, labels, padId }], each weight [out, d] and bias [out] checked (the last layer's out:
 * id2label's labels). loadModel reads their tensors into { weight, bias } for classifyRows.
 * @param {string} fn the public function @param {object} arch architectures.js's
 * @param {Map<string, object>} tensors the checkpoint's headers @param {string} prefix its names' prefix
 * @param {object} config config.json
 */
export function resolveClassifier(fn, arch, tensors, prefix, config) {
  const d = arch.descriptor.dModel;
  const labels = arch.labels ?? ['LABEL_0', 'LABEL_1'];
  return arch.classifier.layers.map((layer, i, all) => {
    const base = layer.unprefixed ? layer.name : prefix + layer.name;
    const weight = tensors.get(`${base}.weight`);
    if (!weight) throw rangeError(fn, `the checkpoint has no tensor '${base}.weight' (the classification head)`);
    const out = i === all.length - 1 ? labels.length : d;
    if (weight.shape.length !== 2 || weight.shape[0] !== out || weight.shape[1] !== d) {
      throw rangeError(
        fn,
        `tensor '${base}.weight' has shape [${weight.shape.join(', ')}] but the classification head needs [${out}, ${d}] (id2label has ${labels.length} labels)`,
      );
    }
    const bias = layer.noBias ? null : tensors.get(`${base}.bias`);
    if (!layer.noBias && !bias)
      throw rangeError(fn, `the checkpoint has no tensor '${base}.bias' (the classification head)`);
    if (bias && (bias.shape.length !== 1 || bias.shape[0] !== out)) {
      throw rangeError(
        fn,
        `tensor '${base}.bias' has shape [${bias.shape.join(', ')}] but the classification head needs [${out}]`,
      );
    }
    for (const [t, name] of [
      [weight, `${base}.weight`],
      [bias, `${base}.bias`],
    ]) {
      if (t && DTYPE_BYTES[t.dtype] === undefined)
        throw rangeError(fn, `tensor '${name}' is ${t.dtype}; weights must be F32, F16 or BF16`);
    }
    return {
      weightName: `${base}.weight`,
      biasName: layer.noBias ? null : `${base}.bias`,
      out,
      activation: layer.activation ?? null,
      pool: arch.classifier.pool,
      labels,
      padId: config.pad_token_id ?? null,
    };
  });
}

/**
 * The head on the pooled rows, in float64: logits [B, labels], probabilities (softmax) and each
 * sequence's label.
 * @param {{ weight: Float32Array, bias: Float32Array | null, out: number, activation: string | null, pool: 'first' | 'last', labels: string[] }[]} layers
 * @param {Float32Array} last the runner's last hidden states [B·T, d]
 * @param {{ B: number, T: number, lengths: number[] }} batch @param {number} d the hidden size
 */
export function classifyRows(layers, last, batch, d) {
  const labels = layers.at(-1).labels;
  const logits = new Float32Array(batch.B * labels.length);
  const probabilities = new Float32Array(batch.B * labels.length);
  for (let b = 0; b < batch.B; b++) {
    const row = layers[0].pool === 'first' ? b * batch.T : b * batch.T + batch.lengths[b] - 1;
    let x = Array.from(last.subarray(row * d, row * d + d));
    for (const layer of layers) {
      const y = new Array(layer.out);
      for (let o = 0; o < layer.out; o++) {
        let sum = layer.bias ? layer.bias[o] : 0;
        for (let i = 0; i < d; i++) sum += layer.weight[o * d + i] * x[i];
        y[o] = layer.activation === 'tanh' ? Math.tanh(sum) : layer.activation === 'relu' ? Math.max(0, sum) : sum;
      }
      x = y;
    }
    const max = Math.max(...x);
    const exps = x.map((v) => Math.exp(v - max));
    const total = exps.reduce((a, v) => a + v, 0);
    x.forEach((v, i) => {
      logits[b * labels.length + i] = v;
      probabilities[b * labels.length + i] = exps[i] / total;
    });
  }
  const label = Array.from({ length: batch.B }, (_, b) => {
    const p = probabilities.subarray(b * labels.length, (b + 1) * labels.length);
    return labels[p.indexOf(Math.max(...p))];
  });
  return {
    logits: makeTensor(logits, [batch.B, labels.length]),
    probabilities: makeTensor(probabilities, [batch.B, labels.length]),
    labels: label,
  };
}
