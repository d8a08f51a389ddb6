// TextClassifier predicts through the pretrained-model runner (issue 33 A.3): an
// attention-wasm classifier's TinyTransformer weights become a runner descriptor
// (bindings/js/text/runner_model.js: [CLS] as word row V, sinusoids into the position table,
// pre- or post-norm, eps 1e-5, ReLU or GELU, the head on the [CLS] row). Checked against
// TinyTransformer's own forward on the same weights (probabilities within 1e-5, the same
// label, attention maps within 1e-5) and against a float64 TinyTransformer written from its
// definition (tests/helpers/model-reference.js), on the shipped model and on freshly trained
// small ones of every kind: pre and post norm, ReLU and GELU, learned and sinusoidal
// positions, causal; one text (predict) and padded batches (evaluate).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { init } from 'attention-wasm';
import { referenceModel } from './helpers/model-reference.js';
import { readReviewFiles, readSuite } from '../scripts/review-training.mjs';
import { reviewSplits } from '../web/elements/training/review-recipe.js';
import { readSafetensors, writeSafetensors } from '../bindings/js/text/safetensors_io.js';
import { wordPieceTokenizerJson, SPECIAL_TOKENS } from '../bindings/js/text/wordpiece.js';
import { classifierShapes } from '../bindings/js/text/runner_model.js';

const attn = await init({ simd: 'baseline', threads: 1 });
const FOLDER = new URL('../web/elements/models/review-sentiment/', import.meta.url);
const WEIGHTS_FORMAT = 'attention-wasm/tiny-transformer';

