// TextClassifier: text → label, as the course's application builds it (seed 001: text →
// subword tokens → indices → vectors → attention layers → [CLS] → linear & softmax), run by
// the pretrained-model runner (src/model/) that runs every checkpoint. Two formats load:
//   attention-wasm's own  a folder in Hugging Face's layout: config.json (labels as id2label,
//                         the model's shape, how it was trained, its measured accuracy), a
//                         WordPiece tokenizer.json, model.safetensors (float16 or float32,
//                         TinyTransformer's tensor names); TextClassifier.train learns all
//                         three from a corpus the caller brings (shipped_classifier.js)
//   Hugging Face          any *ForSequenceClassification checkpoint loadModel runs (BERT,
//                         DistilBERT, RoBERTa, the decoder families), with its own tokenizer,
//                         for one text or a text pair (hub_classifier.js)
//   a linear probe        config.json (format 'attention-wasm/linear-probe') naming a
//                         pretrained encoder by its source, and a softmax layer's weights;
//                         TextClassifier.train(corpus, { encoder }) trains one
//                         (probe_classifier.js)
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { loadTokenizer } from '../models/tokenizer.js';
import { sourceOf } from '../models/sources.js';
import { parseCorpus } from './corpus.js';
import { trainWeights, classifierFiles, FORMAT } from './train_classifier.js';
import { isShippedClassifier, loadShipped, shippedParts } from './shipped_classifier.js';
import { isHubClassifier, loadHubClassifier, configSummary } from './hub_classifier.js';
import { isProbe, loadProbe, trainProbe } from './probe_classifier.js';

export { FORMAT };
const FN_LOAD = 'TextClassifier.load';
const FN_TRAIN = 'TextClassifier.train';
const BATCH = 64; // texts per runner call in evaluate

// Probabilities are rounded to float32 (as the runner's own are): Math.exp may differ in its
// last float64 bit between JavaScript engines (Node 20 and Chromium 156 do), float32 keeps
// one build's answer the same bits everywhere.
// With a calibration temperature T, softmax(logits / T).
const softmax = (logits, temperature = 1) => {
  const z = temperature === 1 ? logits : logits.map((x) => x / temperature);
  const top = Math.max(...z);
  const e = z.map((x) => Math.exp(x - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => Math.fround(x / sum));
};
// Each label on its own (a multi-label checkpoint's, as transformers' pipeline gives them).
const sigmoids = (logits) => logits.map((x) => Math.fround(1 / (1 + Math.exp(-x))));

// predict's input: a text, or { text, pair } (a text pair), each a non-empty string.
function readInput(fn, input) {
  if (typeof input === 'string') return { text: checkText(fn, 'text', input), pair: undefined };
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw typeError(fn, `text must be a string, got ${describe(input)} (a text pair is { text, pair })`);
  }
  const { text, pair } = checkKeys(fn, 'key', input, ['text', 'pair']);
  return { text: checkText(fn, 'text', text), pair: pair === undefined ? undefined : checkText(fn, 'pair', pair) };
}

function checkText(fn, name, value) {
  if (typeof value !== 'string') throw typeError(fn, `${name} must be a string, got ${describe(value)}`);
  if (value.trim() === '') throw rangeError(fn, `${name} is empty (give a sentence or a review)`);
  return value;
}

// Runner attention maps [1, H, T, T] per layer → attention[layer][head][i][j].
function nestedMaps(attentions, T) {
  return attentions.map((layer) =>
    Array.from({ length: layer.shape[1] }, (_, h) =>
      Array.from({ length: T }, (_, i) =>
        Array.from(layer.data.subarray((h * T + i) * T, (h * T + i + 1) * T), Number),
      ),
    ),
  );
}

export class TextClassifier {
  #runner;
  #tokenizer;
  #inputs;
  #config;
  #weights; // the attention-wasm format's tensors and tokenizer.json; null for a Hugging Face checkpoint
  #multiLabel; // config.json's problem_type is multi_label_classification: sigmoids, not a softmax
  #temperature; // config.json's calibration.temperature (1 without one)
  #write; // a linear probe's toFiles (its head and config.json), or null

