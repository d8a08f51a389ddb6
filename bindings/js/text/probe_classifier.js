// A linear probe in TextClassifier: a pretrained encoder, frozen, and a softmax layer trained
// on its pooled token vectors (linear_probe.js). Its files are the head and a config.json
// naming the encoder by reference (the folder path, URL or Hub id it was loaded from: the
// encoder's weights are not copied):
//   config.json        format 'attention-wasm/linear-probe', id2label, pooling ('mean' or
//                      'cls'), encoder { source, revision, modelType, dModel, vocabSize,
//                      numLayers }, how it was trained
//   model.safetensors  'probe.weight' [d, K] and 'probe.bias' [K], float32
// Prediction runs the encoder (the runner: tokens, attention maps), pools its last hidden
// state and applies the head in float64, rounded to float32 as every classifier's logits are.
import { typeError, rangeError, describe, show } from '../errors.js';
import { checkKeys } from '../checks.js';
import { PretrainedModel } from '../models/pretrained_model.js';
import { loadModel } from '../models/load_model.js';
import { poolTokens } from '../models/pooling.js';
import { tensor as makeTensor } from '../tensor.js';
import { parseCorpus, labelsOfConfig } from './corpus.js';
import { HubInputs } from './classifier_inputs.js';
import { writeSafetensors, readSafetensors } from './safetensors_io.js';
import { checkProbeOptions, PROBE_POOLING } from './probe_options.js';
import { wholeFile } from './shipped_classifier.js';
import { standardization, standardize, trainHead, foldStandardization, accuracy, rowLogits } from './linear_probe.js';

export const PROBE_FORMAT = 'attention-wasm/linear-probe';
const FN_TRAIN = 'TextClassifier.train';
const BATCH = 32; // texts per encoder call while embedding a corpus

/** Whether config.json is a linear probe's. */
export const isProbe = (config) => config.format === PROBE_FORMAT;

// What a probe's config.json records of its encoder, to check the one it is loaded with.
const encoderSummary = (encoder) => ({
  source: encoder.source?.source ?? null,
  revision: encoder.source?.revision ?? null,
  modelType: encoder.modelType,
  dModel: encoder.descriptor.dModel,
  vocabSize: encoder.descriptor.vocabSize,
  numLayers: encoder.descriptor.numLayers,
});

// The encoder's input reader: its tokenizer's special tokens and types, at most the model's
// positions (a sentence-transformers folder's max_seq_length when it says fewer). One text:
// the probe learned from single texts.
class ProbeInputs extends HubInputs {
  input(fn, text, pair) {
    if (pair !== undefined)
      throw rangeError(fn, 'a linear probe reads one text (it was trained on single texts, not pairs)');
    return super.input(fn, text);
  }
}

function inputsOf(encoder) {
  const d = encoder.descriptor;
  const maxLength = Math.min(encoder.sentenceEmbedding?.maxSeqLength ?? Infinity, d.contextLength);
  return new ProbeInputs(encoder.tokenizer, maxLength, d.typeVocabSize > 1);
}

/**
 * The runner a probe's TextClassifier calls, in PretrainedModel.forward's shape: the encoder's
 * forward, its last hidden state pooled, the head applied. { logits [B, K], attentions? }.
 */
class ProbeRunner {
  #encoder;
  #owned; // loaded by TextClassifier.load (freed with the classifier), or the caller's
  #disposed = false;

  constructor(encoder, owned, pooling, head, K) {
    this.#encoder = encoder;
    this.#owned = owned;
    this.pooling = pooling;
    this.head = head;
    this.K = K;
  }

  get disposed() {
    return this.#disposed || this.#encoder.disposed;
  }

