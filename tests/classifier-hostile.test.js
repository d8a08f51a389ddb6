// TextClassifier.train on hostile corpora and settings (issue 32, items 7, 11 and 12): a
// 100 KB word and 100,000 labels no longer stall training; settings that cannot train in
// float32 are refused, and a diverging run stops with an error naming the step instead of
// returning a classifier that predicts NaN; every option is checked and named (unknown
// ones with the closest known name); and any classifier train returns reads back from its
// own files with the same predictions.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import {
  learnVocabulary,
  segment,
  WordPieceEncoder,
  wordPieceTokenizerJson,
  MAX_WORD_CHARS,
} from '../bindings/js/text/wordpiece.js';
import { exampleStream, toBatch } from '../bindings/js/text/training.js';
import { DEFAULT_VOCABULARY } from '../bindings/js/text/train_classifier.js';

const attn = await init({ simd: 'baseline', threads: 1 });

// A small two-label corpus and a small model: each training below takes well under a second.
const POSITIVE = ['good', 'great', 'fine', 'lovely', 'nice'],
  NEGATIVE = ['bad', 'awful', 'poor', 'dull', 'boring'];
const rows = [];
for (let i = 0; i < 60; i++)
  rows.push(
    { text: `a ${POSITIVE[i % 5]} film ${i}`, label: 'pos' },
    { text: `a ${NEGATIVE[i % 5]} film ${i}`, label: 'neg' },
  );
const SMALL = { steps: 5, dModel: 16, numHeads: 2, numLayers: 1, dFF: 32, vocabSize: 200 };
const train = (corpus, options = {}) => attn.TextClassifier.train(corpus, { ...SMALL, ...options });

async function timed(f) {
  const started = performance.now();
  const value = await f();
  return { value, seconds: (performance.now() - started) / 1000 };
}

function lcg(seed) {
  let s = seed;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

test(
  "a 100 KB word: one [UNK], as tokenizer.json's max_input_chars_per_word says, and left out of learning; vocabulary and training take well under 2 s (minutes before)",
  { timeout: 60_000 },
  async () => {
    assert.equal(
      wordPieceTokenizerJson(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']).model.max_input_chars_per_word,
      MAX_WORD_CHARS,
    );
    assert.equal(MAX_WORD_CHARS, 100);
    const letters = new Set(['a', '##a']);
    assert.equal(segment('a'.repeat(100), letters).length, 100, 'a word of 100 characters is spelled');
    assert.equal(segment('a'.repeat(101), letters), null, 'a word of 101 characters is [UNK]');
    const texts = rows.map((r) => r.text);
    const plain = learnVocabulary(texts, DEFAULT_VOCABULARY);
    const random = lcg(5);
    const words = {
      'one letter': 'a'.repeat(100_000),
      'a rare last letter': `${'a'.repeat(99_999)}ŧ`,
      'random letters': Array.from(
        { length: 100_000 },
        () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)],
      ).join(''),
    };
    for (const [kind, word] of Object.entries(words)) {
      const { value: vocab, seconds } = await timed(() => learnVocabulary([...texts, word, word], DEFAULT_VOCABULARY));
      console.log(`# learnVocabulary with a 100 KB word (${kind}): ${seconds.toFixed(2)} s`);
      assert.ok(seconds < 2, `${kind}: ${seconds} s`);
      assert.deepEqual(vocab, plain, `${kind}: the word adds nothing to the vocabulary`);
      const encoder = new WordPieceEncoder(vocab);
      assert.deepEqual(encoder.encode(`good ${word} film`), [
        ...encoder.encode('good'),
        encoder.unk,
        ...encoder.encode('film'),
      ]);
    }
    const { value: classifier, seconds } = await timed(() =>
      train([...rows, { text: `so ${words['a rare last letter']}`, label: 'pos' }]),
    );
    console.log(`# TextClassifier.train with a 100 KB word: ${seconds.toFixed(2)} s`);
    assert.ok(seconds < 2, `${seconds} s`);
    assert.deepEqual(
      classifier.predict(`good ${words['random letters']}`).tokens.map((t) => t.text),
      ['[CLS]', 'good', '[UNK]'],
      "the library's tokenizer agrees",
    );
    classifier.dispose();
  },
);

