// Training a text classifier's files from a corpus, without the tokenizer library: learns a
// WordPiece vocabulary (wordpiece.js), encodes with the equivalent WordPieceEncoder, and
// trains a TinyTransformer with training.js's recipe. Kept apart from text_classifier.js
// so that a Worker bundled as one classic script (Vite's default) can train: it must not
// reach @huggingface/tokenizers' dynamic import. The page reads the result back with
// TextClassifier.load(files).
import { rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { TinyTransformer } from '../tiny_transformer.js';
import { checkModelConfig } from '../model_inputs.js';
import { parseCorpus } from './corpus.js';
import { learnVocabulary, wordPieceTokenizerJson, WordPieceEncoder, SPECIAL_TOKENS } from './wordpiece.js';
import { writeSafetensors } from './safetensors_io.js';
import { exampleStream, trainSteps, accuracyOf } from './training.js';
import { checkTrainOptions, FN_TRAIN, DEFAULT_SHAPE, DEFAULT_VOCABULARY } from './train_options.js';

export const FORMAT = 'attention-wasm/text-classifier';
/** toFiles' options. */
export const FILES_OPTIONS = ['dtype', 'metrics'];
export { DEFAULT_SHAPE, DEFAULT_VOCABULARY };

/**
 * The lexicon's training examples: each word as the vocabulary spells it, labelled
 * lexicon.labels[0] (negative valence) or [1] (positive). Used with two labels.
 */
function lexiconExamples(lexicon, encode, labelIds, unk) {
  if (!lexicon) return [];
  const [negative, positive] = labelIds;
  return (
    lexicon.entries
      .filter(([, v]) => v !== 0)
      .map(([w, v]) => ({ ids: encode(w), label: v > 0 ? positive : negative }))
      // A word the vocabulary cannot spell would teach [UNK] a sentiment: left out.
      .filter((e) => e.ids.length > 0 && !e.ids.includes(unk))
  );
}

// The lexicon's labels as class ids; both must be labels of the corpus.
function lexiconLabelIds(lexicon, labelNames) {
  if (!lexicon) return null;
  const ids = lexicon.labels.map((name) => labelNames.indexOf(name));
  if (ids.some((id) => id < 0))
    throw rangeError(
      FN_TRAIN,
      `options.lexicon.labels ${JSON.stringify(lexicon.labels)} must both be labels of the corpus (${labelNames.slice(0, 10).join(', ')}${labelNames.length > 10 ? ', …' : ''})`,
    );
  return ids;
}

/** Initial token vectors: the rows of `wordVectors` ({ words, vectors [n × dModel] }, checked) for whole-word tokens. */
function initialVectors(model, vocab, wordVectors) {
  if (!wordVectors) return 0;
  const d = model.config.dModel;
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

// float16's largest finite value, and the magnitude from which a float rounds to Infinity there.
const HALF_MAX = 65504,
  HALF_OVERFLOW = 65520;

// The first weight that toFiles' default float16 cannot hold (not finite, or rounding to
// Infinity), as { name, index, value }, or null.
function firstBeyondHalf(tensors) {
  for (const [name, t] of Object.entries(tensors)) {
    const index = t.data.findIndex((v) => !(Math.abs(v) < HALF_OVERFLOW));
    if (index >= 0) return { name, index, value: t.data[index] };
  }
  return null;
}

// After the last step: a loss can stay finite while the last update sends weights to
// Infinity or NaN (too high a learning rate), and then every prediction is NaN. Weights
// beyond float16's range are as diverged (a trained classifier's are a few units at most),
// and its files (float16 by default) could not be read back.
function checkTrainedWeights(model, recipe) {
  const bad = firstBeyondHalf(model.getWeights().tensors);
  if (bad) {
    throw rangeError(
      FN_TRAIN,
      `training diverged: after step ${recipe.steps}, ${bad.name}[${bad.index}] is ${bad.value}${Number.isFinite(bad.value) ? ` (beyond float16's ±${HALF_MAX}, which the classifier's files hold)` : ''}; options.lr is ${recipe.lr}: lower it`,
    );
  }
}

/**
 * Trains a classifier from a corpus: learns a WordPiece tokenizer from its texts (and the
 * lexicon's words), then the transformer. Deterministic for a seed: the same corpus and
 * options give the same bits in every runtime of one build.
 * @returns {Promise<{ model: TinyTransformer, config: object, tokenizerJson: object }>}
 */
export async function trainWeights(module, corpus, options = {}) {
  const o = checkTrainOptions(options);
  const { recipe, shape } = o;
  const c = parseCorpus(FN_TRAIN, corpus, { format: o.format, labels: o.labels });
  const validation = o.validation === undefined ? null : parseCorpus(FN_TRAIN, o.validation, { labels: c.labelNames });
  const lexiconLabels = lexiconLabelIds(o.lexicon, c.labelNames);
  const lexiconWords = o.lexicon?.entries.map(([w]) => w) ?? [];
  const started = performance.now();
  const vocab = learnVocabulary([...c.texts, ...lexiconWords.flatMap((w) => [w, w])], o.vocabulary);
  const encoder = new WordPieceEncoder(vocab);
  const encode = (t) => encoder.encode(t);
  const modelConfig = checkModelConfig(FN_TRAIN, {
    vocabSize: vocab.length,
    ...shape,
    norm: 'pre',
    head: 'classify',
    numClasses: c.labelNames.length,
    activation: 'gelu',
    positional: 'learned',
    seed: recipe.seed,
  });
  const model = new TinyTransformer(module, modelConfig);
  try {
    const initialized = initialVectors(model, vocab, o.wordVectors);
    const train = c.texts.map((t, i) => ({ ids: encode(t).slice(0, shape.maxLen), label: c.labels[i] }));
    const words = new Set([...c.texts, ...lexiconWords].flatMap((t) => t.toLowerCase().split(/[^\p{L}']+/u)));
    const next = exampleStream(train, recipe, {
      encode,
      unk: encoder.unk,
      lexicon: lexiconExamples(o.lexicon, encode, lexiconLabels, encoder.unk),
      maxLen: shape.maxLen,
      numClasses: c.labelNames.length,
      fragments: fragmentsOf(vocab, words),
    });
    const held = validation
      ? validation.texts.map((t, i) => ({ ids: encode(t).slice(0, shape.maxLen), label: validation.labels[i] }))
      : null;
    for (const progress of trainSteps(model, next, recipe, o.every, FN_TRAIN)) {
      const report = { ...progress, seconds: (performance.now() - started) / 1000 };
      if (held) report.accuracy = accuracyOf(model, held, encoder.unk);
      o.onProgress?.(report);
      await pause();
      if (o.signal?.aborted)
        throw o.signal.reason ?? new DOMException('TextClassifier.train was stopped', 'AbortError');
    }
    checkTrainedWeights(model, recipe);
    const id2label = Object.fromEntries(c.labelNames.map((name, i) => [String(i), name]));
    const config = {
      format: FORMAT,
      version: 1,
      architectures: ['TinyTransformerForSequenceClassification'],
      model_type: 'attention-wasm-tiny-transformer',
      id2label,
      label2id: Object.fromEntries(c.labelNames.map((name, i) => [name, i])),
      model: { vocabSize: vocab.length, ...shape, norm: 'pre', activation: 'gelu', positional: 'learned' },
      training: {
        examples: c.texts.length,
        recipe,
        vocabulary: { ...o.vocabulary, vocabSize: vocab.length },
        initializedVectors: initialized,
        lexiconEntries: lexiconWords.length,
      },
    };
    return { model, config, tokenizerJson: wordPieceTokenizerJson(vocab) };
  } catch (error) {
    model.dispose();
    throw error;
  }
}

/**
 * A classifier's files: { 'config.json', 'tokenizer.json', 'model.safetensors' }.
 * @param {{ tensors: Record<string, { shape: number[], data: ArrayLike<number> }>, config: object, tokenizerJson: object }} classifier
 *   tensors by TinyTransformer's names, in its order (getWeights().tensors)
 * @param {{ dtype?: 'F16' | 'F32', metrics?: object }} [options]
 */
export function classifierFiles({ tensors: named, config, tokenizerJson }, options) {
  const fn = 'TextClassifier.toFiles';
  const { dtype = 'F16', metrics } = checkKeys(fn, 'option', options, FILES_OPTIONS);
  if (dtype !== 'F16' && dtype !== 'F32') throw rangeError(fn, `dtype must be 'F16' or 'F32', got ${describe(dtype)}`);
  const bad = dtype === 'F16' ? firstBeyondHalf(named) : null;
  if (bad)
    throw rangeError(
      fn,
      `${bad.name}[${bad.index}] is ${bad.value}, beyond float16's ±${HALF_MAX}: write { dtype: 'F32' }`,
    );
  const tensors = Object.entries(named).map(([name, t]) => ({ name, shape: t.shape, data: t.data }));
  const full = { ...config, ...(metrics ? { metrics } : {}), torch_dtype: dtype === 'F16' ? 'float16' : 'float32' };
  return {
    'config.json': `${JSON.stringify(full, null, 2)}\n`,
    'tokenizer.json': JSON.stringify(tokenizerJson),
    'model.safetensors': writeSafetensors(tensors, { dtype, metadata: { format: 'pt', producer: FORMAT } }),
  };
}
