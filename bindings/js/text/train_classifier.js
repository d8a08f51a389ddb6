// Training a text classifier's files from a corpus, without the tokenizer library: learns a
// WordPiece vocabulary (wordpiece.js), encodes with the equivalent WordPieceEncoder, and
// trains a TinyTransformer with training.js's recipe. Kept apart from text_classifier.js
// so that a Worker bundled as one classic script (Vite's default) can train: it must not
// reach @huggingface/tokenizers' dynamic import. The page reads the result back with
// TextClassifier.load(files).
import { typeError, rangeError, describe } from '../errors.js';
import { TinyTransformer } from '../tiny_transformer.js';
import { parseCorpus } from './corpus.js';
import { learnVocabulary, wordPieceTokenizerJson, WordPieceEncoder, SPECIAL_TOKENS } from './wordpiece.js';
import { writeSafetensors } from './safetensors_io.js';
import { exampleStream, trainSteps, accuracyOf, DEFAULT_RECIPE } from './training.js';

export const FORMAT = 'attention-wasm/text-classifier';
const FN_TRAIN = 'TextClassifier.train';

/** The model's shape unless train's options say otherwise (505,538 parameters with a 6,719-token vocabulary). */
export const DEFAULT_SHAPE = Object.freeze({ dModel: 64, numHeads: 4, numLayers: 2, dFF: 128, maxLen: 128 });
/** The tokenizer's learning unless train's options say otherwise. */
export const DEFAULT_VOCABULARY = Object.freeze({ vocabSize: 10000, minPieceWords: 20, singleContinuations: false });