test(
  'labels: the example stream groups examples in one pass (100,000 labels under 2 s; 21.6 s before); more than 1,000 labels, or a label named twice, is a RangeError naming it',
  { timeout: 120_000 },
  async () => {
    const K = 100_000;
    const examples = Array.from({ length: K }, (_, i) => ({ ids: [5 + (i % 7)], label: i }));
    const { value: next, seconds } = await timed(() =>
      exampleStream(
        examples,
        { seed: 1, wordDropout: 0, unkRate: 0, junkRate: 0, lexiconRate: 0, concatRate: 0.5, contrastRate: 0 },
        {
          encode: () => [1],
          unk: 1,
          lexicon: [],
          maxLen: 16,
          numClasses: K,
        },
      ),
    );
    console.log(`# exampleStream with ${K} labels: ${seconds.toFixed(2)} s`);
    assert.ok(seconds < 2, `${seconds} s`);
    for (let i = 0; i < 200; i++) {
      const e = next();
      assert.ok(Number.isInteger(e.label) && e.label >= 0 && e.label < K);
      // One example per label: a "2-4 examples of one label" text repeats that example's ids.
      assert.ok(
        e.ids.every((id) => id === 5 + (e.label % 7)),
        `label ${e.label}: ids ${e.ids}`,
      );
    }
    for (const count of [60_000, 100_000, 1001]) {
      const many = Array.from({ length: count }, (_, i) => ({ text: `text ${i}`, label: `l${i}` }));
      const { value: error, seconds: refused } = await timed(() =>
        train(many).then(
          () => null,
          (e) => e,
        ),
      );
      console.log(`# TextClassifier.train with ${count} labels: refused in ${refused.toFixed(2)} s`);
      assert.ok(error instanceof RangeError, String(error));
      assert.match(
        error.message,
        new RegExp(`^TextClassifier\\.train: the corpus has ${count} distinct labels; a classifier takes at most 1000`),
      );
      assert.ok(refused < 2, `${refused} s`);
    }
    // 1,000 labels train, and evaluate's 1,000 × 1,000 confusion matrix is fine.
    const thousand = Array.from({ length: 2000 }, (_, i) => ({ text: `text ${i % 1000} ${i}`, label: `l${i % 1000}` }));
    const c = await train(thousand, { steps: 2 });
    assert.equal(c.labels.length, 1000);
    assert.equal(c.evaluate(thousand.slice(0, 20)).confusion.length, 1000);
    c.dispose();
    await assert.rejects(train(rows, { labels: ['pos', 'neg', 'pos'] }), {
      name: 'RangeError',
      message: /^TextClassifier\.train: options\.labels\[2\] 'pos' is there twice/,
    });
    await assert.rejects(train(rows, { labels: ['pos', 7] }), {
      name: 'TypeError',
      message: /^TextClassifier\.train: options\.labels\[1\] must be a string, got a number/,
    });
    await assert.rejects(train(rows, { labels: ['pos'] }), {
      name: 'RangeError',
      message: /options\.labels must name 2 to 1000 labels, got 1/,
    });
    await assert.rejects(train(rows, { labels: ['pos', 'neg '] }), {
      name: 'RangeError',
      message: /options\.labels\[1\] must be a label as a corpus holds it/,
    });
    await assert.rejects(train(rows, { labels: Array.from({ length: 1001 }, (_, i) => `l${i}`) }), {
      name: 'RangeError',
      message: /options\.labels must name 2 to 1000 labels, got 1001/,
    });
  },
);

test('learning rates: settings that cannot train in float32 are refused as trainStep refuses them; a diverging run stops with a RangeError naming the step; nothing leaks', async () => {
  const before = attn.memory().inUseBytes;
  await assert.rejects(train(rows, { lr: 1e30 }), {
    name: 'RangeError',
    message:
      /^TextClassifier\.train: training diverged: the loss at step 2 of 5 is NaN \(options\.lr is 1e\+30: lower it\)/,
  });
  await assert.rejects(train(rows, { lr: 1e39 }), {
    name: 'RangeError',
    message:
      /^TextClassifier\.train: options\.lr must be >= 0 and finite in float32 \(at most 3\.4e38\), got 1e\+39 \(Infinity in float32\)/,
  });
  await assert.rejects(train(rows, { lr: -1 }), {
    name: 'RangeError',
    message: /^TextClassifier\.train: options\.lr must be >= 0/,
  });
  await assert.rejects(train(rows, { lr: Infinity }), {
    name: 'RangeError',
    message: /^TextClassifier\.train: options\.lr must be >= 0 and finite/,
  });
  await assert.rejects(train(rows, { clipNorm: 1e-50 }), {
    name: 'RangeError',
    message: /^TextClassifier\.train: options\.clipNorm must be 0 \(no clipping\) or > 0 as a normal float32/,
  });
  await assert.rejects(train(rows, { lr: 1e30, weightDecay: 1e10 }), {
    name: 'RangeError',
    message: /^TextClassifier\.train: options\.lr × options\.weightDecay must be finite in float32/,
  });
  // The last update can send weights beyond float16 (the classifier's files) with every loss finite.
  await assert.rejects(train(rows, { lr: 1e7, steps: 3 }), {
    name: 'RangeError',
    message:
      /^TextClassifier\.train: training diverged: after step 3, \S+\[\d+\] is \S+ \(beyond float16's ±65504, which the classifier's files hold\); options\.lr is 10000000: lower it/,
  });
  assert.equal(attn.memory().inUseBytes, before, 'the diverged models were freed');
  const c = await train(rows);
  assert.ok(['pos', 'neg'].includes(c.predict('a good film').label), 'the module keeps working');
  c.dispose();
});