  dispose() {
    this.#disposed = true;
    if (this.#owned) this.#encoder.dispose();
  }

  forward(input, { attentions = false } = {}) {
    const out = this.#encoder.forward(input, { attentions, logits: false });
    const { data, shape } = out.lastHiddenState;
    const d = shape[2];
    const pooled = poolTokens(data, shape, out.lengths, [this.pooling]);
    const logits = new Float32Array(shape[0] * this.K);
    for (let r = 0; r < shape[0]; r++)
      logits.set(rowLogits(pooled, r * d, this.head.weight, this.head.bias, d, this.K), r * this.K);
    return { logits: makeTensor(logits, [shape[0], this.K]), ...(attentions ? { attentions: out.attentions } : {}) };
  }
}

/** The TextClassifier's parts of a probe on `encoder` with `head` ({ weight [d, K], bias [K], float32 }). */
function probeParts(encoder, owned, config, head) {
  const labels = labelsOfConfig('TextClassifier.load', config);
  const d = encoder.descriptor;
  const inputs = inputsOf(encoder);
  return {
    format: 'linear-probe',
    runner: new ProbeRunner(encoder, owned, config.pooling, head, labels.length),
    tokenizer: encoder.tokenizer,
    labels,
    inputs,
    modelConfig: Object.freeze({
      modelType: encoder.modelType,
      vocabSize: d.vocabSize,
      maxLen: d.contextLength,
      dModel: d.dModel,
      numHeads: d.numHeads,
      numLayers: d.numLayers,
      dFF: d.dFF,
    }),
    maxLength: d.contextLength,
    vocabSize: d.vocabSize,
    config,
    encoder,
    write: (options) => probeFiles(config, head, options),
  };
}

/** A probe's files: { 'config.json', 'model.safetensors' } (the encoder is named, not copied). */
function probeFiles(config, head, options = {}) {
  const fn = 'TextClassifier.toFiles';
  const { metrics, dtype = 'F32' } = checkKeys(fn, 'option', options, ['metrics', 'dtype']);
  if (dtype !== 'F32')
    throw rangeError(
      fn,
      `a linear probe's head is written as float32 (its predictions bit for bit); dtype ${show(dtype)}`,
    );
  const [d, K] = [head.weight.length / head.bias.length, head.bias.length];
  return {
    'config.json': `${JSON.stringify({ ...config, ...(metrics ? { metrics } : {}) }, null, 2)}\n`,
    'model.safetensors': writeSafetensors(
      [
        { name: 'probe.weight', shape: [d, K], data: head.weight },
        { name: 'probe.bias', shape: [K], data: head.bias },
      ],
      { dtype: 'F32', metadata: { format: 'pt', producer: PROBE_FORMAT } },
    ),
  };
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

// The pooled features [N, d] of `texts` (float32 values, held as float64), longest first in
// batches of similar lengths; report(embedded) after each batch.
async function embedCorpus(encoder, inputs, pooling, texts, report, signal) {
  const d = encoder.descriptor.dModel;
  const X = new Float64Array(texts.length * d);
  const ids = texts.map((t) => inputs.ids(t));
  const order = ids.map((_, i) => i).sort((a, b) => ids[b].length - ids[a].length);
  for (let start = 0; start < order.length; start += BATCH) {
    const chunk = order.slice(start, start + BATCH);
    const out = encoder.forward(
      chunk.map((i) => ids[i]),
      { logits: false },
    );
    const pooled = poolTokens(out.lastHiddenState.data, out.lastHiddenState.shape, out.lengths, [pooling]);
    chunk.forEach((i, b) => X.set(pooled.subarray(b * d, (b + 1) * d), i * d));
    report(Math.min(start + BATCH, texts.length));
    await pause();
    if (signal?.aborted) throw signal.reason ?? new DOMException('TextClassifier.train was stopped', 'AbortError');
  }
  return X;
}

/**
 * Trains a linear probe on options.encoder (probe_options.js): the corpus embedded once
 * (progress { stage: 'embedding', embedded, total, seconds }), then the head trained
 * (progress { stage: 'training', epoch, epochs, loss, done, seconds, accuracy? } after each
 * epoch). Deterministic for a seed. The encoder stays the caller's (disposing the classifier
 * leaves it loaded).
 * @returns {Promise<object>} the TextClassifier's parts
 */
export async function trainProbe(corpus, options) {
  const o = checkProbeOptions(options);
  const c = parseCorpus(FN_TRAIN, corpus, { format: o.format, labels: o.labels });
  const validation = o.validation === undefined ? null : parseCorpus(FN_TRAIN, o.validation, { labels: c.labelNames });
  const encoder = o.encoder;
  const d = encoder.descriptor.dModel,
    K = c.labelNames.length;
  const inputs = inputsOf(encoder);
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const embed = async (texts, part) =>
    embedCorpus(
      encoder,
      inputs,
      o.pooling,
      texts,
      (embedded) => o.onProgress?.({ stage: 'embedding', part, embedded, total: texts.length, seconds: seconds() }),
      o.signal,
    );
  // 1. Features, once (the encoder is frozen).
  const X = await embed(c.texts, 'train');
  const held = validation ? await embed(validation.texts, 'validation') : null;
  // 2. The head on standardised features.
  const N = c.texts.length;
  const stats = standardization(X, N, d);
  const Z = standardize(X, N, d, stats);
  const Zheld = held ? standardize(held, validation.texts.length, d, stats) : null;
  let last = null;
  for (const step of trainHead(Z, c.labels, N, d, K, o)) {
    if (!Number.isFinite(step.loss))
      throw rangeError(
        FN_TRAIN,
        `training diverged: the loss after epoch ${step.epoch} is ${step.loss}; lower options.lr (${o.lr})`,
      );
    last = step;
    const report = {
      stage: 'training',
      epoch: step.epoch,
      epochs: o.epochs,
      loss: step.loss,
      done: step.epoch === o.epochs,
    };
    if (Zheld) report.accuracy = accuracy(Zheld, validation.labels, validation.texts.length, step.W, step.b, d, K);
    o.onProgress?.({ ...report, seconds: seconds() });
    await pause();
    if (o.signal?.aborted) throw o.signal.reason ?? new DOMException('TextClassifier.train was stopped', 'AbortError');
  }
  // 3. The head on raw features, float32.
  const head = foldStandardization(last.W, last.b, stats, d, K);
  const config = {
    format: PROBE_FORMAT,
    version: 1,
    architectures: ['LinearProbe'],
    model_type: 'attention-wasm-linear-probe',
    id2label: Object.fromEntries(c.labelNames.map((name, i) => [String(i), name])),
    label2id: Object.fromEntries(c.labelNames.map((name, i) => [name, i])),
    pooling: o.pooling,
    encoder: encoderSummary(encoder),
    training: {
      examples: N,
      epochs: o.epochs,
      batchSize: o.batchSize,
      lr: o.lr,
      weightDecay: o.weightDecay,
      seed: o.seed,
      loss: last.loss,
    },
  };
  return probeParts(encoder, false, config, head);
}

// config.json's encoder entry and pooling, checked.
function checkProbeConfig(fn, config) {
  if (config.version !== 1)
    throw rangeError(
      fn,
      `config.json version ${describe(config.version)} is not supported (this package reads version 1)`,
    );
  if (!PROBE_POOLING.includes(config.pooling))
    throw rangeError(fn, `config.json pooling must be 'mean' or 'cls', got ${describe(config.pooling)}`);
  const e = config.encoder;
  if (e === null || typeof e !== 'object' || Array.isArray(e))
    throw rangeError(fn, `config.json has no encoder entry (the probe's encoder), got ${describe(e)}`);
  for (const key of ['dModel', 'vocabSize', 'numLayers'])
    if (!Number.isInteger(e[key]) || e[key] < 1)
      throw rangeError(fn, `config.json encoder.${key} must be a positive integer, got ${describe(e[key])}`);
  return e;
}

// The encoder the caller gave must be the one the probe was trained on (as far as its shape tells).
function checkSameEncoder(fn, encoder, e) {
  if (!(encoder instanceof PretrainedModel))
    throw typeError(fn, `options.encoder must be a model attn.loadModel returned, got ${describe(encoder)}`);
  if (encoder.disposed) throw rangeError(fn, 'options.encoder was disposed; load it again');
  const s = encoderSummary(encoder);
  for (const key of ['modelType', 'dModel', 'vocabSize', 'numLayers'])
    if (e[key] !== undefined && s[key] !== e[key])
      throw rangeError(
        fn,
        `options.encoder has ${key} ${show(s[key])} but the probe was trained on an encoder with ${show(e[key])} (${e.source ?? 'its source not recorded'})`,
      );
}

/**
 * Loads a probe (config.json read) from its source: the head checked, then the encoder —
 * options.encoder (the caller's, checked against config.json) or loaded from the source
 * config.json names (freed with the classifier).
 */
export async function loadProbe(module, fn, src, config, { encoder: given, ...loadOptions }) {
  const e = checkProbeConfig(fn, config);
  const labels = labelsOfConfig(fn, config);
  if (given !== undefined) checkSameEncoder(fn, given, e);
  else if (typeof e.source !== 'string' || e.source === '')
    throw rangeError(
      fn,
      "this probe's encoder was loaded from files, not a folder, URL or Hub id, so config.json cannot name it: pass options.encoder",
    );
  if (!(await src.has('model.safetensors'))) throw rangeError(fn, `no model.safetensors in ${src.description}`);
  const { tensors } = readSafetensors(fn, 'model.safetensors', await wholeFile(src, 'model.safetensors'));
  const K = labels.length;
  const want = { 'probe.weight': [e.dModel, K], 'probe.bias': [K] };
  for (const [name, shape] of Object.entries(want)) {
    const t = tensors.get(name);
    if (!t || t.shape.length !== shape.length || t.shape.some((n, i) => n !== shape[i]))
      throw rangeError(
        fn,
        `model.safetensors must hold '${name}' [${shape.join(', ')}], got ${t ? `[${t.shape.join(', ')}]` : 'none'}`,
      );
    const bad = t.data.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) throw rangeError(fn, `model.safetensors['${name}'][${bad}] must be finite, got ${show(t.data[bad])}`);
  }
  const head = { weight: tensors.get('probe.weight').data, bias: tensors.get('probe.bias').data };
  let encoder = given;
  if (encoder === undefined) {
    const options = { ...loadOptions, ...(e.revision ? { revision: e.revision } : {}) };
    encoder = await loadModel(module, e.source, options);
    try {
      checkSameEncoder(fn, encoder, e);
    } catch (error) {
      encoder.dispose();
      throw error;
    }
  }
  return probeParts(encoder, given === undefined, config, head);
}
