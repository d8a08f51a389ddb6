// A linear probe (issue 35, item 3): TextClassifier.train(corpus, { encoder }) trains a softmax
// layer on a loaded encoder's frozen pooled token vectors. Checked on the fixture encoders:
// the loss falls and the corpus is learned, progress events, predict's shape (tokens with
// spans, attention from the encoder) and its logits against a float64 head on embed's
// features, the same files for a seed (another seed, another head), a bit-exact round trip
// through toFiles and load (with the encoder given, or loaded from the source config.json
// names), the gradient against central finite differences, the standardisation folded into
// the head exactly, bad options refused by name before the encoder runs, an abort; and the
// same training in a Chromium Worker giving Node's head (to the last bit of Math.exp).
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { rng } from './helpers/assert.js';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';
import {
  lossAndGradient,
  standardization,
  standardize,
  foldStandardization,
  rowLogits,
} from '../bindings/js/text/linear_probe.js';

const attn = await init({ simd: 'baseline', threads: 1 });
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const encoder = await attn.loadModel(`${root}tiny-bert`);

// Sentences in the fixture tokenizer's 55-token vocabulary.
const POSITIVE = [
  'the film was great',
  'a good movie',
  'i would watch it again',
  'great great film',
  'the movie was good',
  'not bad at all',
  'a great film, i would watch it again',
  'good good movie!',
];
const NEGATIVE = [
  'the film was bad',
  'a bad movie',
  'i would not watch it',
  'not good at all',
  'the movie was not great',
  'bad bad film',
  'a bad film, i would not watch it again',
  'not great, not good.',
];
const CORPUS = [
  ...POSITIVE.map((text) => ({ text, label: 'positive' })),
  ...NEGATIVE.map((text) => ({ text, label: 'negative' })),
];
const TEXTS = ['a great film', 'the dog sat on the log', 'not bad at all!', 'attention is all you need'];
const OPTIONS = { encoder, epochs: 60, batchSize: 4, lr: 0.02, seed: 3 };

test('the loss falls, the corpus is learned, progress says each stage; predict has the shape of every classifier, its logits a float64 head on embed', async () => {
  const events = [];
  const probe = await attn.TextClassifier.train(CORPUS, { ...OPTIONS, onProgress: (e) => events.push(e) });
  assert.equal(probe.format, 'linear-probe');
  assert.deepEqual(probe.labels, ['negative', 'positive']);
  assert.equal(probe.encoder, encoder);
  const embedding = events.filter((e) => e.stage === 'embedding');
  assert.deepEqual(
    embedding.map((e) => [e.embedded, e.total]),
    [[16, 16]],
  );
  const training = events.filter((e) => e.stage === 'training');
  assert.deepEqual(
    training.map((e) => e.epoch),
    Array.from({ length: 60 }, (_, i) => i + 1),
  );
  assert.equal(training.at(-1).done, true);
  const losses = training.map((e) => e.loss);
  console.log(`# loss by epoch 1, 10, 30, 60: ${[0, 9, 29, 59].map((i) => losses[i].toFixed(4)).join(', ')}`);
  assert.ok(losses[0] < Math.log(2) + 1e-9, `the first epoch starts below chance: ${losses[0]}`);
  for (let i = 1; i < losses.length; i++)
    assert.ok(losses[i] < losses[i - 1], `epoch ${i + 1}: ${losses.slice(i - 1, i + 1)}`);
  assert.ok(losses.at(-1) < 0.5 * losses[0], `${losses.at(-1)} vs ${losses[0]}`);
  assert.equal(probe.evaluate(CORPUS).accuracy, 1);
  assert.equal(probe.training.loss, losses.at(-1));

  // predict: the encoder's tokens and attention maps, the head on its mean-pooled last layer.
  const files = probe.toFiles();
  const features = encoder.embed(TEXTS, { pooling: 'mean' });
  const forward = encoder.forward(TEXTS[0], { attentions: true });
  const p = probe.predict(TEXTS[0]);
  assert.deepEqual(
    p.tokens.map((t) => [t.text, t.start, t.end, t.special]),
    forward.tokens[0].map((t) => [t.text, t.start, t.end, t.special]),
  );
  assert.deepEqual(
    p.tokens.map((t) => t.text),
    ['[CLS]', 'a', 'great', 'film', '[SEP]'],
  );
  assert.equal(p.attention.length, 2);
  assert.equal(p.attention[0].length, 4);
  assert.deepEqual(p.attention[1][3][0], Array.from(forward.attentions[1].data.subarray(3 * 25, 3 * 25 + 5)));
  assert.ok(Math.abs(p.probabilities[0] + p.probabilities[1] - 1) < 1e-6);
  assert.equal(p.label, probe.labels[p.labelId]);
  assert.throws(() => probe.predict({ text: 'a good film', pair: 'a bad film' }), {
    name: 'RangeError',
    message: /^TextClassifier\.predict: a linear probe reads one text/,
  });
  const { weight, bias } = headOf(files);
  for (const [i, text] of TEXTS.entries()) {
    const x = features.data.subarray(i * 32, (i + 1) * 32);
    const want = rowLogits(x, 0, weight, bias, 32, 2);
    const got = probe.predict(text).logits;
    want.forEach((w, k) =>
      assert.ok(Math.abs(got[k] - w) <= 1e-5 * Math.max(1, Math.abs(w)), `${text}: ${got} vs ${want}`),
    );
  }
  probe.dispose();
  assert.equal(encoder.disposed, false, "the caller's encoder stays loaded");
});