test('every option is checked before anything is learned, and named: batchSize 1e6 (a stack overflow before), lexicon entries, vocabSize, minPieceWords, and unknown options with the closest known name', async () => {
  const before = attn.memory().inUseBytes;
  const refuse = (options, name, message) => assert.rejects(train(rows, options), { name, message });
  // A batch larger than a spread's arguments: toBatch measures it with a loop.
  const big = toBatch(Array.from({ length: 300_000 }, (_, i) => ({ ids: i === 7 ? [1, 2, 3] : [1], label: 0 })));
  assert.equal(big.tokens.length, 300_000);
  assert.deepEqual(big.tokens[0], [1, 0, 0]);
  await refuse(
    { batchSize: 1e6 },
    'RangeError',
    /^TextClassifier\.train: options\.batchSize must be an integer in \[1, 4096\], got 1000000/,
  );
  await refuse({ batchSize: 2.5 }, 'RangeError', /options\.batchSize must be an integer in \[1, 4096\], got 2\.5/);
  // Lexicons.
  const lexicon = (entries, labels = ['neg', 'pos']) => ({ lexicon: { entries, labels } });
  await refuse(
    lexicon([['good', 2], 5]),
    'TypeError',
    /^TextClassifier\.train: options\.lexicon\.entries\[1\] must be a \[word, valence\] pair, got a number \(5\)/,
  );
  await refuse(
    lexicon([[3, 2]]),
    'TypeError',
    /options\.lexicon\.entries\[0\]\[0\] \(the word\) must be a string, got a number/,
  );
  await refuse(
    lexicon([['good', '2']]),
    'TypeError',
    /options\.lexicon\.entries\[0\]\[1\] \(the valence\) must be a number, got a string/,
  );
  await refuse(
    lexicon([['good', NaN]]),
    'RangeError',
    /options\.lexicon\.entries\[0\]\[1\] \(the valence\) must be finite, got NaN/,
  );
  await refuse(lexicon([['  ', 1]]), 'RangeError', /options\.lexicon\.entries\[0\]\[0\] \(the word\) is empty/);
  await refuse(
    lexicon('good'),
    'TypeError',
    /options\.lexicon must be \{ entries: \[word, valence\]\[\], labels: \[negativeLabel, positiveLabel\] \}; entries is a string/,
  );
  await refuse(
    lexicon([['good', 1]], ['neg', 'positive']),
    'RangeError',
    /options\.lexicon\.labels \["neg","positive"\] must both be labels of the corpus/,
  );
  await refuse(
    { lexicon: { entries: [], labels: ['neg', 'pos'], weight: 2 } },
    'TypeError',
    /unknown options\.lexicon key 'weight'/,
  );
  // The vocabulary's settings.
  for (const vocabSize of [-1, NaN, 1e9, 2.5, 5])
    await refuse(
      { vocabSize },
      'RangeError',
      /^TextClassifier\.train: options\.vocabSize must be an integer in \[6, 100000\]/,
    );
  await refuse(
    { vocabSize: 'abc' },
    'TypeError',
    /^TextClassifier\.train: options\.vocabSize must be a number, got a string \(abc\)/,
  );
  await refuse(
    { minPieceWords: 'x' },
    'TypeError',
    /^TextClassifier\.train: options\.minPieceWords must be a number, got a string \(x\)/,
  );
  await refuse({ minPieceWords: -1 }, 'RangeError', /options\.minPieceWords must be a non-negative integer/);
  // The rest of the recipe and the shape.
  await refuse({ steps: 0 }, 'RangeError', /options\.steps must be a positive integer/);
  await refuse({ warmup: -1 }, 'RangeError', /options\.warmup must be a non-negative integer/);
  await refuse({ seed: 2 ** 32 }, 'RangeError', /options\.seed must be an integer in \[0, 4294967295\]/);
  await refuse({ every: 0 }, 'RangeError', /options\.every must be a positive integer/);
  await refuse({ signal: 5 }, 'TypeError', /options\.signal must be an AbortSignal, got a number/);
  await refuse(
    { wordDropout: 1.5 },
    'RangeError',
    /options\.wordDropout is out of range: it must be a probability in \[0, 1\), got 1\.5/,
  );
  await refuse(
    { dModel: 15 },
    'RangeError',
    /^TextClassifier\.train: options\.dModel \(15\) must be divisible by options\.numHeads \(2\)/,
  );
  await refuse(
    { numLayers: 0.5 },
    'RangeError',
    /^TextClassifier\.train: options\.numLayers must be a positive integer/,
  );
  await refuse(
    { wordVectors: { words: ['good'], vectors: new Float32Array(8) } },
    'RangeError',
    /options\.wordVectors has 8 numbers for 1 words, but dModel is 16/,
  );
  await refuse(
    { wordVectors: { words: ['good'], vectors: new Float32Array(16).fill(NaN) } },
    'RangeError',
    /options\.wordVectors\.vectors\[0\] \(word 0\) must be finite, got NaN/,
  );
  // Unknown options: a TypeError with the closest known name, for train, load and evaluate.
  await refuse(
    { stepz: 3 },
    'TypeError',
    /^TextClassifier\.train: unknown option 'stepz' \(did you mean 'steps'\? known: format, labels/,
  );
  await refuse({ learningRate: 1 }, 'TypeError', /^TextClassifier\.train: unknown option 'learningRate' \(known: /);
  const c = await train(rows);
  const files = c.toFiles();
  await assert.rejects(attn.TextClassifier.load(files, { cach: false }), {
    name: 'TypeError',
    message:
      /^TextClassifier\.load: unknown option 'cach' \(did you mean 'cache'\? known: onProgress, fetchOptions, cache, encoder\)/,
  });
  await assert.rejects(attn.TextClassifier.load(files, null), {
    name: 'TypeError',
    message: /^TextClassifier\.load: options must be an object, got null/,
  });
  assert.throws(() => c.evaluate(rows, { formt: 'tsv' }), {
    name: 'TypeError',
    message: /^TextClassifier\.evaluate: unknown option 'formt' \(did you mean 'format'\?/,
  });
  // The same check, shared: attention's README example, and init.
  assert.throws(() => attn.attention([[1]], [[1]], [[1]], { casual: true }), {
    name: 'TypeError',
    message: /^attention: unknown option 'casual' \(did you mean 'causal'\? known: /,
  });
  await assert.rejects(init({ thread: 2 }), {
    name: 'TypeError',
    message: /^init: unknown option 'thread' \(did you mean 'threads'\?/,
  });
  // A loaded config.json's labels are checked as options.labels are.
  const config = JSON.parse(files['config.json']);
  await assert.rejects(
    attn.TextClassifier.load({
      ...files,
      'config.json': JSON.stringify({ ...config, id2label: { 0: 'pos', 1: 'pos' } }),
    }),
    { name: 'RangeError', message: /^TextClassifier\.load: config\.json's id2label\[1\] 'pos' is there twice/ },
  );
  await assert.rejects(
    attn.TextClassifier.load({
      ...files,
      'config.json': JSON.stringify({ ...config, id2label: { 0: 'neg', 2: 'pos' } }),
    }),
    {
      name: 'RangeError',
      message: /^TextClassifier\.load: config\.json's id2label must have the ids 0 to 1; 1 is missing/,
    },
  );
  c.dispose();
  assert.equal(attn.memory().inUseBytes, before, 'nothing leaks');
});

test('round trip: every classifier train returns reads back from its own toFiles() (float16) with the same labels, and from float32 files with the same probabilities', async () => {
  const texts = ['a good film', 'a bad film', 'an awful and boring film', 'great', 'qwzx', 'not a nice film at all'];
  const settings = [
    { seed: 1 },
    { seed: 2, lr: 1e-2, steps: 20 },
    { seed: 3, dModel: 32, numHeads: 4, numLayers: 2, steps: 10 },
    { seed: 4, lr: 1e3, steps: 3 },
    { seed: 5, lr: 1e7, steps: 3 },
    { seed: 6, lr: 1e5, steps: 3 },
    { seed: 7, lr: 1e30 },
  ];
  let returned = 0;
  for (const s of settings) {
    let c;
    try {
      c = await train(rows, s);
    } catch (error) {
      assert.match(error.message, /^TextClassifier\.train: training diverged/, JSON.stringify(s));
      continue;
    }
    returned++;
    const f16 = await attn.TextClassifier.load(c.toFiles());
    const f32 = await attn.TextClassifier.load(c.toFiles({ dtype: 'F32' }));
    for (const text of texts) {
      const p = c.predict(text);
      assert.ok(p.probabilities.every(Number.isFinite), `${JSON.stringify(s)} ${text}: ${p.probabilities}`);
      assert.equal(f16.predict(text).label, p.label, `${JSON.stringify(s)} ${text}: float16 files`);
      assert.deepEqual(f32.predict(text).probabilities, p.probabilities, `${JSON.stringify(s)} ${text}: float32 files`);
    }
    for (const x of [c, f16, f32]) x.dispose();
  }
  assert.ok(returned >= 4, `${returned} of ${settings.length} settings trained`);
});
