// TextClassifier.train's options for a linear probe (options.encoder given), checked before
// anything is embedded or allocated: each wrong one is a TypeError (wrong type, unknown name)
// or RangeError (wrong value) naming TextClassifier.train and the option. The corpus and its
// labels are corpus.js's to check.
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys, positiveInteger } from '../checks.js';
import { PretrainedModel } from '../models/pretrained_model.js';

const FN = 'TextClassifier.train';

/** The probe's training unless the options say otherwise. */
export const PROBE_DEFAULTS = Object.freeze({
  pooling: 'mean',
  epochs: 30,
  batchSize: 32,
  lr: 0.01,
  weightDecay: 0.01,
  seed: 7,
});

/** How a text's token vectors become one: the mean over its real tokens, or the first ([CLS]). */
export const PROBE_POOLING = Object.freeze(['mean', 'cls']);

/** The most epochs (each a pass over the embedded corpus: cheap, but not free). */
export const MAX_EPOCHS = 10_000;

const KNOWN = ['encoder', ...Object.keys(PROBE_DEFAULTS), 'format', 'labels', 'validation', 'onProgress', 'signal'];

function number(key, value) {
  if (typeof value !== 'number') throw typeError(FN, `options.${key} must be a number, got ${describe(value)}`);
  return value;
}

/** options.encoder: a model attn.loadModel returned, not disposed, with a tokenizer. */
function checkEncoder(encoder) {
  if (!(encoder instanceof PretrainedModel))
    throw typeError(
      FN,
      `options.encoder must be a model attn.loadModel returned (an encoder such as BERT or a sentence embedder), got ${describe(encoder)}`,
    );
  if (encoder.disposed) throw rangeError(FN, 'options.encoder was disposed; load it again');
  if (encoder.tokenizer === null)
    throw rangeError(FN, 'options.encoder has no tokenizer.json (the probe reads text through its tokenizer)');
  return encoder;
}

/**
 * Checks a probe's options (each read once) and returns them resolved: { encoder, pooling,
 * epochs, batchSize, lr, weightDecay, seed, onProgress, signal, format, labels, validation }.
 * Unknown keys (a transformer's, such as dModel or steps) are refused by name.
 */
export function checkProbeOptions(options) {
  const given = checkKeys(FN, 'option', options, KNOWN);
  const o = Object.fromEntries(KNOWN.filter((key) => given[key] !== undefined).map((key) => [key, given[key]]));
  const encoder = checkEncoder(o.encoder);
  const pooling = o.pooling ?? PROBE_DEFAULTS.pooling;
  if (typeof pooling !== 'string')
    throw typeError(FN, `options.pooling must be 'mean' or 'cls', got ${describe(pooling)}`);
  if (!PROBE_POOLING.includes(pooling))
    throw rangeError(FN, `options.pooling must be 'mean' or 'cls', got ${JSON.stringify(pooling)}`);
  if (pooling === 'cls' && encoder.descriptor.causal)
    throw rangeError(
      FN,
      "options.pooling 'cls' reads the first token, which a causal model's other tokens never reach; use 'mean'",
    );
  const epochs = positiveInteger(FN, 'options.epochs', o.epochs ?? PROBE_DEFAULTS.epochs);
  if (epochs > MAX_EPOCHS) throw rangeError(FN, `options.epochs must be at most ${MAX_EPOCHS}, got ${epochs}`);
  const batchSize = positiveInteger(FN, 'options.batchSize', o.batchSize ?? PROBE_DEFAULTS.batchSize);
  const lr = number('lr', o.lr ?? PROBE_DEFAULTS.lr);
  if (!(Number.isFinite(lr) && lr > 0)) throw rangeError(FN, `options.lr must be a finite number above 0, got ${lr}`);
  const weightDecay = number('weightDecay', o.weightDecay ?? PROBE_DEFAULTS.weightDecay);
  if (!(Number.isFinite(weightDecay) && weightDecay >= 0))
    throw rangeError(FN, `options.weightDecay must be a finite number of at least 0, got ${weightDecay}`);
  const seed = number('seed', o.seed ?? PROBE_DEFAULTS.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw rangeError(FN, `options.seed must be an integer in [0, 4294967295], got ${seed}`);
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function')
    throw typeError(FN, `options.onProgress must be a function, got ${describe(o.onProgress)}`);
  if (
    o.signal !== undefined &&
    (o.signal === null || typeof o.signal !== 'object' || typeof o.signal.aborted !== 'boolean')
  )
    throw typeError(FN, `options.signal must be an AbortSignal, got ${describe(o.signal)}`);
  return {
    encoder,
    pooling,
    epochs,
    batchSize,
    lr,
    weightDecay,
    seed,
    onProgress: o.onProgress,
    signal: o.signal,
    format: o.format,
    labels: o.labels,
    validation: o.validation,
  };
}
