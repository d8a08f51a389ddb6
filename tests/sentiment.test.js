// The sentiment demo (issue 10, the course's seed 001 application): the synthetic corpus's
// labels against an independent rule-based labeller written here; the shipped model
// (web/elements/models/sentiment.json) against held-out sentences and hand-written ones with
// negations and contrasts; training from scratch reaches a stated accuracy within a fixed
// number of steps, the same bits twice; and <attention-sentiment> in headless Chromium
// (prediction, the [CLS] attention table, training in a Worker, axe).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { init } from 'attention-wasm';
import { startServer } from '../scripts/server.js';
import { makeCorpus, splitCorpus, tokenize, encodeBatch, VOCABULARY } from '../web/elements/training/sentiment-corpus.js';
import { SENTIMENT_CONFIG, sentimentData, trainSentiment, classify } from '../web/elements/training/sentiment-training.js';

const attn = await init({ simd: 'baseline' });
const shipped = JSON.parse(readFileSync(new URL('../web/elements/models/sentiment.json', import.meta.url), 'utf8'));

// An independent labeller: polarity words, negations flip, the clause after "but" decides.
const GOOD = /\b(good|great|wonderful|brilliant|fun|moving|excellent|amazing|superb|enjoyable|beautiful|clever|charming|funny|touching|loved|liked|enjoyed|adored|like|enjoy|love)\b/;
const BAD = /\b(bad|awful|boring|dull|terrible|weak|poor|horrible|bland|painful|messy|forgettable|silly|slow|predictable|hated|disliked|hate|dislike)\b/;
function label(text) {
  const clause = text.split(' but ').at(-1);
  const polarity = GOOD.test(clause) ? 1 : BAD.test(clause) ? -1 : 0;
  assert.notEqual(polarity, 0, `no polarity word in "${clause}"`);
  const negated = /\b(not|never|hardly)\b/.test(clause);
  return (negated ? -polarity : polarity) > 0 ? 1 : 0;
}

test('the corpus: deterministic, labels follow the rules (an independent labeller agrees on all 6,000), splits disjoint', () => {
  const corpus = makeCorpus(2026, 6000);
  assert.equal(corpus.length, 6000);
  assert.deepEqual(makeCorpus(2026, 50), corpus.slice(0, 50));
  assert.notDeepEqual(makeCorpus(7, 50), corpus.slice(0, 50));
  for (const { text, label: l } of corpus) assert.equal(l, label(text), text);
  const positive = corpus.filter((e) => e.label === 1).length / corpus.length;
  assert.ok(positive > 0.45 && positive < 0.55, `balance ${positive}`);
  assert.ok(corpus.filter((e) => / (not|never|hardly) /.test(` ${e.text} `)).length > 800, 'negations');
  assert.ok(corpus.filter((e) => e.text.includes(' but ')).length > 1000, 'contrasts');
  const { train, heldOut } = splitCorpus(corpus);
  const seen = new Set(train.map((e) => e.text));
  assert.ok(heldOut.every((e) => !seen.has(e.text)));
  assert.deepEqual([train.length, heldOut.length], [4800, 1200]);
  assert.ok(VOCABULARY.length < 150 && VOCABULARY[0] === '<pad>' && VOCABULARY[1] === '<unk>');
  // Tokenizer: case, punctuation, "n't", unknown words.
  const t = tokenize("I didn't LIKE this film, really!! (zebra)");
  assert.deepEqual(t.words, ['i', 'did', 'not', 'like', 'this', 'film', 'really', 'zebra']);
  assert.deepEqual(t.unknown, ['zebra']);
  assert.equal(t.ids.at(-1), 1);
  const b = encodeBatch([{ text: 'great', label: 1 }, { text: 'the movie was not good', label: 0 }], 16);
  assert.deepEqual(b.lengths, [1, 5]);
  assert.deepEqual(b.targets, [1, 0]);
  assert.deepEqual(b.tokens[0].slice(1), [0, 0, 0, 0]);
});