const softmax = (z) => {
  const top = Math.max(...z);
  const e = z.map((x) => Math.exp(x - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
};
const argmax = (p) => p.indexOf(Math.max(...p));

// A TinyTransformer holding a classifier's weights ({ name: { shape, data } }).
function tinyTransformerOf(modelConfig, tensors) {
  const model = new attn.TinyTransformer({ ...modelConfig, seed: 0 });
  model.setWeights({ format: WEIGHTS_FORMAT, version: 1, config: model.config, tensors });
  return model;
}

// softmax(logits / the classifier's calibration temperature), as predict gives them.
const calibrated = (classifier, logits) => softmax(Array.from(logits, (x) => Number(x) / classifier.temperature));

// predict against TinyTransformer.forward and the float64 reference on one text; returns the
// largest probability difference from TinyTransformer.
function comparePredict(classifier, model, weights, text, label) {
  const p = classifier.predict(text);
  const ids = p.tokens.slice(1).map((t) => t.id);
  const T = ids.length + 1;
  const ours = model.forward([ids]);
  const expected = calibrated(classifier, ours.logits.data);
  const reference = calibrated(classifier, referenceModel(weights, { tokens: [ids], targets: [0] }).logits[0]);
  const diff = Math.max(...expected.map((x, k) => Math.abs(x - p.probabilities[k])));
  assert.ok(diff <= 1e-5, `${label} "${text}": TinyTransformer ${expected} vs ${p.probabilities}`);
  p.probabilities.forEach((x, k) =>
    assert.ok(Math.abs(x - reference[k]) <= 1e-4, `${label} "${text}": float64 ${reference[k]} vs ${x}`),
  );
  assert.equal(p.labelId, argmax(expected), `${label} "${text}": the same label`);
  p.logits.forEach((x, k) =>
    assert.ok(Math.abs(x - ours.logits.data[k]) <= 1e-5 + 1e-5 * Math.abs(x), `${label} logit ${k}`),
  );
  // attention[layer][head][i][j] as TinyTransformer's [1, H, T, T].
  assert.equal(p.attention.length, model.config.numLayers);
  p.attention.forEach((layer, l) => {
    assert.equal(layer.length, model.config.numHeads);
    layer.forEach((rows, h) => {
      assert.equal(rows.length, T);
      rows.forEach((row, i) =>
        row.forEach((x, j) => {
          assert.ok(
            Math.abs(x - ours.attention[l].data[(h * T + i) * T + j]) <= 1e-5,
            `${label} attention [${l}][${h}][${i}][${j}]`,
          );
        }),
      );
    });
  });
  return diff;
}

test('classifierShapes names every tensor TinyTransformer has, with its shape and in its order', () => {
  for (const norm of ['pre', 'post'])
    for (const positional of ['learned', 'sinusoidal']) {
      const config = {
        vocabSize: 11,
        maxLen: 7,
        dModel: 8,
        numHeads: 2,
        numLayers: 3,
        dFF: 12,
        norm,
        positional,
        head: 'classify',
        numClasses: 3,
      };
      const model = new attn.TinyTransformer(config);
      assert.deepEqual(
        Object.entries(classifierShapes(model.config)),
        Object.entries(model.parameterShapes).map(([k, v]) => [k, v.slice()]),
        `${norm} ${positional}`,
      );
      model.dispose();
    }
});

test("the shipped classifier through the runner: every held-out and suite sentence gives TinyTransformer's probabilities (1e-5) and label, and the float64 reference's (1e-4)", async () => {
  const files = Object.fromEntries(
    ['config.json', 'model.safetensors'].map((n) => [n, readFileSync(new URL(n, FOLDER))]),
  );
  const config = JSON.parse(files['config.json']);
  const { tensors } = readSafetensors('test', 'model.safetensors', files['model.safetensors']);
  const named = Object.fromEntries([...tensors].map(([name, t]) => [name, { shape: t.shape, data: t.data }]));
  const modelConfig = { ...config.model, head: 'classify', numClasses: 2 };
  const model = tinyTransformerOf(modelConfig, named);
  const weights = model.getWeights();
  const classifier = await attn.TextClassifier.load(new URL('.', FOLDER).pathname);
  assert.equal(
    classifier.temperature,
    config.calibration.temperature,
    'the shipped probabilities are calibrated: softmax(logits / T)',
  );
  {
    const { heldOut } = reviewSplits(readReviewFiles().uci);
    const texts = [
      ...Object.values(heldOut)
        .flat()
        .map((r) => r.text),
      ...readSuite().map((r) => r.text),
    ];
    let worst = 0;
    // The float64 reference on every tenth text (it is slow); TinyTransformer on all.
    texts.forEach((text, i) => {
      if (i % 10 === 0) {
        worst = Math.max(worst, comparePredict(classifier, model, weights, text, 'shipped'));
        return;
      }
      const p = classifier.predict(text);
      const expected = calibrated(classifier, model.forward([p.tokens.slice(1).map((t) => t.id)]).logits.data);
      const diff = Math.max(...expected.map((x, k) => Math.abs(x - p.probabilities[k])));
      assert.ok(diff <= 1e-5, `"${text}": ${expected} vs ${p.probabilities}`);
      assert.equal(p.labelId, argmax(expected), `"${text}"`);
      worst = Math.max(worst, diff);
    });
    // A text longer than maxLen: cut to 128 tokens after [CLS], as before.
    const long = classifier.predict('good '.repeat(300));
    assert.equal(long.tokens.length, classifier.maxLength + 1);
    worst = Math.max(worst, comparePredict(classifier, model, weights, 'good '.repeat(300), 'shipped, 129 rows'));
    console.log(
      `# shipped classifier, ${texts.length + 1} texts: max |p(runner) - p(TinyTransformer)| = ${worst.toExponential(2)}`,
    );
    // Predict time, median of 50 (printed, not asserted: the machine is shared).
    for (const text of [
      'The food was not good, but the staff were lovely.',
      'I really enjoyed this movie. '.repeat(20),
    ]) {
      const times = [];
      for (let i = 0; i < 55; i++) {
        const started = performance.now();
        classifier.predict(text);
        if (i >= 5) times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.log(`# predict, ${classifier.predict(text).tokens.length} rows: median ${times[25].toFixed(2)} ms of 50`);
    }
    classifier.dispose();
    model.dispose();
  }
});

// A small vocabulary and corpus for the trained models.
const WORDS = ['a', 'good', 'great', 'fine', 'bad', 'awful', 'dull', 'film', 'not', 'very', 'plot', 'the'];
const VOCAB = [...SPECIAL_TOKENS, ...WORDS];
const TEXTS = [
  'a good film',
  'a bad film',
  'not a good film',
  'the plot',
  'very very dull',
  'a fine film , not awful',
  'good',
  'the film the plot the film a great plot not bad',
];

// The classifier folder of a TinyTransformer's weights (what TextClassifier.toFiles writes).
function filesOf(model, labels) {
  const weights = model.getWeights();
  const { vocabSize, maxLen, dModel, numHeads, numLayers, dFF, norm, activation, positional, causal } = model.config;
  const config = {
    format: 'attention-wasm/text-classifier',
    version: 1,
    id2label: Object.fromEntries(labels.map((l, i) => [String(i), l])),
    model: {
      vocabSize,
      maxLen,
      dModel,
      numHeads,
      numLayers,
      dFF,
      norm,
      activation,
      positional,
      ...(causal ? { causal } : {}),
    },
  };
  const tensors = Object.entries(weights.tensors).map(([name, t]) => ({ name, shape: t.shape, data: t.data }));
  return {
    'config.json': JSON.stringify(config),
    'tokenizer.json': JSON.stringify(wordPieceTokenizerJson(VOCAB)),
    'model.safetensors': writeSafetensors(tensors, { dtype: 'F32' }),
  };
}

// Trains a few steps on random batches, so that norms, biases and the head move off their
// initial values.
function trainRandomly(model, seed) {
  let s = seed;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  for (let step = 0; step < 30; step++) {
    const lengths = Array.from({ length: 8 }, () => 1 + Math.floor(next() * model.config.maxLen));
    const tokens = lengths.map(() =>
      Array.from({ length: model.config.maxLen }, () => SPECIAL_TOKENS.length + Math.floor(next() * WORDS.length)),
    );
    const targets = lengths.map(() => Math.floor(next() * model.config.numClasses));
    model.trainStep({ tokens, targets, lengths }, { lr: 0.02 });
  }
}

const KINDS = [
  { norm: 'pre', activation: 'gelu', positional: 'learned' },
  { norm: 'pre', activation: 'relu', positional: 'sinusoidal' },
  { norm: 'post', activation: 'gelu', positional: 'sinusoidal' },
  { norm: 'post', activation: 'relu', positional: 'learned' },
  { norm: 'pre', activation: 'relu', positional: 'learned' },
  { norm: 'post', activation: 'gelu', positional: 'learned' },
  { norm: 'pre', activation: 'gelu', positional: 'sinusoidal', causal: true },
  { norm: 'post', activation: 'relu', positional: 'sinusoidal', numHeads: 1, numLayers: 1 },
];

test("trained classifiers of every kind through the runner: predict gives TinyTransformer's probabilities, logits and attention maps, and the float64 reference's; evaluate's padded batches its labels", async () => {
  const before = attn.memory().inUseBytes;
  for (const [k, kind] of KINDS.entries()) {
    const labels = ['neg', 'pos', 'mixed'];
    const config = {
      vocabSize: VOCAB.length,
      maxLen: 12,
      dModel: 16,
      numHeads: 4,
      numLayers: 2,
      dFF: 24,
      head: 'classify',
      numClasses: 3,
      seed: 5 + k,
      ...kind,
    };
    const model = new attn.TinyTransformer(config);
    trainRandomly(model, 11 + k);
    const weights = model.getWeights();
    const label = JSON.stringify(kind);
    assert.ok(
      weights.tensors['layers.0.ln1.gamma'].data.some((g) => Math.abs(g - 1) > 1e-3),
      `${label}: the norms were trained`,
    );
    const classifier = await attn.TextClassifier.load(filesOf(model, labels));
    assert.equal(classifier.format, 'attention-wasm');
    let worst = 0;
    for (const text of TEXTS) worst = Math.max(worst, comparePredict(classifier, model, weights, text, label));
    // evaluate: batches of texts of different lengths (right-padded in the runner), labelled
    // with TinyTransformer's predictions except the first (so one lands off the diagonal).
    const predicted = TEXTS.map((text) =>
      argmax(
        Array.from(
          model.forward([
            classifier
              .predict(text)
              .tokens.slice(1)
              .map((t) => t.id),
          ]).logits.data,
        ),
      ),
    );
    const rows = TEXTS.map((text, i) => ({ text, label: labels[i === 0 ? (predicted[0] + 1) % 3 : predicted[i]] }));
    const result = classifier.evaluate(rows);
    const confusion = labels.map(() => labels.map(() => 0));
    rows.forEach((r, i) => confusion[labels.indexOf(r.label)][predicted[i]]++);
    assert.deepEqual(result.confusion, confusion, `${label}: evaluate`);
    assert.equal(result.correct, TEXTS.length - 1);
    console.log(`# ${label}: max |p(runner) - p(TinyTransformer)| = ${worst.toExponential(2)}`);
    classifier.dispose();
    model.dispose();
  }
  assert.equal(attn.memory().inUseBytes, before, 'nothing leaks');
});

test("TextClassifier.train's classifier runs in the runner: the TinyTransformer that learned it is freed, and its files read back with the same probabilities", async () => {
  const rows = [];
  for (let i = 0; i < 40; i++)
    rows.push(
      { text: `a ${['good', 'great', 'fine'][i % 3]} film ${i}`, label: 'pos' },
      { text: `a ${['bad', 'awful', 'dull'][i % 3]} film ${i}`, label: 'neg' },
    );
  const before = attn.memory().inUseBytes;
  const classifier = await attn.TextClassifier.train(rows, {
    steps: 20,
    dModel: 16,
    numHeads: 2,
    numLayers: 1,
    dFF: 32,
    vocabSize: 120,
  });
  // Held in wasm: the runner's packed weights, under twice the float32 parameters; no
  // TinyTransformer (its parameters, gradients and two AdamW moments alone are 4 × them).
  const held = attn.memory().inUseBytes - before;
  const files = classifier.toFiles({ dtype: 'F32' });
  const { tensors } = readSafetensors('test', 'model.safetensors', files['model.safetensors']);
  const named = Object.fromEntries([...tensors].map(([name, t]) => [name, { shape: t.shape, data: t.data }]));
  const parameters = Object.values(named).reduce((s, t) => s + t.data.length, 0);
  assert.ok(held > 0 && held < 2 * 4 * parameters, `${held} bytes held for ${parameters} parameters`);
  const model = tinyTransformerOf({ ...classifier.modelConfig, seed: 0 }, named);
  const weights = model.getWeights();
  for (const text of ['a good film', 'an awful film', 'qqq'])
    comparePredict(classifier, model, weights, text, 'trained');
  model.dispose();
  const again = await attn.TextClassifier.load(files);
  for (const text of ['a good film', 'an awful film'])
    assert.deepEqual(again.predict(text).probabilities, classifier.predict(text).probabilities);
  assert.deepEqual(
    Array.from(classifier.vectors([5, 6]).tokens[1]),
    Array.from(named.tokenEmbedding.data.slice(6 * 16, 7 * 16)),
  );
  assert.deepEqual(Array.from(classifier.vectors([]).cls), Array.from(named.cls.data));
  again.dispose();
  classifier.dispose();
  assert.equal(attn.memory().inUseBytes, before, 'nothing leaks');
});