// The head's float32 tensors from toFiles' safetensors.
function headOf(files) {
  const bytes = files['model.safetensors'];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const read = (name) => {
    const [a, b] = header[name].data_offsets;
    return new Float32Array(bytes.slice(8 + n + a, 8 + n + b).buffer);
  };
  assert.deepEqual(header['probe.weight'].shape, [32, 2]);
  return { weight: read('probe.weight'), bias: read('probe.bias') };
}

test('deterministic for a seed: the same files twice; another seed visits the examples in another order', async () => {
  const a = await attn.TextClassifier.train(CORPUS, OPTIONS);
  const b = await attn.TextClassifier.train(CORPUS, OPTIONS);
  const c = await attn.TextClassifier.train(CORPUS, { ...OPTIONS, seed: 4 });
  const [fa, fb, fc] = [a, b, c].map((p) => p.toFiles());
  assert.deepEqual(fa, fb);
  assert.notDeepEqual(headOf(fa).weight, headOf(fc).weight);
  for (const p of [a, b, c]) p.dispose();
});

test('save and load: the same predictions bit for bit (files, a folder with the encoder by its source, the encoder given); load owns only the encoder it loaded', async () => {
  const probe = await attn.TextClassifier.train(CORPUS, { ...OPTIONS, pooling: 'cls' });
  const files = probe.toFiles();
  const config = JSON.parse(files['config.json']);
  assert.equal(config.format, 'attention-wasm/linear-probe');
  assert.equal(config.pooling, 'cls');
  assert.deepEqual(config.encoder, {
    source: `${root}tiny-bert`,
    revision: null,
    modelType: 'bert',
    dModel: 32,
    vocabSize: 55,
    numLayers: 2,
  });
  assert.deepEqual(Object.keys(files).sort(), ['config.json', 'model.safetensors']);
  const folder = mkdtempSync(join(tmpdir(), 'probe-'));
  try {
    for (const [name, data] of Object.entries(files)) writeFileSync(join(folder, name), data);
    const fromFolder = await attn.TextClassifier.load(folder);
    const given = await attn.TextClassifier.load(files, { encoder });
    assert.notEqual(fromFolder.encoder, encoder, 'loaded from the source config.json names');
    assert.equal(given.encoder, encoder);
    for (const text of TEXTS) {
      const want = probe.predict(text);
      for (const other of [fromFolder, given]) {
        const got = other.predict(text);
        assert.deepEqual(got.logits, want.logits, text);
        assert.deepEqual(got.probabilities, want.probabilities, text);
        assert.deepEqual(got.attention, want.attention, text);
      }
    }
    assert.deepEqual(given.toFiles(), files, 'written back, the same bytes');
    const own = fromFolder.encoder;
    fromFolder.dispose();
    assert.equal(own.disposed, true, 'the encoder load loaded is freed with the classifier');
    given.dispose();
    assert.equal(encoder.disposed, false);
  } finally {
    rmSync(folder, { recursive: true });
    probe.dispose();
  }
});

