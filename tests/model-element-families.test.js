// <attention-model> on the families of issue 33 in headless Chromium: Gemma 2 (windowed and
// global layers), Qwen3 (head_dim 16 on a hidden size of 32, grouped-query heads) and Phi-3.
// The maps equal the API's; the status line names head_dim, the key/value heads and the
// windowed layers; the layer and head menus say which layers are windowed and which key/value
// head each query head shares; Gemma's windowed layer draws no line beyond its window; the
// neuron view's scores are q·k/√head_dim of the API's queries and keys.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';

let server, url, browser, page;
const errors = [];

test.before(async () => {
  ({ server, url } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'tests'] }));
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${m.text()} ${m.location()?.url ?? ''}`);
  });
  await page.goto(`${url}tests/helpers/model-element-families.html`);
  await page.waitForFunction(
    () => ['gemma2', 'qwen3', 'phi3'].every((id) => document.getElementById(id).toJSON?.().attentions),
    null,
    { timeout: 30_000 },
  );
});

test.after(async () => {
  await browser?.close();
  server?.close();
});

test('each family is drawn as the API computes it, and says what it is', async () => {
  const report = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    const out = {};
    for (const id of ['gemma2', 'qwen3', 'phi3']) {
      const el = document.getElementById(id);
      const json = el.toJSON();
      const model = await attn.loadModel(el.getAttribute('src'));
      const api = model.forward(el.text, { attentions: true, queriesAndKeys: json.layer });
      const root = el.shadowRoot;
      out[id] = {
        equal: json.attentions.data.every((x, i) => x === api.attentions[json.layer].data[i]),
        status: root.querySelector('.status')?.textContent ?? '',
        layers: Array.from(root.querySelectorAll('select[aria-label="layer"] option'), (o) => o.textContent),
        heads: Array.from(root.querySelectorAll('select[aria-label="head"] option'), (o) => o.textContent),
        scores: Array.from(
          root.querySelectorAll('table.neuron tbody tr'),
          (tr) => tr.dataset.score ?? tr.cells[tr.cells.length - 2]?.textContent,
        ),
        thumbs: root.querySelectorAll('button.thumb').length,
        T: json.attentions.shape[1],
        map: json.attentions.data,
        queries: api.queries ? Array.from(api.queries.data) : null,
        keys: api.keys ? Array.from(api.keys.data) : null,
      };
      model.dispose();
    }
    return out;
  });
  for (const [id, r] of Object.entries(report)) assert.ok(r.equal, `${id}: the element's maps equal the API's`);
  // Gemma 2: 3 layers, windows 3 / global / 3; head_dim 16; 4 heads on 2 key/value heads.
  assert.match(report.gemma2.status, /3 layers × 4 heads on 2 key\/value heads · head_dim 16 · 2 of 3 layers windowed/);
  assert.deepEqual(report.gemma2.layers, ['layer 0 · window 3', 'layer 1 · global', 'layer 2 · window 3']);
  // Layer 0 (layer="0") is windowed: every query gives 0 to keys 3 or more behind it.
  const { T, map } = report.gemma2;
  for (let h = 0; h < 4; h++)
    for (let i = 0; i < T; i++)
      for (let j = 0; j <= i - 3; j++)
        assert.equal(map[(h * T + i) * T + j], 0, `gemma2 layer 0 head ${h} query ${i} key ${j}`);
  // Qwen3: head_dim 16 ≠ 32 / 4, each head's key/value head named.
  assert.match(report.qwen3.status, /2 layers × 4 heads on 2 key\/value heads · head_dim 16 ·/);
  assert.doesNotMatch(report.qwen3.status, /windowed/);
  assert.deepEqual(report.qwen3.heads, [
    'head 0 · key/value head 0',
    'head 1 · key/value head 0',
    'head 2 · key/value head 1',
    'head 3 · key/value head 1',
  ]);
  assert.equal(report.qwen3.layers.length, 2);
  assert.ok(
    report.qwen3.layers.every((name) => /^layer \d$/.test(name)),
    'no window: plain layer names',
  );
  assert.equal(report.phi3.thumbs, 2 * 4, 'phi3: the model view has layers × heads maps');
  assert.deepEqual(errors, []);
});

test("the neuron view opens on the last query (a decoder's first query sees only itself); the caption names it", async () => {
  const r = await page.evaluate(async () => {
    const el = document.getElementById('qwen3');
    el.removeAttribute('query');
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const json = el.toJSON();
    return {
      caption: el.shadowRoot.querySelector('.caption').textContent,
      last: json.tokens.at(-1).label,
      selected: el.shadowRoot.querySelector('select[aria-label="query"]').value,
      T: json.tokens.length,
    };
  });
  assert.equal(r.selected, String(r.T - 1), 'the last query, counted from 0');
  assert.ok(r.caption.includes(`the query “${r.last}”`), r.caption);
});