  /**
   * Use TextClassifier.load or TextClassifier.train.
   * @param {object} parts from shipped_classifier.js or hub_classifier.js: { format, runner (a
   *   PretrainedModel with its classification head), tokenizer, labels, inputs, modelConfig,
   *   maxLength, vocabSize, config, weights }
   */
  constructor(parts) {
    this.#runner = parts.runner;
    this.#tokenizer = parts.tokenizer;
    this.#inputs = parts.inputs;
    this.#config = parts.config;
    this.#weights = parts.weights ?? null;
    this.#multiLabel = parts.config.problem_type === 'multi_label_classification';
    this.#temperature = parts.temperature ?? 1;
    this.#write = parts.write ?? null;
    /**
     * 'attention-wasm' (this package's format), 'hugging-face' (a Hub sequence classifier) or
     * 'linear-probe' (a softmax layer on a pretrained encoder).
     */
    this.format = parts.format;
    /** Label names by class id. */
    this.labels = Object.freeze(parts.labels.slice());
    /** The transformer's configuration (TinyTransformer's; a summary of a Hugging Face checkpoint's). */
    this.modelConfig = parts.modelConfig;
    /** Tokens read per text (longer texts are cut, and predict says so). */
    this.maxLength = parts.maxLength;
    /** The vocabulary's size. */
    this.vocabSize = parts.vocabSize;
    /** config.json's training and metrics entries (how it was made, what it measured), or null. */
    this.training = parts.config.training ?? null;
    this.metrics = parts.config.metrics ?? null;
    /** The calibration temperature T predict divides the logits by (config.json's calibration; 1 without). */
    this.temperature = this.#temperature;
    /**
     * A linear probe's encoder (the PretrainedModel it reads text with), else null. One given
     * to train or load stays the caller's: dispose() frees it only when load loaded it.
     */
    this.encoder = parts.encoder ?? null;
    Object.freeze(this);
  }

  #check(method) {
    if (this.#runner.disposed)
      throw new Error(`TextClassifier.${method}: this classifier was disposed; load or train a new one`);
  }

  /** The tokenizer (attn's TextTokenizer over tokenizer.json). */
  get tokenizer() {
    return this.#tokenizer;
  }

