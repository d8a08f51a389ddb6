// Careless and hostile attribute values on every element, in headless Chromium: each is
// answered at once (a hang guard of 1 s) by a message naming the element and the attribute (no
// blank element, no console exception, no frozen tab: some of these once froze it for minutes),
// toCode() and toJSON() keep working, and the next good value brings the element back.
// Also the page's URL state: a bad or oversized #state leaves the page working.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// [tag, bad attributes, what the message must say, good attributes]
const CASES = [
  ['attention-matrix', { value: '[[1,2],[3' }, /attention-matrix: value is not JSON/, { value: '[[1,2],[3,4]]' }],
  [
    'attention-matrix',
    { value: '[[1,2],[3]]' },
    /attention-matrix: value must be rectangular/,
    { value: '[[1,2],[3,4]]' },
  ],
  [
    'attention-matrix',
    { value: '{"shape":[100000,100000],"data":[]}' },
    /attention-matrix: value is 100000 × 100000 = 10000000000 cells, more than the 1048576/,
    { value: '[[1,2],[3,4]]' },
  ],
  [
    'attention-heatmap',
    { example: '999' },
    /^attention-heatmap: example must be a whole number from 1 to 4, got "999"$/,
    { example: '2' },
  ],
  // The scalar attributes (web/elements/attributes.js): one message, the element drawn on.
  [
    'attention-heatmap',
    { weights: '[[[0.5,0.5],[0.2,0.8]],[[1,0],[0,1]]]', view: 'lines', head: '2' },
    /^attention-heatmap: head must be a whole number from 0 to 1 or one of average, all, got "2"$/,
    { weights: '[[[0.5,0.5],[0.2,0.8]],[[1,0],[0,1]]]', view: 'lines', head: '1' },
  ],
  [
    'attention-heatmap',
    { view: 'line', example: '1' },
    /^attention-heatmap: view must be one of grid, lines, got "line"$/,
    { view: 'lines', example: '1' },
  ],
  [
    'attention-matrix',
    { value: '[[1]]', precision: '12' },
    /^attention-matrix: precision must be a whole number from 0 to 8, got "12"$/,
    { value: '[[1]]', precision: '2' },
  ],
  [
    'attention-matrix',
    { value: '[[1]]', heat: 'hot' },
    /^attention-matrix: heat must be one of sequential, diverging, got "hot"$/,
    { value: '[[1]]', heat: 'diverging' },
  ],
  ['attention-flash', { block: '0' }, /^attention-flash: block must be a whole number ≥ 1, got "0"$/, { block: '3' }],
  [
    'positional-encoding',
    { kind: 'ropes' },
    /^positional-encoding: kind must be one of sinusoidal, rope, alibi, laplacian, got "ropes"$/,
    { kind: 'rope' },
  ],
  [
    'attention-steps',
    { example: '1', precision: 'x' },
    /^attention-steps: precision must be a whole number from 0 to 8, got "x"$/,
    { example: '1', precision: '3' },
  ],
  [
    'attention-steps',
    { example: '5' },
    /^attention-steps: example must be a whole number from 1 to 4, got "5"$/,
    { example: '1' },
  ],
  [
    'attention-heatmap',
    { weights: 'nope' },
    /attention-heatmap: weights is not JSON/,
    { weights: '[[0.5,0.5],[0.2,0.8]]' },
  ],
  [
    'attention-heatmap',
    { weights: '{"shape":[10000000,0,0],"data":[]}' },
    /attention-heatmap: the number of heads in weights is 10000000, more than the 64/,
    { weights: '[[0.5,0.5],[0.2,0.8]]' },
  ],
  [
    'attention-heatmap',
    { weights: '{"data":[1,2],"shape":"x"}' },
    /attention-heatmap: weights\.shape must be/,
    { weights: '[[0.5,0.5],[0.2,0.8]]' },
  ],
  [
    'attention-flash',
    { q: '[[1,0]', k: '[[1,0]]', v: '[[1]]' },
    /attention-flash: q is not JSON/,
    { q: '[[1,0]]', k: '[[1,0]]', v: '[[1]]' },
  ],
  [
    'attention-flash',
    { q: '5', k: '[[1,0]]', v: '[[1]]' },
    /attention-flash: q must be rows of numbers/,
    { q: '[[1,0]]', k: '[[1,0]]', v: '[[1]]' },
  ],
  [
    'attention-flash',
    { q: '[]', k: '[[1,0]]', v: '[[1]]' },
    /attention-flash: q must be rows of numbers/,
    { q: '[[1,0]]', k: '[[1,0]]', v: '[[1]]' },
  ],
  [
    'attention-flash',
    { q: '[[1,0]]' },
    /attention-flash: q given without k and v/,
    { q: '[[1,0]]', k: '[[1,0]]', v: '[[1]]' },
  ],
  ['token-pruning', { dim: '1e9' }, /token-pruning: dim must be a whole number from 1 to 64, got "1e9"/, { dim: '4' }],
  ['token-pruning', { dim: 'Infinity' }, /token-pruning: dim must be a whole number/, { dim: '4' }],
  ['token-pruning', { dim: '2.5' }, /token-pruning: dim must be a whole number/, { dim: '3' }],
  [
    'token-pruning',
    { tokens: Array.from({ length: 3000 }, (_, i) => `t${i}`).join(',') },
    /token-pruning: tokens is 3000 tokens, more than the 64/,
    { tokens: 'a,b,c' },
  ],
  ['attention-steps', { x: '[[1,0],[0' }, /attention-steps: x is not JSON/, { x: '[[1,0],[0,1]]' }],
  [
    'attention-steps',
    { x: JSON.stringify([Array(3000).fill(1), Array(3000).fill(2)]) },
    /attention-steps: x's column count is 3000, more than the 32/,
    { x: '[[1,0],[0,1]]' },
  ],
  [
    'attention-steps',
    { x: '[[1,0],[0,1]]', mask: 'diagonal' },
    /attention-steps: mask must be JSON rows or one of none, causal/,
    { x: '[[1,0],[0,1]]', mask: 'causal' },
  ],
];