test('the shipped model: its config, size, held-out accuracy, and hand-written sentences with negations and contrasts', () => {
  assert.deepEqual(shipped.config, { ...SENTIMENT_CONFIG });
  const bytes = readFileSync(new URL('../web/elements/models/sentiment.json', import.meta.url)).length;
  assert.ok(bytes < 300 * 1024, `${bytes} bytes`);
  const model = new attn.TinyTransformer(shipped.config);
  try {
    model.setWeights(shipped);
    const { heldOut } = sentimentData();
    const { accuracy } = model.evaluate(encodeBatch(heldOut, model.config.maxLen));
    assert.ok(accuracy >= 0.99, `held-out accuracy ${accuracy}`);
    assert.equal(accuracy, shipped.trained.heldOutAccuracy, 'the file states its measured accuracy');
    const cases = [
      ['the movie was not good', 0], ['the acting was not bad', 1], ['this film was never boring', 1],
      ['the plot was dull but the acting was great', 1], ['the acting was great but the plot was dull', 0],
      ["i didn't enjoy this film", 0], ['i did not hate this movie', 1], ['honestly the ending was truly moving', 1],
      ['the soundtrack was hardly moving', 0], ['awful', 0], ['what a great movie', 1],
    ];
    for (const [text, want] of cases) {
      const p = classify(model, tokenize, text);
      assert.equal(p.label, want, `"${text}": ${p.probabilities}`);
      assert.equal(p.attention.length, 2);
      p.attention.forEach((layer) => layer.forEach((row) => assert.ok(Math.abs(row.reduce((a, c) => a + c, 0) - 1) < 1e-5)));
    }
  } finally {
    model.dispose();
  }
});

test('training from scratch: >= 97% held-out accuracy within 400 steps of batch 32, the same losses twice', () => {
  const data = sentimentData();
  const run = () => {
    const model = new attn.TinyTransformer(SENTIMENT_CONFIG);
    try {
      return [...trainSentiment(model, data, { steps: 400, every: 50 })];
    } finally {
      model.dispose();
    }
  };
  const first = run(), second = run();
  assert.deepEqual(second, first);
  const last = first.at(-1);
  console.log(`# sentiment from scratch: ${first.map((p) => `${p.step}: ${(100 * p.accuracy).toFixed(1)}%`).join(', ')}`);
  assert.ok(last.accuracy >= 0.97, `held-out accuracy after 400 steps: ${last.accuracy}`);
  assert.ok(first[0].loss > last.loss, 'the loss falls');
});

test('<attention-sentiment> in Chromium: predicts, shows the [CLS] row per head, retrains in a Worker, passes axe', async () => {
  const { server, url } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'tests'] });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${url}tests/helpers/sentiment.html`);
    await page.waitForFunction(() => document.getElementById('sent').prediction !== null, null, { timeout: 20_000 });
    const first = await page.evaluate(() => {
      const el = document.getElementById('sent');
      const rows = [...el.shadowRoot.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.title)));
      return { p: el.prediction, verdict: el.shadowRoot.querySelector('.verdict').textContent, rows };
    });
    assert.equal(first.p.label, 'positive');
    assert.match(first.verdict, /^Prediction: positive \(\d+\.\d% ; shipped model/);
    assert.equal(first.rows.length, 2, 'one row per head');
    assert.deepEqual(first.rows, first.p.attention[1], 'the table shows the last layer\'s [CLS] weights exactly');
    // Typing a negation flips the prediction.
    const input = page.locator('#sent').locator('input');
    await input.fill('the movie was not good');
    await page.waitForFunction(() => document.getElementById('sent').prediction?.text === 'the movie was not good');
    assert.equal(await page.evaluate(() => document.getElementById('sent').prediction.label), 'negative');
    // Train from scratch in a Worker; the element swaps the new model in.
    const started = Date.now();
    await page.locator('#sent').getByRole('button', { name: 'Train from scratch' }).click();
    await page.waitForFunction(() => /^Done/.test(document.getElementById('sent').shadowRoot.querySelector('[role=status]').textContent), null, { timeout: 60_000 });
    const after = await page.evaluate(() => ({ verdict: document.getElementById('sent').shadowRoot.querySelector('.verdict').textContent, label: document.getElementById('sent').prediction.label }));
    console.log(`# <attention-sentiment>: trained from scratch in a Worker in ${((Date.now() - started) / 1000).toFixed(1)} s: ${after.verdict}`);
    assert.match(after.verdict, /trained here in/);
    assert.equal(after.label, 'negative');
    await page.addScriptTag({ path: fileURLToPath(new URL('../node_modules/axe-core/axe.min.js', import.meta.url)) });
    const violations = await page.evaluate(async () => (await window.axe.run(document)).violations.filter((v) => ['serious', 'critical'].includes(v.impact)).map((v) => v.id));
    assert.deepEqual(violations, []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});
