// Token names given as a property (an array of strings), as React 19 and Vue hand them over:
// each string stays one name even when it holds a comma ("1,000"), and the attribute forms
// (a comma list, a JSON array) still work. Headless Chromium, the elements as a page uses them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { elementPages } from './helpers/element-page.js';

const open = elementPages(test);

// The header cells of every <attention-matrix> inside `el` (a heatmap's grids, the steps'
// stages), keyed by the matrix's label: [column names…, row names…] as the reader sees them.
const headerTexts = (page, selector) =>
  page.evaluate((selector) => {
    const el = document.querySelector(selector);
    return [...el.shadowRoot.querySelectorAll('attention-matrix')].map((m) =>
      [...m.shadowRoot.querySelectorAll('th')].map((t) => t.textContent).filter((t) => !t.includes('\\')),
    );
  }, selector);

// Waits two frames and a little (the elements render in one requestAnimationFrame).
const drawn = (page) => page.evaluate(() => new Promise((r) => setTimeout(r, 300)));

test('<attention-heatmap>: tokens as a property keep a comma inside one label; the attribute forms still work', async () => {
  const { page, errors } = await open('heatmap-grid', 960);
  await page.evaluate(() => {
    const h = document.createElement('attention-heatmap');
    h.id = 'prop';
    document.body.append(h);
    h.weights = [
      [0.25, 0.75],
      [0.6, 0.4],
    ];
    h.tokens = ['1,000', 'cats'];
  });
  await drawn(page);
  const prop = await page.evaluate(() => {
    const h = document.getElementById('prop');
    return { tokens: h.tokens, code: h.toCode() };
  });
  assert.deepEqual(prop.tokens, ['1,000', 'cats']);
  // The one grid: columns then rows, each token once, "1,000" whole.
  assert.deepEqual(await headerTexts(page, '#prop'), [['1,000', 'cats', '1,000', 'cats']]);
  assert.match(prop.code, /heatmap\.tokens = \["1,000", "cats"\];/);

  // The lines view names the same two tokens on each side.
  await page.evaluate(() => (document.getElementById('prop').view = 'lines'));
  await drawn(page);
  const sides = await page.evaluate(() =>
    [...document.getElementById('prop').shadowRoot.querySelectorAll('svg g.token')].map(
      (g) => `${g.dataset.side}:${g.textContent}`,
    ),
  );
  assert.deepEqual(sides, ['query:1,000', 'query:cats', 'key:1,000', 'key:cats']);

  // Cross-attention names, and the attribute forms: a comma list splits, a JSON array does not.
  await page.evaluate(() => {
    const h = document.getElementById('prop');
    h.view = 'grid';
    h.tokens = null;
    h.queryTokens = ['a, b', 'c'];
    h.keyTokens = 'x,y';
  });
  await drawn(page);
  assert.deepEqual(await headerTexts(page, '#prop'), [['x', 'y', 'a, b', 'c']]);
  assert.deepEqual(await page.evaluate(() => document.getElementById('prop').tokens), null);
  await page.evaluate(() => {
    const h = document.getElementById('prop');
    h.queryTokens = null;
    h.keyTokens = null;
    h.setAttribute('tokens', 'I,am');
  });
  await drawn(page);
  assert.deepEqual(await headerTexts(page, '#prop'), [['I', 'am', 'I', 'am']]);
  await page.evaluate(() => document.getElementById('prop').setAttribute('tokens', '["x,y","z"]'));
  await drawn(page);
  assert.deepEqual(await headerTexts(page, '#prop'), [['x,y', 'z', 'x,y', 'z']]);
  // The page's own element (tokens="I,am" as HTML) is untouched.
  assert.deepEqual(await page.evaluate(() => document.querySelector('attention-heatmap').tokens), ['I', 'am']);
  assert.deepEqual(errors, []);
});

test('<attention-steps>: tokens as a property name X rows, a comma kept, without dropping data set as a property', async () => {
  const { page, errors } = await open('heatmap-grid', 960);
  const weights = await page.evaluate(async () => {
    const s = document.createElement('attention-steps');
    s.id = 'steps';
    document.body.append(s);
    s.data = {
      x: [
        [1, 0],
        [0, 1],
      ],
      wq: [
        [1, 0],
        [0, 1],
      ],
      wk: [
        [1, 0],
        [0, 1],
      ],
      wv: [
        [1, 0],
        [0, 1],
      ],
    };
    await new Promise((r) => s.addEventListener('compute', r, { once: true }));
    s.tokens = ['1,000', 'cats'];
    await new Promise((r) => setTimeout(r, 300));
    // Set together, as a framework sets its props in one go: the data survive the names.
    const t = document.createElement('attention-steps');
    t.id = 'together';
    document.body.append(t);
    t.data = s.data;
    t.tokens = ['a', 'b,c'];
    await new Promise((resolve, reject) => {
      t.addEventListener('compute', resolve, { once: true });
      setTimeout(() => reject(new Error('no compute: the names dropped the data')), 10_000);
    });
    await new Promise((r) => setTimeout(r, 300));
    return Array.from(s.stages.weights.data);
  });
  // softmax([1, 0]/√2) = [e^{1/√2}, 1] / (e^{1/√2} + 1), the data as set.
  const a = Math.exp(1 / Math.SQRT2) / (Math.exp(1 / Math.SQRT2) + 1);
  [a, 1 - a, 1 - a, a].forEach((w, i) => assert.ok(Math.abs(weights[i] - w) < 1e-6, `${i}: ${weights[i]} vs ${w}`));
  const x = await page.evaluate(() => {
    const s = document.getElementById('steps');
    const m = s.shadowRoot.querySelector('attention-matrix[data-name="X"]');
    return { tokens: s.tokens, rows: m.rowLabels, data: s.data.x };
  });
  const together = await page.evaluate(() => {
    const t = document.getElementById('together');
    return { x: t.data?.x, rows: t.shadowRoot.querySelector('attention-matrix[data-name="X"]')?.rowLabels };
  });
  assert.deepEqual(together, {
    x: [
      [1, 0],
      [0, 1],
    ],
    rows: ['a', 'b,c'],
  });
  assert.deepEqual(x.tokens, ['1,000', 'cats']);
  assert.deepEqual(x.rows, ['1,000', 'cats']);
  assert.deepEqual(x.data, [
    [1, 0],
    [0, 1],
  ]);
  assert.deepEqual(errors, []);
});

test('<token-pruning>: tokens as an array keep a comma inside one token; a comma list still splits', async () => {
  const { page, errors } = await open('pruning', 960);
  const read = () =>
    page.evaluate(async () => {
      await new Promise((r) => setTimeout(r, 500));
      const el = document.querySelector('token-pruning');
      return { tokens: el.tokens, keep: el.keep.length };
    });
  assert.deepEqual(await read(), { tokens: ['The', 'cat', 'sat', 'on', 'the', 'mat'], keep: 6 });
  await page.evaluate(() => (document.querySelector('token-pruning').tokens = ['1,000', 'cats', 'sat']));
  assert.deepEqual(await read(), { tokens: ['1,000', 'cats', 'sat'], keep: 3 });
  await page.evaluate(() => (document.querySelector('token-pruning').tokens = 'a,b'));
  assert.deepEqual(await read(), { tokens: ['a', 'b'], keep: 2 });
  assert.deepEqual(errors, []);
});
