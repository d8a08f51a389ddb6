// TextClassifier: text → label with a small transformer, as the course's application builds
// it (seed 001: text → subword tokens → indices → vectors → attention layers → [CLS] →
// linear & softmax). A classifier is a folder in Hugging Face's layout:
//   config.json       labels (id2label), the model's shape, how it was trained, its measured accuracy
//   tokenizer.json    a WordPiece tokenizer, read by @huggingface/tokenizers (loadTokenizer)
//   model.safetensors the weights (float16 or float32), named as TinyTransformer names them
// TextClassifier.train learns all three from a corpus the caller brings (TSV, CSV, JSONL).
import { typeError, rangeError, describe, show } from '../errors.js';
import { checkKeys } from '../checks.js';
import { TinyTransformer, WEIGHTS_FORMAT } from '../tiny_transformer.js';
import { loadTokenizer } from '../models/tokenizer.js';
import { sourceOf, gather } from '../models/sources.js';
import { parseCorpus, checkLabels } from './corpus.js';
import { WordPieceEncoder } from './wordpiece.js';
import { readSafetensors } from './safetensors_io.js';
import { trainWeights, classifierFiles, FORMAT } from './train_classifier.js';

export { FORMAT };
const FN_LOAD = 'TextClassifier.load';
const FN_TRAIN = 'TextClassifier.train';

