// TextClassifier.train's options, checked before anything is learned or allocated: each
// wrong one is a TypeError (wrong type, unknown name) or RangeError (wrong value) naming
// TextClassifier.train and the option. The corpus, its labels and options.validation are
// corpus.js's to check; the model's shape is checked again, with the learned vocabulary's
// size, by checkModelConfig.
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys, positiveInteger, nonNegativeInteger } from '../checks.js';
import { checkModelConfig, readStepOptions } from '../model_inputs.js';
import { DEFAULT_RECIPE } from './training.js';
import { SPECIAL_TOKENS } from './wordpiece.js';

export const FN_TRAIN = 'TextClassifier.train';

/** The model's shape unless train's options say otherwise (505,538 parameters with a 6,719-token vocabulary). */
export const DEFAULT_SHAPE = Object.freeze({ dModel: 64, numHeads: 4, numLayers: 2, dFF: 128, maxLen: 128 });
/** The tokenizer's learning unless train's options say otherwise. */
export const DEFAULT_VOCABULARY = Object.freeze({ vocabSize: 10000, minPieceWords: 20, singleContinuations: false });

/**
 * options.vocabSize's range. At least one token beside the special ones. At most 100,000
 * (BERT's is 30,522): the embedding is vocabSize × dModel, 6.4 million parameters (100 MB with
 * gradients and AdamW's moments) at dModel 64, each row learned from the corpus alone.
 */
export const VOCAB_SIZE_RANGE = Object.freeze([SPECIAL_TOKENS.length + 1, 100_000]);

/**
 * The largest options.batchSize. A batch is one wasm call whose activations must fit the 2 GiB
 * heap: 4,096 texts of 20 tokens at the default shape take about 0.7 GiB. (A batch that still
 * does not fit is refused at its step by the core; see trainSteps.)
 */
export const MAX_BATCH_SIZE = 4096;

const PROBABILITIES = ['wordDropout', 'unkRate', 'contrastRate', 'lexiconRate', 'junkRate', 'concatRate'];
/** train's options (trainFiles takes toFiles' too). */
export const TRAIN_OPTIONS = [
  'format',
  'labels',
  'validation',
  'vocabSize',
  'minPieceWords',
  'lexicon',
  'wordVectors',
  ...Object.keys(DEFAULT_SHAPE),
  ...Object.keys(DEFAULT_RECIPE),
  'every',
  'onProgress',
  'signal',
];

/**
 * Checks train's options (each read once) and returns them resolved:
 * { recipe, shape, vocabulary, lexicon, wordVectors, every, onProgress, signal, format, labels, validation }.
 */
export function checkTrainOptions(options) {
  const given = checkKeys(FN_TRAIN, 'option', options, TRAIN_OPTIONS);
  const o = Object.fromEntries(TRAIN_OPTIONS.filter((key) => given[key] !== undefined).map((key) => [key, given[key]]));
  const recipe = recipeOf(o);
  const shape = shapeOf(o);
  const vocabulary = {
    ...DEFAULT_VOCABULARY,
    vocabSize: integerIn('vocabSize', o.vocabSize ?? DEFAULT_VOCABULARY.vocabSize, ...VOCAB_SIZE_RANGE),
    minPieceWords: nonNegativeInteger(
      FN_TRAIN,
      'options.minPieceWords',
      o.minPieceWords ?? DEFAULT_VOCABULARY.minPieceWords,
    ),
  };
  // The largest model these options ask for must fit the heap (the learned vocabulary can
  // only be a little larger, by characters; checked again once it is known).
  checkModelConfig(FN_TRAIN, { vocabSize: vocabulary.vocabSize, ...shape, head: 'classify', numClasses: 2 });
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function')
    throw typeError(FN_TRAIN, `options.onProgress must be a function, got ${describe(o.onProgress)}`);
  if (
    o.signal !== undefined &&
    (o.signal === null || typeof o.signal !== 'object' || typeof o.signal.aborted !== 'boolean')
  ) {
    throw typeError(FN_TRAIN, `options.signal must be an AbortSignal, got ${describe(o.signal)}`);
  }
  return {
    recipe,
    shape,
    vocabulary,
    lexicon: checkLexicon(o.lexicon),
    wordVectors: checkWordVectors(o.wordVectors, shape.dModel),
    every: positiveInteger(FN_TRAIN, 'options.every', o.every ?? 50),
    onProgress: o.onProgress,
    signal: o.signal,
    format: o.format,
    labels: o.labels,
    validation: o.validation,
  };
}