test('a sentence embedder as the encoder (tiny-minilm-embedder), and the encoder named by Files is refused without options.encoder', async () => {
  const minilm = await attn.loadModel(`${root}tiny-minilm-embedder`);
  const probe = await attn.TextClassifier.train(CORPUS, { ...OPTIONS, encoder: minilm });
  assert.equal(probe.evaluate(CORPUS).accuracy >= 0.75, true);
  const files = probe.toFiles();
  const mismatch = await attn.TextClassifier.load(files, {
    encoder: await attn.loadModel(`${root}tiny-roberta`),
  }).catch((e) => e);
  assert.ok(mismatch instanceof RangeError);
  assert.match(
    mismatch.message,
    /^TextClassifier\.load: options\.encoder has modelType 'roberta' but the probe was trained on an encoder with 'bert'/,
  );
  const inMemory = await attn.loadModel(
    Object.fromEntries(
      ['config.json', 'tokenizer.json', 'model.safetensors'].map((n) => [n, readFileSync(`${root}tiny-bert/${n}`)]),
    ),
  );
  assert.equal(inMemory.source, null);
  const unnamed = await attn.TextClassifier.train(CORPUS, { ...OPTIONS, encoder: inMemory, epochs: 2 });
  await assert.rejects(attn.TextClassifier.load(unnamed.toFiles()), {
    name: 'RangeError',
    message: /^TextClassifier\.load: this probe's encoder was loaded from files.*pass options\.encoder/,
  });
  const reloaded = await attn.TextClassifier.load(unnamed.toFiles(), { encoder: inMemory });
  assert.deepEqual(reloaded.predict('a good film').logits, unnamed.predict('a good film').logits);
  await assert.rejects(attn.TextClassifier.load(`${root}tiny-distilbert-f16`, { encoder }), {
    name: 'RangeError',
    message: /^TextClassifier\.load: options\.encoder is for a linear probe's folder/,
  });
  for (const x of [probe, unnamed, reloaded, minilm, inMemory]) x.dispose();
});

test('the gradient against central finite differences (float64), and the standardisation folded into the head', () => {
  const random = rng(11);
  const [N, d, K] = [7, 5, 3];
  const X = Float64Array.from({ length: N * d }, () => 4 * random() - 2);
  const y = Array.from({ length: N }, (_, n) => n % K);
  const W = Float64Array.from({ length: d * K }, () => random() - 0.5);
  const b = Float64Array.from({ length: K }, () => random() - 0.5);
  const rows = [0, 2, 3, 6, 5];
  const { gW, gb } = lossAndGradient(X, y, rows, W, b, d, K);
  const h = 1e-6;
  const numeric = (p, j) => {
    const keep = p[j];
    p[j] = keep + h;
    const up = lossAndGradient(X, y, rows, W, b, d, K).loss;
    p[j] = keep - h;
    const down = lossAndGradient(X, y, rows, W, b, d, K).loss;
    p[j] = keep;
    return (up - down) / (2 * h);
  };
  let worst = 0;
  for (const [p, g] of [
    [W, gW],
    [b, gb],
  ])
    for (let j = 0; j < p.length; j++) worst = Math.max(worst, Math.abs(numeric(p, j) - g[j]));
  console.log(`# gradient vs finite differences: max |difference| ${worst.toExponential(2)}`);
  assert.ok(worst < 1e-8, `${worst}`);
  // Folded: x·W' + b' = ((x - μ)/σ)·W + b, to float32 rounding.
  const stats = standardization(X, N, d);
  const Z = standardize(X, N, d, stats);
  const { weight, bias } = foldStandardization(W, b, stats, d, K);
  for (let n = 0; n < N; n++) {
    const want = rowLogits(Z, n * d, W, b, d, K);
    const got = rowLogits(X, n * d, weight, bias, d, K);
    want.forEach((w, k) => assert.ok(Math.abs(got[k] - w) < 1e-5, `${n}, ${k}: ${got[k]} vs ${w}`));
  }
});

test('bad options: a TypeError or RangeError naming TextClassifier.train and the option, before the encoder runs; the module works after', async () => {
  const counted = await attn.loadModel(`${root}tiny-bert`);
  let calls = 0;
  const forward = counted.forward.bind(counted);
  counted.forward = (...args) => {
    calls++;
    return forward(...args);
  };
  const disposed = await attn.loadModel(`${root}tiny-bert`);
  disposed.dispose();
  const cases = [
    [{ encoder: {} }, TypeError, /options\.encoder must be a model attn\.loadModel returned/],
    [{ encoder: 'tiny-bert' }, TypeError, /options\.encoder must be a model/],
    [{ encoder: disposed }, RangeError, /options\.encoder was disposed/],
    [{ encoder: counted, pooling: 'max' }, RangeError, /options\.pooling must be 'mean' or 'cls', got "max"/],
    [{ encoder: counted, pooling: 1 }, TypeError, /options\.pooling must be 'mean' or 'cls'/],
    [{ encoder: counted, epochs: 0 }, RangeError, /options\.epochs must be a positive integer/],
    [{ encoder: counted, epochs: 2.5 }, RangeError, /options\.epochs/],
    [{ encoder: counted, epochs: 1e6 }, RangeError, /options\.epochs must be at most 10000/],
    [{ encoder: counted, lr: '0.1' }, TypeError, /options\.lr must be a number/],
    [{ encoder: counted, lr: -1 }, RangeError, /options\.lr must be a finite number above 0/],
    [{ encoder: counted, lr: NaN }, RangeError, /options\.lr/],
    [{ encoder: counted, batchSize: 0 }, RangeError, /options\.batchSize/],
    [{ encoder: counted, weightDecay: -0.1 }, RangeError, /options\.weightDecay/],
    [{ encoder: counted, seed: -1 }, RangeError, /options\.seed must be an integer in \[0, 4294967295\]/],
    [{ encoder: counted, onProgress: 1 }, TypeError, /options\.onProgress must be a function/],
    [{ encoder: counted, signal: {} }, TypeError, /options\.signal must be an AbortSignal/],
    [{ encoder: counted, dModel: 64 }, TypeError, /unknown option 'dModel'/],
  ];
  const before = attn.memory().inUseBytes;
  for (const [options, type, message] of cases) {
    await assert.rejects(attn.TextClassifier.train(CORPUS, options), (error) => {
      assert.ok(error instanceof type, `${error}`);
      assert.match(error.message, /^TextClassifier\.train: /);
      assert.match(error.message, message);
      return true;
    });
  }
  assert.equal(calls, 0, 'the encoder never ran');
  assert.equal(attn.memory().inUseBytes, before, 'nothing allocated');
  // An abort between epochs.
  const controller = new AbortController();
  await assert.rejects(
    attn.TextClassifier.train(CORPUS, {
      encoder: counted,
      signal: controller.signal,
      onProgress: (e) => e.epoch === 2 && controller.abort(),
    }),
    { name: 'AbortError' },
  );
  const probe = await attn.TextClassifier.train(CORPUS, { ...OPTIONS, encoder: counted, epochs: 3 });
  assert.equal(probe.labels.length, 2, 'the module works after');
  probe.dispose();
  counted.dispose();
});