// Option checks for train.
function checkTrainOptions(options) {
  if (options === null || typeof options !== 'object') throw typeError(FN_TRAIN, `options must be an object, got ${describe(options)}`);
  const known = ['format', 'labels', 'validation', 'vocabSize', 'minPieceWords', 'lexicon', 'wordVectors', 'dModel', 'numHeads', 'numLayers', 'dFF', 'maxLen',
    ...Object.keys(DEFAULT_RECIPE), 'every', 'onProgress', 'signal'];
  for (const key of Object.keys(options)) if (!known.includes(key)) throw typeError(FN_TRAIN, `unknown option '${key}' (known: ${known.join(', ')})`);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') throw typeError(FN_TRAIN, `options.onProgress must be a function, got ${describe(options.onProgress)}`);
  const recipe = { ...DEFAULT_RECIPE };
  for (const key of Object.keys(DEFAULT_RECIPE)) {
    if (options[key] === undefined) continue;
    const v = options[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw typeError(FN_TRAIN, `options.${key} must be a finite number, got ${describe(v)}`);
    const integer = ['steps', 'batchSize', 'warmup', 'seed'].includes(key);
    const probability = ['wordDropout', 'unkRate', 'contrastRate', 'lexiconRate', 'junkRate', 'concatRate'].includes(key);
    if ((integer && (!Number.isInteger(v) || v < (key === 'warmup' || key === 'seed' ? 0 : 1))) || (probability && (v < 0 || v >= 1)) || (!integer && !probability && v < 0)) {
      throw rangeError(FN_TRAIN, `options.${key} is out of range: ${v}`);
    }
    recipe[key] = v;
  }
  if (recipe.junkRate + recipe.lexiconRate + recipe.contrastRate + recipe.concatRate >= 1) throw rangeError(FN_TRAIN, 'options.junkRate + lexiconRate + contrastRate + concatRate must leave room for real examples (sum < 1)');
  return recipe;
}

/**
 * A sentiment lexicon for training: [word, valence] pairs (VADER's format: negative
 * valence = negative). Used with two labels only, named in `lexicon.labels` ([negative, positive]).
 */
function lexiconExamples(lexicon, encode, labelNames, unk) {
  if (!lexicon) return [];
  if (typeof lexicon !== 'object' || !Array.isArray(lexicon.entries) || !Array.isArray(lexicon.labels) || lexicon.labels.length !== 2) {
    throw typeError(FN_TRAIN, 'options.lexicon must be { entries: [word, valence][], labels: [negativeLabel, positiveLabel] }');
  }
  const [negative, positive] = lexicon.labels.map((name) => labelNames.indexOf(String(name)));
  if (negative < 0 || positive < 0) throw rangeError(FN_TRAIN, `options.lexicon.labels ${JSON.stringify(lexicon.labels)} must both be labels of the corpus (${labelNames.join(', ')})`);
  return lexicon.entries.filter(([w, v]) => typeof w === 'string' && Number.isFinite(v) && v !== 0).map(([w, v]) => ({ ids: encode(w), label: v > 0 ? positive : negative }))
    // A word the vocabulary cannot spell would teach [UNK] a sentiment: left out.
    .filter((e) => e.ids.length > 0 && !e.ids.includes(unk));
}

/** Initial token vectors: the rows of `wordVectors` ({ words, vectors [n × dim] }) for whole-word tokens. */
function initialVectors(model, vocab, wordVectors) {
  if (!wordVectors) return 0;
  const d = model.config.dModel;
  if (typeof wordVectors !== 'object' || !Array.isArray(wordVectors.words) || !(wordVectors.vectors instanceof Float32Array)) {
    throw typeError(FN_TRAIN, 'options.wordVectors must be { words: string[], vectors: Float32Array } (readWordVectors gives one)');
  }
  if (wordVectors.vectors.length !== wordVectors.words.length * d) {
    throw rangeError(FN_TRAIN, `options.wordVectors has ${wordVectors.vectors.length / Math.max(1, wordVectors.words.length)} numbers per word but dModel is ${d}`);
  }
  const row = new Map(wordVectors.words.map((w, i) => [w, i]));
  const weights = model.getWeights();
  const E = weights.tensors.tokenEmbedding.data;
  let count = 0;
  vocab.forEach((token, id) => {
    const r = row.get(token);
    if (r === undefined) return;
    for (let k = 0; k < d; k++) E[id * d + k] = wordVectors.vectors[r * d + k];
    count++;
  });
  model.setWeights(weights);
  return count;
}

// Pieces that made-up words are spelled from: word-start pieces that no text and no lexicon
// entry holds as a word, or of one or two letters ("x" of "xing"), and continuation pieces.
function fragmentsOf(vocab, words) {
  const fragments = { starts: [], continuations: [] };
  vocab.forEach((t, id) => {
    if (id < SPECIAL_TOKENS.length) return;
    if (t.startsWith('##')) fragments.continuations.push(id);
    else if ((!words.has(t) || [...t].length <= 2) && /^\p{L}+$/u.test(t)) fragments.starts.push(id);
  });
  return fragments.starts.length > 0 && fragments.continuations.length > 0 ? fragments : null;
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Trains a classifier from a corpus: learns a WordPiece tokenizer from its texts (and the
 * lexicon's words), then the transformer. Deterministic for a seed: the same corpus and
 * options give the same bits in every runtime of one build.
 * @returns {Promise<{ model: TinyTransformer, config: object, tokenizerJson: object }>}
 */
export async function trainWeights(module, corpus, options = {}) {
  const recipe = checkTrainOptions(options);
  const c = parseCorpus(FN_TRAIN, corpus, { format: options.format, labels: options.labels });
  const validation = options.validation === undefined ? null : parseCorpus(FN_TRAIN, options.validation, { labels: c.labelNames });
  const lexiconWords = options.lexicon?.entries?.map?.((e) => e?.[0]).filter((w) => typeof w === 'string') ?? [];
  const started = performance.now();
  const vocab = learnVocabulary([...c.texts, ...lexiconWords.flatMap((w) => [w, w])], {
    ...DEFAULT_VOCABULARY,
    ...(options.vocabSize !== undefined ? { vocabSize: options.vocabSize } : {}),
    ...(options.minPieceWords !== undefined ? { minPieceWords: options.minPieceWords } : {}),
  });
  const encoder = new WordPieceEncoder(vocab);
  const encode = (t) => encoder.encode(t);
  const shape = { ...DEFAULT_SHAPE };
  for (const key of Object.keys(DEFAULT_SHAPE)) if (options[key] !== undefined) shape[key] = options[key];
  const model = new TinyTransformer(module, {
    vocabSize: vocab.length, ...shape, norm: 'pre', head: 'classify', numClasses: c.labelNames.length, activation: 'gelu', positional: 'learned', seed: recipe.seed,
  });
  try {
    const initialized = initialVectors(model, vocab, options.wordVectors);
    const train = c.texts.map((t, i) => ({ ids: encode(t).slice(0, shape.maxLen), label: c.labels[i] }));
    const words = new Set([...c.texts, ...lexiconWords].flatMap((t) => t.toLowerCase().split(/[^\p{L}']+/u)));
    const next = exampleStream(train, recipe, {
      encode, unk: encoder.unk, lexicon: lexiconExamples(options.lexicon, encode, c.labelNames, encoder.unk), maxLen: shape.maxLen, numClasses: c.labelNames.length, fragments: fragmentsOf(vocab, words),
    });
    const held = validation ? validation.texts.map((t, i) => ({ ids: encode(t).slice(0, shape.maxLen), label: validation.labels[i] })) : null;
    for (const progress of trainSteps(model, next, recipe, options.every ?? 50)) {
      const report = { ...progress, seconds: (performance.now() - started) / 1000 };
      if (held) report.accuracy = accuracyOf(model, held, encoder.unk);
      options.onProgress?.(report);
      await pause();
      if (options.signal?.aborted) throw options.signal.reason ?? new DOMException('TextClassifier.train was stopped', 'AbortError');
    }
    const id2label = Object.fromEntries(c.labelNames.map((name, i) => [String(i), name]));
    const config = {
      format: FORMAT,
      version: 1,
      architectures: ['TinyTransformerForSequenceClassification'],
      model_type: 'attention-wasm-tiny-transformer',
      id2label,
      label2id: Object.fromEntries(c.labelNames.map((name, i) => [name, i])),
      model: { vocabSize: vocab.length, ...shape, norm: 'pre', activation: 'gelu', positional: 'learned' },
      training: { examples: c.texts.length, recipe, vocabulary: { ...DEFAULT_VOCABULARY, vocabSize: vocab.length }, initializedVectors: initialized, lexiconEntries: lexiconWords.length },
    };
    return { model, config, tokenizerJson: wordPieceTokenizerJson(vocab) };
  } catch (error) {
    model.dispose();
    throw error;
  }
}


/**
 * A trained model's files: { 'config.json', 'tokenizer.json', 'model.safetensors' }.
 * @param {{ model: TinyTransformer, config: object, tokenizerJson: object }} trained
 * @param {{ dtype?: 'F16' | 'F32', metrics?: object }} [options]
 */
export function classifierFiles({ model, config, tokenizerJson }, { dtype = 'F16', metrics } = {}) {
  if (dtype !== 'F16' && dtype !== 'F32') throw rangeError('TextClassifier.toFiles', `dtype must be 'F16' or 'F32', got ${describe(dtype)}`);
  const weights = model.getWeights();
  const tensors = Object.entries(weights.tensors).map(([name, t]) => ({ name, shape: t.shape, data: t.data }));
  const full = { ...config, ...(metrics ? { metrics } : {}), torch_dtype: dtype === 'F16' ? 'float16' : 'float32' };
  return {
    'config.json': `${JSON.stringify(full, null, 2)}\n`,
    'tokenizer.json': JSON.stringify(tokenizerJson),
    'model.safetensors': writeSafetensors(tensors, { dtype, metadata: { format: 'pt', producer: FORMAT } }),
  };
}