let server, url, browser, page;
const errors = [];
test.before(async () => {
  ({ server, url } = await startServer({
    port: 0,
    served: ['web', 'bindings', 'dist', 'tests', 'bench'],
    docs: false,
  }));
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  await page.goto(`${url}tests/helpers/blank.html`);
  await page.evaluate(async () => {
    await import('/web/elements/index.js');
    await (await import('/web/elements/api.js')).getApi();
  });
});
test.after(async () => {
  await browser?.close();
  server?.close();
});

for (const [tag, bad, message, good] of CASES) {
  test(`${tag} ${JSON.stringify(bad).slice(0, 70)}: a message (no freeze), then recovery`, async () => {
    const result = await page.evaluate(
      async ({ tag, bad, good }) => {
        const el = document.createElement(tag);
        document.body.append(el);
        await new Promise((resolve) => setTimeout(resolve, 50)); // its first render
        const t0 = performance.now();
        for (const [name, value] of Object.entries(bad)) el.setAttribute(name, value);
        const seen = () => el.shadowRoot.querySelector('[role="alert"]')?.textContent;
        while (!seen() && performance.now() - t0 < 2000) await new Promise((resolve) => setTimeout(resolve, 5));
        const ms = performance.now() - t0;
        const shown = seen();
        const code = el.toCode?.();
        const json = JSON.stringify(el.toJSON?.());
        for (const name of Object.keys(bad)) el.removeAttribute(name);
        for (const [name, value] of Object.entries(good)) el.setAttribute(name, value);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const after = el.shadowRoot.querySelector('[role="alert"]')?.textContent ?? null;
        const content = el.shadowRoot.textContent.length;
        el.remove();
        return { ms, shown, code, json, after, content };
      },
      { tag, bad, good },
    );
    assert.match(result.shown ?? '', message);
    // A hang guard for a freezing input (which once took 24-90 s), not a speed target: the
    // message comes in a few ms, but a loaded 2-core machine took 281 ms once, past the
    // 100 ms this bound was.
    assert.ok(result.ms < 1000, `answered in ${result.ms.toFixed(1)} ms`);
    assert.equal(typeof result.code, 'string', 'toCode() works in the error state');
    assert.equal(typeof result.json, 'string', 'toJSON() works in the error state');
    assert.equal(result.after, null, `recovered: ${result.after}`);
    assert.ok(result.content > 0);
    assert.deepEqual(errors, []);
  });
}