test(
  'in a Chromium Worker: the same training gives the head and the predictions of Node (to float64 rounding)',
  { timeout: 120_000 },
  async () => {
    const probe = await attn.TextClassifier.train(CORPUS, OPTIONS);
    const want = { files: probe.toFiles(), p: probe.predict(TEXTS[0]).probabilities };
    probe.dispose();
    const { server, url } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'tests'] });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${url}tests/helpers/blank.html`);
      const run = async () => {
        const { init } = await import('/bindings/js/browser.js');
        const attn = await init({ simd: 'baseline', threads: 1 });
        const encoder = await attn.loadModel('/tests/fixtures/hf/tiny-bert/', { cache: false });
        const corpus = __CORPUS__; // eslint-disable-line no-undef
        const events = [];
        const probe = await attn.TextClassifier.train(corpus, {
          ...__OPTIONS__, // eslint-disable-line no-undef
          encoder,
          onProgress: (e) => events.push(e.stage),
        });
        const files = probe.toFiles();
        return {
          config: files['config.json'],
          head: Array.from(files['model.safetensors']),
          p: probe.predict('a great film').probabilities,
          stages: [...new Set(events)],
          worker: typeof WorkerGlobalScope === 'function',
        };
      };
      const source = run
        .toString()
        .replace('__CORPUS__', JSON.stringify(CORPUS))
        .replace('__OPTIONS__', JSON.stringify({ ...OPTIONS, encoder: undefined }));
      const result = await page.evaluate(
        (code) =>
          new Promise((resolve) => {
            const w = new Worker('/tests/helpers/run-in-worker.js', { type: 'module' });
            w.onmessage = (e) => resolve(e.data);
            w.postMessage(code);
          }),
        source,
      );
      assert.equal(result.error, undefined, result.error);
      assert.equal(result.worker, true);
      assert.deepEqual(result.stages, ['embedding', 'training']);
      const config = JSON.parse(result.config);
      const nodeConfig = JSON.parse(want.files['config.json']);
      assert.equal(config.encoder.source, '/tests/fixtures/hf/tiny-bert/');
      // Float64 training calls Math.exp and Math.log, whose last bit may differ between
      // JavaScript engines (Node 20's V8 and Chromium's do): the same within float64 rounding.
      assert.ok(Math.abs(config.training.loss - nodeConfig.training.loss) < 1e-12);
      const strip = (c) => ({ ...c, encoder: null, training: { ...c.training, loss: null } });
      assert.deepEqual(strip(config), strip(nodeConfig), 'the same training record');
      const head = (bytes) => new Float32Array(new Uint8Array(bytes).slice(-4 * (32 * 2 + 2)).buffer);
      const [got, expected] = [head(result.head), head(want.files['model.safetensors'])];
      const same = got.filter((v, i) => v === expected[i]).length;
      console.log(`# the Worker's head: ${same} of ${got.length} float32 weights the bits of Node's`);
      got.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) <= 1e-6 * Math.max(1, Math.abs(expected[i])), `${i}`));
      result.p.forEach((v, i) => assert.ok(Math.abs(v - want.p[i]) < 1e-6, `${result.p} vs ${want.p}`));
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      server.close();
    }
  },
);
