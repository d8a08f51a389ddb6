// attention-wasm's own classifier format in TextClassifier: a folder in Hugging Face's layout
// (config.json with format 'attention-wasm/text-classifier', a WordPiece tokenizer.json,
// model.safetensors with TinyTransformer's tensor names), or the weights TextClassifier.train
// just learned. Either way the weights stay in JS (vectors, toFiles) and run in the
// pretrained-model runner (runner_model.js); no TinyTransformer is kept.
import { rangeError, describe, show } from '../errors.js';
import { checkModelConfig } from '../model_inputs.js';
import { loadTokenizer } from '../models/tokenizer.js';
import { gather } from '../models/sources.js';
import { labelsOfConfig } from './corpus.js';
import { WordPieceEncoder } from './wordpiece.js';
import { readSafetensors } from './safetensors_io.js';
import { FORMAT } from './train_classifier.js';
import { checkClassifierTensors, classifierRunner } from './runner_model.js';
import { ShippedInputs } from './classifier_inputs.js';

// A WordPiece tokenizer.json's tokens, by id.
function vocabularyOf(tokenizerJson) {
  const ids = tokenizerJson.model.vocab;
  return Object.keys(ids).sort((a, b) => ids[a] - ids[b]);
}

/** Whether config.json is in attention-wasm's classifier format. */
export const isShippedClassifier = (config) => config.format === FORMAT;

/** The TinyTransformer config a classifier's config.json describes (checked). */
function modelConfigOf(fn, config, vocabSize) {
  if (config.version !== 1)
    throw rangeError(
      fn,
      `config.json version ${describe(config.version)} is not supported (this package reads version 1)`,
    );
  const m = config.model;
  if (m === null || typeof m !== 'object') throw rangeError(fn, 'config.json has no "model" entry');
  const numClasses = labelsOfConfig(fn, config).length;
  if (m.vocabSize !== vocabSize)
    throw rangeError(fn, `config.json says vocabSize ${show(m.vocabSize)} but tokenizer.json has ${vocabSize} tokens`);
  return checkModelConfig(fn, { ...m, head: 'classify', numClasses, seed: 0 });
}

/**
 * config.json's calibration temperature T (predict's probabilities are softmax(logits / T)):
 * 1 without a `calibration` entry, else a finite number above 0.
 */
export function temperatureOf(fn, config) {
  const c = config.calibration;
  if (c === undefined) return 1;
  if (c === null || typeof c !== 'object' || Array.isArray(c))
    throw rangeError(fn, `config.json calibration must be an object { temperature }, got ${describe(c)}`);
  const t = c.temperature;
  if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0)
    throw rangeError(fn, `config.json calibration.temperature must be a finite number above 0, got ${describe(t)}`);
  return t;
}

// A whole file's bytes: read at once where the source has random access (a folder, Files,
// bytes), else gathered from its stream (a URL).
export async function wholeFile(src, name) {
  if (typeof src.read === 'function') return src.read(name, 0, await src.size(name));
  return gather(src.stream(name));
}

/**
 * Reads a classifier folder in this format (config.json already read) into the
 * TextClassifier's parts: every file and tensor checked before the runner is allocated.
 */
export async function loadShipped(module, fn, src, config) {
  for (const name of ['tokenizer.json', 'model.safetensors']) {
    if (!(await src.has(name))) throw rangeError(fn, `no ${name} in ${src.description}`);
  }
  let tokenizerJson;
  try {
    tokenizerJson = JSON.parse(await src.text('tokenizer.json'));
  } catch (error) {
    throw rangeError(fn, `tokenizer.json is not valid JSON (${error.message})`);
  }
  const vocabMap = tokenizerJson?.model?.vocab;
  if (tokenizerJson?.model?.type !== 'WordPiece' || vocabMap === null || typeof vocabMap !== 'object') {
    throw rangeError(fn, 'tokenizer.json must hold a WordPiece model (the tokenizers TextClassifier.train writes)');
  }
  const modelConfig = modelConfigOf(fn, config, Object.keys(vocabMap).length);
  temperatureOf(fn, config);
  const { tensors } = readSafetensors(fn, 'model.safetensors', await wholeFile(src, 'model.safetensors'));
  checkClassifierTensors(fn, 'model.safetensors', modelConfig, tensors);
  const tokenizer = await loadTokenizer(
    fn,
    tokenizerJson,
    {},
    { size: modelConfig.vocabSize, source: "config.json's model.vocabSize" },
  );
  return shippedParts(module, fn, { config, tokenizerJson, tokenizer, modelConfig, tensors });
}

/**
 * The TextClassifier's parts from checked weights.
 * @param {{ config: object, tokenizerJson: object, tokenizer: TextTokenizer, modelConfig: object,
 *   tensors: Map<string, { shape: number[], data: Float32Array }> }} classifier
 */
export function shippedParts(module, fn, { config, tokenizerJson, tokenizer, modelConfig, tensors }) {
  const vocab = vocabularyOf(tokenizerJson);
  const labels = labelsOfConfig(fn, config);
  const runner = classifierRunner(module, fn, modelConfig, tensors, labels);
  return {
    format: 'attention-wasm',
    runner,
    tokenizer,
    labels,
    inputs: new ShippedInputs(tokenizer, new WordPieceEncoder(vocab), vocab.length, modelConfig.maxLen),
    modelConfig,
    maxLength: modelConfig.maxLen,
    vocabSize: vocab.length,
    config,
    temperature: temperatureOf(fn, config),
    weights: { tensors, tokenizerJson },
  };
}