test('a bad attribute value keeps the controls: <attention-heatmap head="x"> keeps its buttons and head menu; <token-pruning dim="0"> its checkboxes', async () => {
  const result = await page.evaluate(async () => {
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    const heatmap = document.createElement('attention-heatmap');
    heatmap.setAttribute('weights', '[[[0.5,0.5],[0.2,0.8]],[[1,0],[0,1]]]');
    heatmap.setAttribute('view', 'lines');
    heatmap.setAttribute('head', 'x');
    const pruning = document.createElement('token-pruning');
    pruning.setAttribute('dim', '0');
    document.body.append(heatmap, pruning);
    await settle();
    const seen = (el) => ({
      alert: el.shadowRoot.querySelector('[role="alert"]')?.textContent ?? null,
      buttons: el.shadowRoot.querySelectorAll('button').length,
      selects: el.shadowRoot.querySelectorAll('select').length,
      boxes: el.shadowRoot.querySelectorAll('input[type="checkbox"]').length,
      lines: el.shadowRoot.querySelectorAll('svg line').length,
    });
    const out = { heatmap: { ...seen(heatmap), error: heatmap.error?.message }, pruning: seen(pruning) };
    heatmap.setAttribute('head', '1');
    pruning.setAttribute('dim', '5');
    await settle();
    out.heatmapAfter = seen(heatmap);
    out.pruningAfter = { ...seen(pruning), dim: pruning.result.x.shape[1] };
    heatmap.remove();
    pruning.remove();
    return out;
  });
  assert.equal(
    result.heatmap.alert,
    'attention-heatmap: head must be a whole number from 0 to 1 or one of average, all, got "x"',
  );
  assert.equal(result.heatmap.error, result.heatmap.alert, 'element.error holds it');
  assert.ok(result.heatmap.buttons >= 1, 'the view toggle and the export buttons stay');
  assert.equal(result.heatmap.selects, 1, 'the head menu stays');
  assert.equal(result.heatmap.lines, 4, 'drawn with the default (the average of heads)');
  assert.equal(result.heatmapAfter.alert, null);
  assert.equal(result.pruning.alert, 'token-pruning: dim must be a whole number from 1 to 64, got "0"');
  assert.equal(result.pruning.boxes, 6);
  assert.equal(result.pruningAfter.alert, null);
  assert.equal(result.pruningAfter.dim, 5);
  assert.deepEqual(errors, []);
});

test('<attention-heatmap> on a page with tokens but no weights says what to give; inside another element it stays empty until handed its weights', async () => {
  const result = await page.evaluate(async () => {
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    const bare = document.createElement('attention-heatmap');
    bare.setAttribute('tokens', 'The,cat,sat');
    const host = document.createElement('div');
    host.attachShadow({ mode: 'open' });
    const inner = document.createElement('attention-heatmap');
    host.shadowRoot.append(inner);
    document.body.append(bare, host);
    await settle();
    const out = { bare: bare.shadowRoot.textContent, inner: inner.shadowRoot.textContent };
    bare.weights = [
      [1, 0, 0],
      [0.5, 0.5, 0],
      [0.2, 0.3, 0.5],
    ];
    await settle();
    out.after = {
      hint: bare.shadowRoot.textContent.includes('No attention weights'),
      rects: bare.shadowRoot.querySelectorAll('attention-matrix, svg, table, canvas').length,
    };
    bare.remove();
    host.remove();
    return out;
  });
  assert.match(result.bare, /^No attention weights to show yet: give weights="\[\[…\],\[…\]\]".*example="1" to "4"/);
  assert.equal(result.inner, '', 'an embedded heatmap waits for its host');
  assert.equal(result.after.hint, false, 'the hint goes once it has weights');
  assert.ok(result.after.rects > 0, 'drawn once it has weights');
  assert.deepEqual(errors, []);
});

test('a 1000 × 1000 matrix draws to a canvas with a summary (no freeze); 100 × 100 too; 32 × 32 stays a table', async (t) => {
  const result = await page.evaluate(async () => {
    const out = {};
    for (const n of [1000, 100, 32]) {
      const el = document.createElement('attention-matrix');
      document.body.append(el);
      const value = { data: Float32Array.from({ length: n * n }, (_, i) => Math.sin(i)), shape: [n, n] };
      const t0 = performance.now();
      el.value = value;
      out[n] = {
        ms: performance.now() - t0,
        canvas: Boolean(el.shadowRoot.querySelector('canvas')),
        cells: el.shadowRoot.querySelectorAll('td').length,
        label: el.shadowRoot.querySelector('canvas')?.getAttribute('aria-label') ?? null,
      };
      el.remove();
    }
    return out;
  });
  assert.equal(result[1000].canvas, true);
  assert.equal(result[1000].cells, 0);
  assert.match(result[1000].label, /^matrix, 1000 by 1000, drawn as colours: min −1\.0000, max 1\.0000$/);
  // Not a speed target (that is the benchmark's job): a bound far below the 30-60 s freeze
  // a table of 1,000,000 cells caused.
  assert.ok(result[1000].ms < 2000, `1000 × 1000 in ${result[1000].ms.toFixed(0)} ms`);
  t.diagnostic(
    `1000 × 1000 matrix drawn in ${result[1000].ms.toFixed(0)} ms, 100 × 100 in ${result[100].ms.toFixed(1)} ms`,
  );
  assert.equal(result[100].canvas, true);
  assert.equal(result[32].cells, 1024);
});

