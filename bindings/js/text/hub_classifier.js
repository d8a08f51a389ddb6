// Hugging Face sequence classifiers in TextClassifier: which config.json is one, and loading
// it as loadModel loads any checkpoint, with the 'sequence-classification' head (the
// family's pooling and dense layers, labels from id2label). The classifier then reads text
// through the checkpoint's own tokenizer.json (HubInputs).
import { rangeError } from '../errors.js';
import { MODEL_TYPES } from '../models/architectures.js';
import { loadModel } from '../models/load_model.js';
import { labelsOfConfig } from './corpus.js';
import { HubInputs } from './classifier_inputs.js';

const FN_LOAD = 'TextClassifier.load';
const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);

/** The class config.architectures names first, or ''. */
const classOf = (config) => (Array.isArray(config.architectures) ? String(config.architectures[0] ?? '') : '');

/**
 * Whether config.json is a Hugging Face sequence classifier: architectures[0] ends with
 * ForSequenceClassification, or it has id2label and a model_type loadModel runs.
 */
export function isHubClassifier(config) {
  return (
    /ForSequenceClassification$/.test(classOf(config)) ||
    (isObject(config.id2label) && MODEL_TYPES.includes(config.model_type))
  );
}

/** What a config.json says it is, for the message refusing it. */
export function configSummary(config) {
  const parts = [
    `format ${JSON.stringify(config.format)}`,
    `architectures ${JSON.stringify(config.architectures)}`,
    `model_type ${JSON.stringify(config.model_type)}`,
  ];
  return parts.join(', ');
}

// loadModel's errors, named as TextClassifier.load's.
function renamed(error) {
  if (!(error instanceof RangeError || error instanceof TypeError) || !error.message.startsWith('loadModel: '))
    return error;
  return new error.constructor(`${FN_LOAD}: ${error.message.slice('loadModel: '.length)}`, { cause: error });
}

/**
 * Loads a Hugging Face sequence classifier: its labels (id2label, or LABEL_0 and LABEL_1 as
 * transformers defaults them) checked first, then the checkpoint through loadModel.
 * @param {object} src the source, opened (its config.json already read)
 * @returns {Promise<object>} the TextClassifier's parts
 */
export async function loadHubClassifier(module, source, options, config, src) {
  const labels = config.id2label == null ? ['LABEL_0', 'LABEL_1'] : labelsOfConfig(FN_LOAD, config);
  if (!(await src.has('tokenizer.json')))
    throw rangeError(
      FN_LOAD,
      `no tokenizer.json in ${src.description} (a classifier reads text through its checkpoint's tokenizer)`,
    );
  // loadModel opens the source again (config.json is read a second time: a small file).
  let model;
  try {
    model = await loadModel(module, source, { ...options, head: 'sequence-classification' });
  } catch (error) {
    throw renamed(error);
  }
  const d = model.descriptor;
  return {
    format: 'hugging-face',
    runner: model,
    tokenizer: model.tokenizer,
    labels,
    inputs: new HubInputs(model.tokenizer, d.contextLength, d.typeVocabSize > 1),
    modelConfig: Object.freeze({
      modelType: model.modelType,
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
  };
}