  /**
   * Classifies one text, or a text pair as { text, pair } (a Hugging Face pair classifier).
   * @param {string | { text: string, pair?: string }} input
   * @returns {{ label: string, labelId: number, probabilities: number[], logits: number[],
   *   tokens: Array<{ text: string, id: number, start: number, end: number, special: boolean, segment?: number }>,
   *   truncated: boolean, attention: number[][][][] }} attention[layer][head][i][j] is how much
   *   token i attends to token j. Tokens: an attention-wasm classifier's [CLS] first (its own
   *   row, start = end = -1); a checkpoint's as its tokenizer gives them (special tokens at -1);
   *   with a pair, segment 0 or 1 says whose span a token's is (-1: a special token between).
   *   Probabilities are the softmax of the logits divided by the calibration temperature
   *   (`temperature`, from config.json's calibration; 1 without one), or each logit's sigmoid
   *   for a multi-label checkpoint (problem_type 'multi_label_classification'). `logits` are
   *   the raw ones; the label is the same at any temperature.
   */
  predict(input) {
    const fn = 'TextClassifier.predict';
    this.#check('predict');
    const { text, pair } = readInput(fn, input);
    const x = this.#inputs.input(fn, text, pair);
    const out = this.#runner.forward(
      { inputIds: [x.ids], ...(x.typeIds ? { tokenTypeIds: [x.typeIds] } : {}) },
      { attentions: true },
    );
    const logits = Array.from(out.logits.data, Number);
    const probabilities = this.#multiLabel ? sigmoids(logits) : softmax(logits, this.#temperature);
    const labelId = probabilities.indexOf(Math.max(...probabilities));
    const attention = nestedMaps(out.attentions, x.ids.length);
    return {
      label: this.labels[labelId],
      labelId,
      probabilities,
      logits,
      tokens: x.tokens,
      truncated: x.truncated,
      attention,
    };
  }

  /**
   * The vectors the model starts from (an attention-wasm classifier): the learned [CLS] vector
   * and each token id's embedding row (before the position embedding is added), dModel numbers each.
   * @param {number[]} ids @returns {{ cls: Float32Array, tokens: Float32Array[] }}
   */
  vectors(ids) {
    const fn = 'TextClassifier.vectors';
    this.#check('vectors');
    if (this.#weights === null)
      throw rangeError(
        fn,
        `a ${this.format === 'linear-probe' ? "linear probe's encoder" : 'Hugging Face checkpoint'}'s embedding rows are not read back; vectors reads an attention-wasm classifier's`,
      );
    if (!Array.isArray(ids)) throw typeError(fn, `ids must be an array of token ids, got ${describe(ids)}`);
    for (const [i, id] of ids.entries()) {
      if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize)
        throw rangeError(fn, `ids[${i}] must be an integer in [0, ${this.vocabSize - 1}], got ${describe(id)}`);
    }
    const d = this.modelConfig.dModel;
    const table = this.#weights.tensors.get('tokenEmbedding').data;
    return {
      cls: this.#weights.tensors.get('cls').data.slice(),
      tokens: ids.map((id) => table.slice(id * d, (id + 1) * d)),
    };
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
    const K = this.labels.length;
    for (let i = 0; i < c.texts.length; i += BATCH) {
      const rows = c.texts.slice(i, i + BATCH).map((t) => this.#inputs.ids(t));
      const { logits } = this.#runner.forward(rows);
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
   * TextClassifier.load reads back (from this object, a folder or a URL). A linear probe's are
   * { 'config.json', 'model.safetensors' } (its head, float32; config.json names the encoder).
   * Not for a Hugging Face checkpoint (its folder is its files).
   * @param {{ dtype?: 'F16' | 'F32', metrics?: object }} [options] F16 halves the size
   */
  toFiles(options = {}) {
    this.#check('toFiles');
    if (this.#write) return this.#write(options);
    if (this.#weights === null)
      throw rangeError(
        'TextClassifier.toFiles',
        'a Hugging Face checkpoint is not written back; its folder is its files',
      );
    const tensors = Object.fromEntries(
      [...this.#weights.tensors].map(([name, t]) => [name, { shape: t.shape, data: t.data }]),
    );
    return classifierFiles({ tensors, config: this.#config, tokenizerJson: this.#weights.tokenizerJson }, options);
  }

  /** True once dispose() ran. */
  get disposed() {
    return this.#runner.disposed;
  }

  /** Frees the model's wasm memory; every method throws afterwards. Safe to call twice. */
  dispose() {
    this.#runner.dispose();
  }
}

function parseJson(fn, name, text) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw rangeError(fn, `${name} is not valid JSON (${error.message})`);
  }
}

/**
 * Loads a classifier: a folder path (Node), a URL prefix ('https://…/review-sentiment/'),
 * Files, or an object of file names to contents (toFiles() output); attention-wasm's format
 * or a Hugging Face sequence classifier, told apart by config.json.
 */
export async function loadClassifier(module, source, options = {}) {
  checkKeys(FN_LOAD, 'option', options, ['onProgress', 'fetchOptions', 'cache', 'encoder']);
  const { onProgress, fetchOptions, cache = true, encoder } = options ?? {};
  const src = await sourceOf(FN_LOAD, source, { onProgress, fetchOptions, cache });
  try {
    if (!(await src.has('config.json'))) throw rangeError(FN_LOAD, `no config.json in ${src.description}`);
    const config = parseJson(FN_LOAD, 'config.json', await src.text('config.json'));
    if (config === null || typeof config !== 'object' || Array.isArray(config))
      throw rangeError(FN_LOAD, `config.json must hold an object, got ${describe(config)}`);
    // A probe reads text through its encoder's tokenizer; every other classifier has its own.
    if (isProbe(config))
      return new TextClassifier(
        await loadProbe(module, FN_LOAD, src, config, { encoder, onProgress, fetchOptions, cache }),
      );
    if (encoder !== undefined)
      throw rangeError(FN_LOAD, "options.encoder is for a linear probe's folder; this config.json is not one");
    if (!(await src.has('tokenizer.json'))) throw rangeError(FN_LOAD, `no tokenizer.json in ${src.description}`);
    if (isShippedClassifier(config)) return new TextClassifier(await loadShipped(module, FN_LOAD, src, config));
    if (isHubClassifier(config))
      return new TextClassifier(
        await loadHubClassifier(module, source, { onProgress, fetchOptions, cache }, config, src),
      );
    throw rangeError(
      FN_LOAD,
      `config.json is neither an attention-wasm text classifier (format '${FORMAT}') nor a Hugging Face sequence classifier (architectures[0] ending in ForSequenceClassification, or id2label with a model_type loadModel runs); it has ${configSummary(config)}`,
    );
  } finally {
    src.close(); // a refused load stops what is still downloading
  }
}

/**
 * Trains a classifier from a corpus (see train_classifier.js) and reads its tokenizer back
 * through @huggingface/tokenizers, as load does; the trained weights then run in the runner
 * (the TinyTransformer that learned them is freed).
 */
export async function trainClassifier(module, corpus, options = {}) {
  // With an encoder: a linear probe on it (probe_classifier.js).
  if (options !== null && typeof options === 'object' && Object.hasOwn(options, 'encoder'))
    return new TextClassifier(await trainProbe(corpus, options));
  const trained = await trainWeights(module, corpus, options);
  let tensors, modelConfig;
  try {
    modelConfig = trained.model.config;
    tensors = new Map(
      Object.entries(trained.model.getWeights().tensors).map(([name, t]) => [
        name,
        { shape: t.shape, data: Float32Array.from(t.data) },
      ]),
    );
  } finally {
    trained.model.dispose();
  }
  const tokenizer = await loadTokenizer(
    FN_TRAIN,
    trained.tokenizerJson,
    {},
    { size: modelConfig.vocabSize, source: "the trained model's vocabSize" },
  );
  return new TextClassifier(
    shippedParts(module, FN_TRAIN, {
      config: trained.config,
      tokenizerJson: trained.tokenizerJson,
      tokenizer,
      modelConfig,
      tensors,
    }),
  );
}