test('the page with a bad or oversized #state: the status line and the URL sync still work', async () => {
  for (const state of [
    '{"ex1":{"x":"abc"}}',
    JSON.stringify({ ex1: { x: Array.from({ length: 400 }, () => [1, 2, 3]) } }),
  ]) {
    const p = await browser.newPage();
    const pageErrors = [];
    p.on('pageerror', (e) => pageErrors.push(e.message));
    await p.goto(`${url}web/#state=${encodeURIComponent(state)}`);
    await p.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30_000 });
    assert.match(await p.textContent('#status'), /loaded/);
    assert.deepEqual(pageErrors, []);
    await p.close();
  }
});

test('<attention-sentiment> with weights that do not fit: a message, no classifier kept (no random-weight answers), every byte freed', async () => {
  // A classifier folder whose config.json disagrees with its weights (dModel 32, weights of 64).
  const shipped = fileURLToPath(new URL('../web/elements/models/review-sentiment/', import.meta.url));
  await page.route('**/bad-classifier/*', async (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    if (name !== 'config.json') return route.fulfill({ path: `${shipped}${name}` });
    const config = JSON.parse(readFileSync(`${shipped}config.json`, 'utf8'));
    return route.fulfill({
      contentType: 'application/json',
      body: JSON.stringify({ ...config, model: { ...config.model, dModel: 32 } }),
    });
  });
  const result = await page.evaluate(async () => {
    const attn = await (await import('/web/elements/api.js')).getApi();
    const before = attn.memory().inUseBytes;
    const el = document.createElement('attention-sentiment');
    el.setAttribute('eager', '');
    el.setAttribute('model', '/bad-classifier/');
    document.body.append(el);
    const t0 = performance.now();
    while (!el.shadowRoot.querySelector('[role="alert"]') && performance.now() - t0 < 20_000)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const out = {
      message: el.shadowRoot.querySelector('[role="alert"]')?.textContent ?? null,
      prediction: el.prediction,
      leaked: attn.memory().inUseBytes - before,
    };
    el.remove();
    return out;
  });
  await page.unroute('**/bad-classifier/*');
  assert.match(
    result.message ?? '',
    /^attention-sentiment: the classifier could not be loaded: TextClassifier\.load: model\.safetensors\['tokenEmbedding'\] has shape/,
  );
  assert.equal(result.prediction, null);
  assert.equal(result.leaked, 0);
  assert.deepEqual(errors, []);
});

test('<attention-training> every="0", every="1e9", steps="-1": a message naming the attribute, no Worker; a good value trains', async () => {
  const result = await page.evaluate(async () => {
    const out = {};
    for (const [name, value] of [
      ['every', '0'],
      ['every', '1e9'],
      ['steps', '-1'],
      ['every', '2.5'],
    ]) {
      const el = document.createElement('attention-training');
      el.setAttribute(name, value);
      document.body.append(el);
      el.train();
      out[`${name}=${value}`] = {
        state: el.state,
        message: el.shadowRoot.querySelector('[role="alert"]')?.textContent ?? null,
      };
      el.remove();
    }
    const good = document.createElement('attention-training');
    good.setAttribute('task', 'copy');
    good.setAttribute('every', '5');
    good.setAttribute('steps', '10');
    document.body.append(good);
    good.train();
    out.good = await new Promise((resolve) =>
      good.addEventListener('training-done', (e) => resolve(e.detail.step), { once: true }),
    );
    good.remove();
    return out;
  });
  assert.match(result['every=0'].message, /^attention-training: every must be a whole number from 1 to 500, got "0"$/);
  assert.match(result['every=1e9'].message, /every must be a whole number from 1 to 500, got "1e9"/);
  assert.match(result['steps=-1'].message, /steps must be a whole number from 1 to 1000000, got "-1"/);
  assert.match(result['every=2.5'].message, /every must be a whole number/);
  for (const key of ['every=0', 'every=1e9', 'steps=-1']) assert.equal(result[key].state, 'idle');
  assert.equal(result.good, 10);
  assert.deepEqual(errors, []);
});