const softmax = (logits) => {
  const top = Math.max(...logits);
  const e = logits.map((x) => Math.exp(x - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
};

export class TextClassifier {
  #model;
  #tokenizer;
  #encoder;
  #config;
  #tokenizerJson;
  #embedding = null;  // getWeights().tensors, read on the first vectors() call

  /**
   * Use TextClassifier.load or TextClassifier.train.
   * @param {TinyTransformer} model @param {TextTokenizer} tokenizer @param {object} tokenizerJson
   *   the tokenizer's file (a WordPiece vocabulary) @param {object} config config.json
   */
  constructor(model, tokenizer, tokenizerJson, config) {
    const vocab = vocabularyOf(tokenizerJson);
    this.#model = model;
    this.#tokenizer = tokenizer;
    this.#tokenizerJson = tokenizerJson;
    this.#encoder = new WordPieceEncoder(vocab);
    this.#config = config;
    /** Label names by class id. */
    this.labels = Object.freeze(labelsOf(FN_LOAD, config));
    /** The transformer's configuration (TinyTransformer's). */
    this.modelConfig = model.config;
    /** Tokens read per text (longer texts are cut, and predict says so). */
    this.maxLength = model.config.maxLen;
    /** The vocabulary's size. */
    this.vocabSize = vocab.length;
    /** config.json's training and metrics entries (how it was made, what it measured), or null. */
    this.training = config.training ?? null;
    this.metrics = config.metrics ?? null;
    Object.freeze(this);
  }

  #check(method) {
    try {
      this.#model.step;  // throws once disposed
    } catch {
      throw new Error(`TextClassifier.${method}: this classifier was disposed; load or train a new one`);
    }
  }

  /** The tokenizer (attn's TextTokenizer over tokenizer.json). */
  get tokenizer() {
    return this.#tokenizer;
  }

  /**
   * Classifies one text.
   * @param {string} text
   * @returns {{ label: string, labelId: number, probabilities: number[], tokens: Array<{ text: string, id: number, start: number, end: number, special: boolean }>,
   *   truncated: boolean, attention: number[][][][] }} tokens[0] is [CLS] (the model's
   *   own row, start = end = -1); attention[layer][head][i][j] is how much row i attends to row j.
   */
  predict(text) {
    const fn = 'TextClassifier.predict';
    this.#check('predict');
    if (typeof text !== 'string') throw typeError(fn, `text must be a string, got ${describe(text)}`);
    if (text.trim() === '') throw rangeError(fn, 'text is empty (give a sentence or a review)');
    const e = this.#tokenizer.encode(text, { addSpecialTokens: false });
    const n = Math.min(e.ids.length, this.maxLength);
    const unk = this.#tokenizer.tokenToId('[UNK]');
    const ids = n > 0 ? e.ids.slice(0, n) : [unk];
    const { logits: out, attention } = this.#model.forward([ids]);
    const logits = Array.from(out.data, Number);
    const probabilities = softmax(logits);
    const labelId = probabilities.indexOf(Math.max(...probabilities));
    const T = ids.length + 1;
    const tokens = [{ text: '[CLS]', id: this.#tokenizer.tokenToId('[CLS]') ?? -1, start: -1, end: -1, special: true }];
    if (n > 0) for (let i = 0; i < n; i++) tokens.push({ text: e.tokens[i], id: e.ids[i], start: e.offsets[i][0], end: e.offsets[i][1], special: false });
    else tokens.push({ text: '[UNK]', id: unk, start: -1, end: -1, special: true });
    const maps = attention.map((layer) => Array.from({ length: layer.shape[1] }, (_, h) =>
      Array.from({ length: T }, (_, i) => Array.from(layer.data.subarray((h * T + i) * T, (h * T + i + 1) * T), Number))));
    return { label: this.labels[labelId], labelId, probabilities, logits, tokens, truncated: e.ids.length > n, attention: maps };
  }

  /**
   * The vectors the model starts from: the learned [CLS] vector and each token id's
   * embedding row (before the position embedding is added), dModel numbers each.
   * @param {number[]} ids @returns {{ cls: Float32Array, tokens: Float32Array[] }}
   */
  vectors(ids) {
    const fn = 'TextClassifier.vectors';
    this.#check('vectors');
    if (!Array.isArray(ids)) throw typeError(fn, `ids must be an array of token ids, got ${describe(ids)}`);
    for (const [i, id] of ids.entries()) {
      if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize) throw rangeError(fn, `ids[${i}] must be an integer in [0, ${this.vocabSize - 1}], got ${describe(id)}`);
    }
    this.#embedding ??= this.#model.getWeights().tensors;
    const d = this.modelConfig.dModel;
    const table = this.#embedding.tokenEmbedding.data;
    return { cls: Float32Array.from(this.#embedding.cls.data), tokens: ids.map((id) => Float32Array.from(table.slice(id * d, (id + 1) * d))) };
  }

  /**
   * Accuracy on a labelled corpus (TSV, CSV, JSONL text or { text, label } rows), with the
   * confusion matrix [true label][predicted label].
   */
  evaluate(corpus, options = {}) {
    const fn = 'TextClassifier.evaluate';
    this.#check('evaluate');
    const { format } = checkKeys(fn, 'option', options, ['format']);
    const c = parseCorpus(fn, corpus, { format, labels: this.labels });
    const confusion = this.labels.map(() => this.labels.map(() => 0));
    const unk = this.#encoder.unk;
    for (let i = 0; i < c.texts.length; i += 64) {
      const rows = c.texts.slice(i, i + 64).map((t) => {
        const ids = this.#encoder.encode(t).slice(0, this.maxLength);
        return ids.length > 0 ? ids : [unk];
      });
      const L = Math.max(...rows.map((r) => r.length));
      const { logits } = this.#model.forward(rows.map((r) => Array.from({ length: L }, (_, k) => r[k] ?? 0)), { lengths: rows.map((r) => r.length) });
      const K = this.labels.length;
      rows.forEach((_, b) => {
        const row = Array.from(logits.data.subarray(b * K, (b + 1) * K));
        confusion[c.labels[i + b]][row.indexOf(Math.max(...row))]++;
      });
    }
    const correct = confusion.reduce((s, row, k) => s + row[k], 0);
    return { accuracy: correct / c.texts.length, correct, count: c.texts.length, confusion };
  }

  /**
   * The classifier as files: { 'config.json', 'tokenizer.json', 'model.safetensors' }, which
   * TextClassifier.load reads back (from this object, a folder or a URL).
   * @param {{ dtype?: 'F16' | 'F32', metrics?: object }} [options] F16 halves the size
   */
  toFiles(options = {}) {
    this.#check('toFiles');
    return classifierFiles({ model: this.#model, config: this.#config, tokenizerJson: this.#tokenizerJson }, options);
  }

  /** True once dispose() ran. */
  get disposed() {
    return this.#model.disposed;
  }

  /** Frees the model's wasm memory; every method throws afterwards. Safe to call twice. */
  dispose() {
    this.#model.dispose();
  }
}

// A WordPiece tokenizer.json's tokens, by id.
function vocabularyOf(tokenizerJson) {
  const ids = tokenizerJson.model.vocab;
  return Object.keys(ids).sort((a, b) => ids[a] - ids[b]);
}

function parseJson(fn, name, text) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw rangeError(fn, `${name} is not valid JSON (${error.message})`);
  }
}

// config.json's id2label ({ "0": name, "1": name, ... }) as names by id: ids 0 to K - 1,
// names as train's options.labels must be (distinct; 2 to MAX_LABELS).
function labelsOf(fn, config) {
  const map = config.id2label;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw rangeError(fn, 'config.json has no id2label');
  const keys = Object.keys(map);
  const labels = keys.map((_, id) => {
    if (!Object.hasOwn(map, String(id))) throw rangeError(fn, `config.json's id2label must have the ids 0 to ${keys.length - 1}; ${id} is missing`);
    return map[String(id)];
  });
  return checkLabels(fn, labels, "config.json's id2label");
}

/** The TinyTransformer config a classifier's config.json describes (checked). */
function modelConfigOf(fn, config, vocabSize) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw rangeError(fn, `config.json must hold an object, got ${describe(config)}`);
  if (config.format !== FORMAT) throw rangeError(fn, `config.json is not an attention-wasm text classifier (format ${describe(config.format)}, expected '${FORMAT}')`);
  if (config.version !== 1) throw rangeError(fn, `config.json version ${describe(config.version)} is not supported (this package reads version 1)`);
  const m = config.model;
  if (m === null || typeof m !== 'object') throw rangeError(fn, 'config.json has no "model" entry');
  const numClasses = labelsOf(fn, config).length;
  if (m.vocabSize !== vocabSize) throw rangeError(fn, `config.json says vocabSize ${show(m.vocabSize)} but tokenizer.json has ${vocabSize} tokens`);
  return { ...m, head: 'classify', numClasses };
}

// A whole file's bytes: read at once where the source has random access (a folder, Files,
// bytes), else gathered from its stream (a URL).
async function wholeFile(src, name) {
  if (typeof src.read === 'function') return src.read(name, 0, await src.size(name));
  return gather(src.stream(name));
}

/**
 * Loads a classifier: a folder path (Node), a URL prefix ('https://…/review-sentiment/'),
 * Files, or an object of file names to contents (toFiles() output).
 */
export async function loadClassifier(module, source, options = {}) {
  checkKeys(FN_LOAD, 'option', options, ['onProgress', 'fetchOptions', 'cache']);
  const src = await sourceOf(FN_LOAD, source, { onProgress: options.onProgress, fetchOptions: options.fetchOptions, cache: options.cache ?? true });
  try {
    return await loadFrom(module, src);
  } finally {
    src.close();  // a refused load stops what is still downloading
  }
}

async function loadFrom(module, src) {
  for (const name of ['config.json', 'tokenizer.json', 'model.safetensors']) {
    if (!(await src.has(name))) throw rangeError(FN_LOAD, `no ${name} in ${src.description}`);
  }
  const config = parseJson(FN_LOAD, 'config.json', await src.text('config.json'));
  const tokenizerJson = parseJson(FN_LOAD, 'tokenizer.json', await src.text('tokenizer.json'));
  const vocabMap = tokenizerJson?.model?.vocab;
  if (tokenizerJson?.model?.type !== 'WordPiece' || vocabMap === null || typeof vocabMap !== 'object') {
    throw rangeError(FN_LOAD, 'tokenizer.json must hold a WordPiece model (the tokenizers TextClassifier.train writes)');
  }
  const modelConfig = modelConfigOf(FN_LOAD, config, Object.keys(vocabMap).length);
  const { tensors } = readSafetensors(FN_LOAD, 'model.safetensors', await wholeFile(src, 'model.safetensors'));
  const tokenizer = await loadTokenizer(FN_LOAD, tokenizerJson, {}, { size: modelConfig.vocabSize, source: "config.json's model.vocabSize" });
  const model = new TinyTransformer(module, { ...modelConfig, seed: 0 });
  try {
    const weights = { format: WEIGHTS_FORMAT, version: 1, config: model.config, tensors: {} };
    for (const name of Object.keys(model.parameterShapes)) {
      const t = tensors.get(name);
      if (!t) throw rangeError(FN_LOAD, `model.safetensors has no tensor '${name}'`);
      weights.tensors[name] = { shape: t.shape, data: t.data };
    }
    for (const name of tensors.keys()) if (!Object.hasOwn(model.parameterShapes, name)) throw rangeError(FN_LOAD, `model.safetensors has a tensor '${name}' this model does not use`);
    model.setWeights(weights);
  } catch (error) {
    model.dispose();
    throw error.message?.startsWith('TinyTransformer.setWeights') ? rangeError(FN_LOAD, error.message.replace(/^TinyTransformer\.setWeights: weights\.tensors/, 'model.safetensors'), { cause: error }) : error;
  }
  return new TextClassifier(model, tokenizer, tokenizerJson, config);
}

/**
 * Trains a classifier from a corpus (see train_classifier.js) and reads its tokenizer back
 * through @huggingface/tokenizers, as load does.
 */
export async function trainClassifier(module, corpus, options = {}) {
  const trained = await trainWeights(module, corpus, options);
  try {
    const tokenizer = await loadTokenizer(FN_TRAIN, trained.tokenizerJson, {}, { size: trained.model.config.vocabSize, source: 'the trained model\'s vocabSize' });
    return new TextClassifier(trained.model, tokenizer, trained.tokenizerJson, trained.config);
  } catch (error) {
    trained.model.dispose();
    throw error;
  }
}