function integerIn(key, value, min, max) {
  if (typeof value !== 'number') throw typeError(FN_TRAIN, `options.${key} must be a number, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < min || value > max)
    throw rangeError(FN_TRAIN, `options.${key} must be an integer in [${min}, ${max}], got ${value}`);
  return value;
}

// The training recipe: DEFAULT_RECIPE with the options given. lr, weightDecay and clipNorm
// follow trainStep's rules (float32: lr = 1e39 is Infinity there, clipNorm = 1e-50 is 0).
function recipeOf(o) {
  const recipe = { ...DEFAULT_RECIPE };
  for (const key of Object.keys(DEFAULT_RECIPE)) {
    if (o[key] === undefined) continue;
    const v = o[key];
    if (typeof v !== 'number') throw typeError(FN_TRAIN, `options.${key} must be a number, got ${describe(v)}`);
    if (PROBABILITIES.includes(key) && !(v >= 0 && v < 1))
      throw rangeError(FN_TRAIN, `options.${key} is out of range: it must be a probability in [0, 1), got ${v}`);
    recipe[key] = v;
  }
  positiveInteger(FN_TRAIN, 'options.steps', recipe.steps);
  integerIn('batchSize', recipe.batchSize, 1, MAX_BATCH_SIZE);
  nonNegativeInteger(FN_TRAIN, 'options.warmup', recipe.warmup);
  integerIn('seed', recipe.seed, 0, 0xffffffff);
  readStepOptions(FN_TRAIN, { lr: recipe.lr, weightDecay: recipe.weightDecay, clipNorm: recipe.clipNorm });
  if (recipe.junkRate + recipe.lexiconRate + recipe.contrastRate + recipe.concatRate >= 1)
    throw rangeError(
      FN_TRAIN,
      'options.junkRate + lexiconRate + contrastRate + concatRate must leave room for real examples (sum < 1)',
    );
  return recipe;
}

function shapeOf(o) {
  const shape = { ...DEFAULT_SHAPE };
  for (const key of Object.keys(DEFAULT_SHAPE))
    if (o[key] !== undefined) shape[key] = positiveInteger(FN_TRAIN, `options.${key}`, o[key]);
  if (shape.dModel % shape.numHeads !== 0)
    throw rangeError(
      FN_TRAIN,
      `options.dModel (${shape.dModel}) must be divisible by options.numHeads (${shape.numHeads})`,
    );
  return shape;
}

const LEXICON = 'options.lexicon must be { entries: [word, valence][], labels: [negativeLabel, positiveLabel] }';

/**
 * A sentiment lexicon: { entries: [word, valence][] (VADER's format: negative valence =
 * negative; 0 is left out), labels: [negative, positive] } (labels of the corpus, checked
 * with it). Returns a copy, or null.
 */
function checkLexicon(lexicon) {
  if (lexicon === undefined) return null;
  if (lexicon === null || typeof lexicon !== 'object' || Array.isArray(lexicon))
    throw typeError(FN_TRAIN, `${LEXICON}, got ${describe(lexicon)}`);
  checkKeys(FN_TRAIN, 'options.lexicon key', lexicon, ['entries', 'labels']);
  const { entries, labels } = lexicon;
  if (!Array.isArray(entries)) throw typeError(FN_TRAIN, `${LEXICON}; entries is ${describe(entries)}`);
  if (!Array.isArray(labels) || labels.length !== 2)
    throw typeError(
      FN_TRAIN,
      `${LEXICON}; labels is ${describe(labels)}${Array.isArray(labels) ? ` of ${labels.length}` : ''}`,
    );
  const copy = entries.map((entry, i) => {
    const where = `options.lexicon.entries[${i}]`;
    if (!Array.isArray(entry) || entry.length < 2)
      throw typeError(FN_TRAIN, `${where} must be a [word, valence] pair, got ${describe(entry)}`);
    const [word, valence] = entry;
    if (typeof word !== 'string')
      throw typeError(FN_TRAIN, `${where}[0] (the word) must be a string, got ${describe(word)}`);
    if (word.trim() === '') throw rangeError(FN_TRAIN, `${where}[0] (the word) is empty`);
    if (typeof valence !== 'number')
      throw typeError(FN_TRAIN, `${where}[1] (the valence) must be a number, got ${describe(valence)}`);
    if (!Number.isFinite(valence))
      throw rangeError(FN_TRAIN, `${where}[1] (the valence) must be finite, got ${valence}`);
    return [word, valence];
  });
  return { entries: copy, labels: labels.map((name) => String(name)) };
}

/** Word vectors { words, vectors [words × dModel] } (readWordVectors gives them), or null. */
function checkWordVectors(wordVectors, dModel) {
  if (wordVectors === undefined) return null;
  if (
    wordVectors === null ||
    typeof wordVectors !== 'object' ||
    !Array.isArray(wordVectors.words) ||
    !(wordVectors.vectors instanceof Float32Array)
  ) {
    throw typeError(
      FN_TRAIN,
      `options.wordVectors must be { words: string[], vectors: Float32Array } (readWordVectors gives one), got ${describe(wordVectors)}`,
    );
  }
  const { words, vectors } = wordVectors;
  if (vectors.length !== words.length * dModel) {
    throw rangeError(
      FN_TRAIN,
      `options.wordVectors has ${vectors.length} numbers for ${words.length} words, but dModel is ${dModel} (${words.length * dModel} needed)`,
    );
  }
  const at = vectors.findIndex((v) => !Number.isFinite(v));
  if (at >= 0)
    throw rangeError(
      FN_TRAIN,
      `options.wordVectors.vectors[${at}] (word ${Math.floor(at / dModel)}) must be finite, got ${vectors[at]}`,
    );
  return { words: words.slice(), vectors };
}
