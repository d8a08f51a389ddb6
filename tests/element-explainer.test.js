// <attention-explainer> in headless Chromium, on the shipped tiny GPT-2 (no src: offline) and
// a Llama fixture: every number it draws is the library's (forward's trace and
// samplingDistribution, called here through the public API for the same text), hover and
// keyboard focus read the exact values, the token picker and every stage are reachable by
// keyboard and the picked token is traced, linked highlighting marks a head in every stage
// that shows heads, and nothing overflows at 390 px.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';

let server, url, browser;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>explainer</title><link rel="icon" href="data:,">
<script type="importmap">{ "imports": { "@huggingface/tokenizers": "/node_modules/@huggingface/tokenizers/dist/tokenizers.min.mjs", "@huggingface/jinja": "/node_modules/@huggingface/jinja/dist/index.js" } }</script>
<script type="module" src="/web/elements/index.js"></script></head><body><main>
<attention-explainer id="gpt2" eager text="The cat sat on the mat" token="3"></attention-explainer>
<attention-explainer id="llama" eager src="/tests/fixtures/hf/tiny-llama/" text="The cat sat on the mat." layer="1" head="2"></attention-explainer>
</main></body></html>`;

test.before(async () => {
  ({ server, url } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'tests', 'node_modules'] }));
  browser = await launchChromium();
});
test.after(async () => {
  await browser?.close();
  server?.close();
});

async function open(width) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route(`${url}explainer.html`, (route) =>
    route.fulfill({ contentType: 'text/html; charset=utf-8', body: PAGE }),
  );
  await page.goto(`${url}explainer.html`);
  await page.waitForFunction(() => ['gpt2', 'llama'].every((id) => document.getElementById(id).result), null, {
    timeout: 60_000,
  });
  await page.waitForTimeout(200);
  return { page, errors };
}

test('every drawn number is the library’s: trace cells, strip readouts, logits, sampling probabilities', async () => {
  const { page, errors } = await open(1280);
  const report = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' }); // the build the elements use
    const fmt = (x) =>
      x === -Infinity
        ? '−∞'
        : x
            .toFixed(2)
            .replace(/^-(0\.?0*)$/, '$1')
            .replace(/^-/, '−');
    const out = {};
    for (const id of ['gpt2', 'llama']) {
      const el = document.getElementById(id);
      const json = el.toJSON();
      const model = await attn.loadModel(id === 'gpt2' ? '/web/elements/models/tiny-gpt2/' : el.getAttribute('src'));
      const { trace } = model.forward(el.text, { trace: { position: json.position } });
      const layer = trace.layers[json.layer];
      const root = el.shadowRoot;
      // The grids of stages 3-5 in order: query, keys, values (of the head's kv head), scores,
      // masked scores, weights, heads.
      const grids = [...root.querySelectorAll('table.heat')].map((t) =>
        [...t.querySelectorAll('td')].map((td) => td.textContent),
      );
      const d = model.descriptor,
        T = json.tokens.length,
        kv = Math.floor(Number(el.getAttribute('head') ?? 0) / (d.numHeads / d.numKvHeads));
      const kvRows = (t) => Array.from(t.data.subarray(kv * T * d.headDim, (kv + 1) * T * d.headDim));
      const expected = [
        layer.query.data,
        kvRows(layer.keys),
        kvRows(layer.values),
        layer.scores.data,
        layer.maskedScores.data,
        layer.weights.data,
        layer.heads.data,
      ].map((a) => Array.from(a, fmt));
      // A strip's readout after focusing it and pressing → three times: dimension 3's exact value.
      const canvas = [...root.querySelectorAll('.strip')]
        .find((strip) => strip.querySelector('.name').textContent.startsWith('embedding entering layer 0'))
        .querySelector('canvas');
      canvas.focus();
      for (let i = 0; i < 3; i++)
        canvas.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      const readout = canvas.closest('.strip').querySelector('.readout').textContent;
      // Sampling: temperature 0.7, top-k 5, top-p 0.9.
      el.setAttribute('temperature', '0.7');
      el.setAttribute('top-k', '5');
      el.setAttribute('top-p', '0.9');
      const rows = [...root.querySelectorAll('table.sampling tbody tr')].map((tr) => [
        Number(tr.dataset.id),
        Number(tr.dataset.p),
        tr.querySelector('.value').textContent,
      ]);
      const p = model.samplingDistribution(trace.logits, { temperature: 0.7, topK: 5, topP: 0.9 });
      const kept = [...p.keys()].filter((i) => p[i] > 0);
      // The element's rows: the 10 most probable, ties (the removed tokens' 0) by logit.
      const order = [...p.keys()].sort((a, b) => p[b] - p[a] || trace.logits.data[b] - trace.logits.data[a]);
      out[id] = {
        grids,
        expected,
        diff: ['embedding', 'final', 'logits']
          .filter((k) => !json.trace[k].data.every((x, i) => x === trace[k].data[i]))
          .concat(
            Object.entries(json.trace.layer)
              .filter(([k, v]) => v !== null && !v.data.every((x, i) => x === layer[k].data[i]))
              .map(([k]) => k),
            [JSON.stringify([json.trace.embedding.data.slice(0, 3), Array.from(trace.embedding.data.slice(0, 3))])],
          ),
        traceEqual: ['embedding', 'final', 'logits'].every((k) =>
          json.trace[k].data.every((x, i) => x === trace[k].data[i]),
        ),
        layerEqual: Object.entries(json.trace.layer).every(
          ([k, v]) => v === null || v.data.every((x, i) => x === layer[k].data[i]),
        ),
        readout,
        embedding3: String(trace.embedding.data[3]),
        // GPT-2's embedding is drawn with its parts, the token's and the position's rows.
        parts: [...root.querySelectorAll('.strip .name')].slice(0, 3).map((n) => n.textContent),
        positionEmbedding: trace.positionEmbedding !== null,
        id: trace.id,
        code: el.toCode(),
        jsonSampling: el.toJSON().sampling,
        rows,
        kept: order.slice(0, 10).map((i) => [i, p[i], p[i].toFixed(3)]),
        caption: root.querySelector('table.sampling caption').textContent,
        keptCount: kept.length,
        titles: [...root.querySelectorAll('h2')].map((h) => h.textContent),
        legends: root.querySelectorAll('.legend').length,
        captions: root.querySelectorAll('p.caption').length,
      };
      model.dispose();
    }
    return out;
  });
  for (const [id, r] of Object.entries(report)) {
    assert.equal(r.grids.length, 7, `${id}: seven grids`);
    r.grids.forEach((cells, g) => assert.deepEqual(cells, r.expected[g], `${id}: grid ${g}`));
    assert.ok(r.traceEqual && r.layerEqual, `${id}: toJSON is the library's trace ${r.diff}`);
    assert.equal(r.readout, `dimension 3: ${r.embedding3}`, `${id}: keyboard readout`);
    assert.deepEqual(
      r.rows.map(([i, p, text]) => [i, p, text]),
      r.kept.map(([i, p, text]) => [i, p, text]),
      `${id}: sampling rows`,
    );
    assert.ok(r.keptCount <= 5, `${id}: top-k 5 keeps at most 5`);
    assert.match(r.caption, new RegExp(`^${r.keptCount} of \\d+ tokens kept`));
    assert.equal(r.titles.length, 10, `${id}: ten stages: ${r.titles.join(' | ')}`);
    assert.match(r.titles[0], /^1 · Embedding/);
    assert.match(r.titles[9], /^10 · Sampling/);
    assert.ok(r.captions >= 10 && r.legends >= 10, `${id}: captions ${r.captions}, legends ${r.legends}`);
  }
  assert.deepEqual(report.gpt2.parts, [
    `token embedding (row ${report.gpt2.id}) (32 dimensions)`,
    `position embedding (row 3: rows count from 0) (32 dimensions)`,
    'embedding entering layer 0 (their sum) (32 dimensions)',
  ]);
  assert.equal(report.llama.positionEmbedding, false);
  assert.match(report.llama.parts[0], /^embedding entering layer 0 \(32 dimensions\)/);
  // Copy code: the same build, text, position and sampling settings as shown.
  assert.match(report.gpt2.code, /init\(\{ simd: 'baseline' \}\)/);
  assert.match(report.gpt2.code, /forward\("The cat sat on the mat", \{ trace: \{ position: 3 \} \}\)/);
  assert.match(report.gpt2.code, /samplingDistribution\(trace\.logits, \{ temperature: 0\.7, topK: 5, topP: 0\.9 \}\)/);
  assert.deepEqual(
    { ...report.llama.jsonSampling, probabilities: report.llama.jsonSampling.probabilities.length },
    { temperature: 0.7, topK: 5, topP: 0.9, probabilities: 349 },
  );
  assert.match(report.llama.titles[6], /MLP \(silu, gated\)/);
  assert.match(report.gpt2.titles[6], /MLP \(gelu_new\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('keyboard: Tab reaches the token picker, arrows pick a token and it is traced; a head highlight links the stages', async () => {
  const { page } = await open(1280);
  const el = page.locator('#gpt2');
  await el.locator('input[type=text]').focus();
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => {
    const a = document.getElementById('gpt2').shadowRoot.activeElement;
    return [a?.getAttribute('role'), a?.getAttribute('aria-checked'), a?.textContent];
  });
  assert.deepEqual(focused.slice(0, 2), ['radio', 'true']);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.getElementById('gpt2').result?.position === 4);
  assert.equal(await el.getAttribute('token'), '4', 'the token attribute is its position, from 0');
  // Every stage's grids and strips take focus (tab order), and the sampling sliders too.
  const stops = await page.evaluate(() => {
    const root = document.getElementById('gpt2').shadowRoot;
    return [...root.querySelectorAll('[tabindex="0"], input, select, button')].filter((n) => n.tabIndex >= 0).length;
  });
  assert.ok(stops > 20, `${stops} keyboard stops`);
  // Hovering head 2's row in the scores highlights head 2 in the query, weights and head-output grids.
  const linked = await page.evaluate(() => {
    const root = document.getElementById('gpt2').shadowRoot;
    const tables = [...root.querySelectorAll('table.heat')];
    tables[3].querySelectorAll('tbody tr')[1].querySelector('td').dispatchEvent(new PointerEvent('pointerenter'));
    return tables.map((t) => [...t.querySelectorAll('tbody tr')].findIndex((tr) => tr.classList.contains('linked')));
  });
  assert.deepEqual(linked, [1, -1, -1, 1, 1, 1, 1]);
  await page.close();
});

test('at 390 px nothing overflows and every column shows: wide grids wrap into bands of columns (at 1280 px: one band)', async () => {
  const read = (page) =>
    page.evaluate(() => ({
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      outside: ['gpt2', 'llama'].flatMap((id) =>
        [...document.getElementById(id).shadowRoot.querySelectorAll('section, .strip, .grid, table.sampling, td, th')]
          .filter((n) => n.getBoundingClientRect().right > window.innerWidth + 0.5)
          .map((n) => `${id} ${n.className || n.localName} ${n.textContent.slice(0, 20)}`),
      ),
      // Each grid in a labelled region, its table focusable (arrow keys read its cells); the
      // column titles of its bands, in order, and its cells.
      grids: ['gpt2', 'llama'].flatMap((id) =>
        [...document.getElementById(id).shadowRoot.querySelectorAll('.grid .scroll')].map((s) => {
          const table = s.querySelector('table.heat');
          return {
            id,
            labelled: s.getAttribute('role') === 'region' && Boolean(s.getAttribute('aria-label')),
            overflows: s.scrollWidth > s.clientWidth + 1,
            hint: !s.previousElementSibling.hidden,
            table: table.tabIndex === 0,
            corner: table.querySelector('th.corner').textContent,
            bands: table.querySelectorAll('tbody.band').length,
            columns: [...table.querySelectorAll('th[scope=col]')].map((th) => th.textContent),
            rows: [...table.querySelectorAll('th[scope=row]')].length,
            cells: table.querySelectorAll('td').length,
          };
        }),
      ),
      names: Object.fromEntries(
        ['gpt2', 'llama'].map((id) => [
          id,
          document
            .getElementById(id)
            .toJSON()
            .tokens.map((t) => t.name),
        ]),
      ),
    }));
  let { page, errors } = await open(390);
  const narrow = await read(page);
  await page.close();
  assert.equal(narrow.overflow, 0);
  assert.deepEqual(narrow.outside, []);
  assert.equal(narrow.grids.length, 14);
  for (const grid of narrow.grids) {
    assert.ok(grid.labelled && grid.table, JSON.stringify(grid));
    assert.ok(!grid.overflows && !grid.hint, `no sideways scroll: ${JSON.stringify(grid)}`);
    // every column once, in order, across the bands; every row title once a band
    const keys = grid.corner.endsWith('key →');
    const expected = keys ? narrow.names[grid.id] : Array.from({ length: grid.columns.length }, (_, i) => String(i));
    assert.deepEqual(grid.columns, expected, JSON.stringify(grid));
    assert.equal(grid.cells % grid.columns.length, 0);
    assert.equal(grid.rows, (grid.cells / grid.columns.length) * (grid.bands + 1));
  }
  // The weights (head ↓ key →, 9 tokens of the tiny GPT-2) are wider than the page: in bands.
  assert.ok(
    narrow.grids.some((grid) => grid.corner === 'head ↓ key →' && grid.bands > 0),
    'at 390 px the key grids wrap',
  );
  assert.deepEqual(errors, []);
  ({ page, errors } = await open(1280));
  const wide = await read(page);
  await page.close();
  assert.deepEqual(
    wide.grids.map((grid) => grid.bands),
    wide.grids.map(() => 0),
    'at 1280 px every grid is one band',
  );
  assert.deepEqual(errors, []);
});

test('layout="compact" fits a 960 × 700 slide: one stage at a time (the stage attribute or menu), every stage of both models; at 390 px nothing widens the page', async () => {
  const page = await browser.newPage({ viewport: { width: 960, height: 700 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // A slide's box: 960 px wide, nothing scrolls (reveal.js clips what does not fit).
  const body = PAGE.replace('<main>', '<main style="margin: 0">')
    .replace('</head>', '<style>html { overflow: hidden; } body { margin: 0; }</style></head>')
    .replace('id="gpt2" eager', 'id="gpt2" eager layout="compact"')
    .replace('id="llama" eager', 'id="llama" eager layout="compact" stage="4"');
  await page.route(`${url}compact.html`, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body }));
  await page.goto(`${url}compact.html`);
  await page.waitForFunction(() => ['gpt2', 'llama'].every((id) => document.getElementById(id).result), null, {
    timeout: 60_000,
  });
  const shown = (id) =>
    page.evaluate((id) => {
      const el = document.getElementById(id);
      const box = el.getBoundingClientRect();
      return {
        height: box.height,
        width: box.width,
        pageWidth: document.documentElement.scrollWidth,
        titles: [...el.shadowRoot.querySelectorAll('section h2')].map((h) => h.textContent),
        menu: el.shadowRoot.querySelector('select[aria-label=stage]')?.value,
      };
    }, id);
  assert.match((await shown('llama')).titles.join(), /^4 · Layer 1: scores/);
  for (const id of ['gpt2', 'llama']) {
    for (let stage = 1; stage <= 10; stage++) {
      await page.evaluate(
        ([id, stage]) => document.getElementById(id).setAttribute('stage', String(stage)),
        [id, stage],
      );
      const r = await shown(id);
      assert.equal(r.titles.length, 1, `${id} stage ${stage}: one stage`);
      assert.ok(r.titles[0].startsWith(`${stage} · `), `${id} stage ${stage}: ${r.titles[0]}`);
      assert.equal(r.menu, String(stage));
      assert.ok(r.height <= 700 && r.width <= 960 && r.pageWidth <= 960, `${id} stage ${stage}: ${JSON.stringify(r)}`);
    }
  }
  // On a phone the compact layout wraps as the default one does: side-by-side grids and strips
  // never widen the page past 390 px (a grid's table wraps into bands; strips go one a line).
  await page.setViewportSize({ width: 390, height: 700 });
  for (let stage = 1; stage <= 10; stage++) {
    await page.evaluate((stage) => document.getElementById('gpt2').setAttribute('stage', String(stage)), stage);
    await page
      .waitForFunction(() => document.documentElement.scrollWidth <= 390, null, { timeout: 3000 })
      .catch(() => {});
    const r = await shown('gpt2');
    assert.ok(r.pageWidth <= 390 && r.width <= 390, `gpt2 stage ${stage} at 390 px: ${JSON.stringify(r)}`);
  }
  await page.setViewportSize({ width: 960, height: 700 });
  // The stage menu picks a stage and keeps the focus (an arrow on it goes on to the next).
  const menu = page.locator('#gpt2 select[aria-label=stage]');
  await menu.selectOption('7');
  assert.match((await shown('gpt2')).titles[0], /^7 · Layer 0: MLP/);
  await menu.focus();
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.getElementById('gpt2').getAttribute('stage') === '8');
  assert.equal(
    await page.evaluate(() => document.getElementById('gpt2').shadowRoot.activeElement?.getAttribute('aria-label')),
    'stage',
  );
  // Without the layout every stage shows (stage is for the compact layout).
  await page.evaluate(() => document.getElementById('gpt2').removeAttribute('layout'));
  assert.equal((await shown('gpt2')).titles.length, 10);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a src that does not load says why and what to try (the shipped model offline); a bad URL is refused by name', async () => {
  const page = await browser.newPage();
  await page.route(`${url}bad.html`, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: PAGE.replace(
        /<main>[\s\S]*<\/main>/,
        `<main><attention-explainer id="missing" eager src="/nowhere/"></attention-explainer>
<attention-explainer id="script" eager src="javascript:alert(1)"></attention-explainer></main>`,
      ),
    }),
  );
  await page.goto(`${url}bad.html`);
  await page.waitForFunction(() => ['missing', 'script'].every((id) => document.getElementById(id).error), null, {
    timeout: 30_000,
  });
  const r = await page.evaluate(() =>
    ['missing', 'script'].map((id) => {
      const el = document.getElementById(id);
      return { error: el.error.message, text: el.shadowRoot.textContent };
    }),
  );
  await page.close();
  assert.match(r[0].text, /Try: the URL of a folder holding config\.json/);
  assert.match(r[0].text, /src="tiny-gpt2"\) for the tiny GPT-2 this package ships/);
  assert.match(r[1].error, /^attention-explainer: src must be the http\(s\) URL of a model folder/);
});

test('token, layer or head past the text or the model is refused by name, as <attention-model> refuses them; the view stays, and a good value clears the line', async () => {
  const page = await browser.newPage();
  await page.route(`${url}range.html`, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: PAGE.replace(
        /<main>[\s\S]*<\/main>/,
        `<main><attention-explainer id="token" eager text="a b" token="3"></attention-explainer>
<attention-explainer id="layer" eager text="a b" layer="2"></attention-explainer>
<attention-explainer id="head" eager text="a b" head="4"></attention-explainer></main>`,
      ),
    }),
  );
  await page.goto(`${url}range.html`);
  const ids = ['token', 'layer', 'head'];
  await page.waitForFunction((ids) => ids.every((id) => document.getElementById(id).result), ids, {
    timeout: 30_000,
  });
  const shown = () =>
    page.evaluate(
      (ids) =>
        ids.map((id) => {
          const el = document.getElementById(id);
          return [el.error?.message ?? null, el.shadowRoot.querySelector('[role=alert]')?.textContent ?? null];
        }),
      ids,
    );
  // The tiny GPT-2: 2 layers, 4 heads; "a b" is 3 tokens (a, Ġ, b).
  const messages = [
    'attention-explainer: token must be a whole number from 0 to 2, got "3"',
    'attention-explainer: layer must be a whole number from 0 to 1, got "2"',
    'attention-explainer: head must be a whole number from 0 to 3, got "4"',
  ];
  assert.deepEqual(
    await shown(),
    messages.map((m) => [m, m]),
  );
  // The view stays (the last token, layer 0, head 0), and the next good value clears the line.
  assert.deepEqual(
    await page.evaluate((ids) => ids.map((id) => document.getElementById(id).result.position), ids),
    [2, 2, 2],
  );
  await page.evaluate(() => {
    document.getElementById('token').setAttribute('token', '1');
    document.getElementById('layer').setAttribute('layer', '1');
    document.getElementById('head').setAttribute('head', '3');
  });
  await page.waitForFunction(() => document.getElementById('token').result.position === 1);
  await page.waitForTimeout(200);
  assert.deepEqual(await shown(), [
    [null, null],
    [null, null],
    [null, null],
  ]);
  await page.close();
});

// Sampling as transformers' warpers define it, in float64, written here from their definition
// (not the library's): softmax(logits / T) over the tokens top-k keeps (every token at least
// as likely as the k-th), then top-p (sorted ascending, the tokens whose cumulative probability
// is <= 1 - p are removed; the most likely always stays), renormalised; 0 elsewhere.
function referenceSampling(logits, { temperature, topK, topP }) {
  const z = Array.from(logits, (x) => x / temperature);
  let kept = z.map((_, i) => i);
  if (topK > 0 && topK < z.length) {
    const kth = [...z].sort((a, b) => b - a)[topK - 1];
    kept = kept.filter((i) => z[i] >= kth);
  }
  const softmax = (ids) => {
    const max = Math.max(...ids.map((i) => z[i]));
    const e = ids.map((i) => Math.exp(z[i] - max));
    const total = e.reduce((a, b) => a + b, 0);
    return new Map(ids.map((i, n) => [i, e[n] / total]));
  };
  let p = softmax(kept);
  if (topP < 1) {
    const ascending = [...kept].sort((a, b) => p.get(a) - p.get(b) || b - a);
    let cumulative = 0;
    const removed = new Set();
    for (const i of ascending.slice(0, -1)) {
      cumulative += p.get(i);
      if (cumulative <= 1 - topP) removed.add(i);
    }
    p = softmax(kept.filter((i) => !removed.has(i)));
  }
  return Float64Array.from(z, (_, i) => p.get(i) ?? 0);
}

test('sampling: probabilities are softmax(logits/T) after top-k and top-p, the greedy pick is the argmax; every head’s keys and values; repeated tokens carry positions; marks named', async () => {
  const { page, errors } = await open(1280);
  const report = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    const out = {};
    for (const id of ['gpt2', 'llama']) {
      const el = document.getElementById(id);
      const root = el.shadowRoot;
      const model = await attn.loadModel(id === 'gpt2' ? '/web/elements/models/tiny-gpt2/' : el.getAttribute('src'));
      const json = el.toJSON();
      const { trace } = model.forward(el.text, { trace: { position: json.position } });
      const d = model.descriptor;
      const settings = [
        { temperature: 0.7, topK: 5, topP: 0.9 },
        { temperature: 1.3, topK: 0, topP: 0.6 },
        { temperature: 1, topK: 0, topP: 1 },
      ];
      const sampling = settings.map((s) => {
        el.setAttribute('temperature', String(s.temperature));
        el.setAttribute('top-k', String(s.topK));
        el.setAttribute('top-p', String(s.topP));
        const pick = root.querySelector('p.pick');
        return {
          settings: s,
          rows: [...root.querySelectorAll('table.sampling tbody tr')].map((tr) => ({
            id: Number(tr.dataset.id),
            p: Number(tr.dataset.p),
            picked: tr.classList.contains('picked'),
            label: tr.querySelector('th').textContent,
          })),
          pick: { id: Number(pick.dataset.id), text: pick.textContent },
          caption: root.querySelector('table.sampling caption').textContent,
        };
      });
      // Stage 3's head chips: each head's keys and values grids, as drawn.
      const heads = [];
      for (let h = 0; h < d.numHeads; h++) {
        root.querySelectorAll('.head-chips button')[h].click();
        const grids = [...root.querySelectorAll('table.heat')].slice(1, 3);
        heads.push({
          head: el.getAttribute('head'),
          pressed: [...root.querySelectorAll('.head-chips button')].map((b) => b.getAttribute('aria-pressed')),
          keys: [...grids[0].querySelectorAll('td')].map((td) => td.textContent),
          values: [...grids[1].querySelectorAll('td')].map((td) => td.textContent),
          names: grids.map((g) => g.closest('.grid').querySelector('.name').textContent),
        });
      }
      const T = json.tokens.length;
      out[id] = {
        logits: Array.from(trace.logits.data),
        sampling,
        heads,
        group: d.numHeads / d.numKvHeads,
        headDim: d.headDim,
        T,
        // every key/value head's rows, as the runner traced them: [kv][T * headDim]
        layerKeys: Array.from({ length: d.numKvHeads }, (_, kv) =>
          Array.from(trace.layers[json.layer].keys.data.subarray(kv * T * d.headDim, (kv + 1) * T * d.headDim)),
        ),
        layerValues: Array.from({ length: d.numKvHeads }, (_, kv) =>
          Array.from(trace.layers[json.layer].values.data.subarray(kv * T * d.headDim, (kv + 1) * T * d.headDim)),
        ),
        labels: json.tokens.map((t) => t.label),
        picker: [...root.querySelectorAll('.tokens [role=radio]')].map((b) => b.textContent),
        jsonNames: json.tokens.map((t) => t.name),
        marksLine: root.querySelector('.tokens').parentElement.querySelector('.row .status').textContent,
      };
      model.dispose();
    }
    return out;
  });
  const fmt2 = (x) =>
    x
      .toFixed(2)
      .replace(/^-(0\.?0*)$/, '$1')
      .replace(/^-/, '−');
  for (const [id, r] of Object.entries(report)) {
    // Greedy: the largest logit (the first on ties), computed here.
    const argmax = r.logits.reduce((best, x, i) => (x > r.logits[best] ? i : best), 0);
    for (const s of r.sampling) {
      const reference = referenceSampling(r.logits, s.settings);
      for (const row of s.rows) {
        const expected = reference[row.id];
        assert.ok(
          Math.abs(row.p - expected) <= 1e-9 * Math.max(1, expected),
          `${id} ${JSON.stringify(s.settings)}: token ${row.id} p ${row.p} vs reference ${expected}`,
        );
      }
      // The rows are the most likely: none left out is likelier than the last shown.
      const shown = new Set(s.rows.map((row) => row.id));
      const least = Math.min(...s.rows.map((row) => reference[row.id]));
      assert.ok(
        reference.every((p, i) => shown.has(i) || p <= least + 1e-12),
        `${id}: a likelier token is missing`,
      );
      const kept = reference.filter((p) => p > 0).length;
      assert.match(s.caption, new RegExp(`^${kept} of ${r.logits.length} tokens kept`));
      // "the others get 0" only where there are others (a reader asked which, at 305 of 305).
      assert.match(
        s.caption,
        kept < r.logits.length ? /\(the others get 0\)/ : /\(all: top-k and top-p remove none here\)/,
        `${id} ${JSON.stringify(s.settings)}: ${s.caption}`,
      );
      assert.equal(s.pick.id, argmax, `${id}: the greedy pick is the argmax`);
      assert.deepEqual(
        s.rows.filter((row) => row.picked).map((row) => row.id),
        [argmax],
        `${id}: the pick's row is outlined`,
      );
      assert.ok(
        s.pick.text.includes(`with probability ${reference[argmax].toFixed(3)}`),
        `${id}: the pick's probability: ${s.pick.text}`,
      );
      // Every mark a shown token label uses is named in the table's caption.
      const labels = s.rows.map((row) => row.label).join('');
      for (const mark of ['␣', '↵', '⇥'])
        if (labels.includes(mark))
          assert.ok(s.caption.includes(`${mark} = `), `${id}: ${mark} unexplained: ${s.caption}`);
      if (/<0x[0-9A-F]{2}>/.test(labels)) assert.ok(s.caption.includes('<0x08> = '), s.caption);
    }
    // Each head's chip shows that head's keys and values (its key/value head's, with GQA).
    r.heads.forEach((shown, h) => {
      const kv = Math.floor(h / r.group);
      assert.equal(shown.head, String(h));
      assert.deepEqual(
        shown.pressed,
        r.heads.map((_, i) => String(i === h)),
      );
      assert.deepEqual(shown.keys, r.layerKeys[kv].map(fmt2), `${id}: head ${h + 1} keys`);
      assert.deepEqual(shown.values, r.layerValues[kv].map(fmt2), `${id}: head ${h + 1} values`);
      assert.match(
        shown.names[0],
        r.group > 1 ? new RegExp(`^keys, key/value head ${kv} `) : new RegExp(`^keys, head ${h} `),
      );
    });
    // A repeated token name carries its (1-based) position; a unique one stays as it is.
    const expected = r.labels.map((label, i) =>
      r.labels.filter((l) => l === label).length > 1 ? `${label}·${i}` : label,
    );
    assert.deepEqual(r.picker, expected, `${id}: token names`);
    assert.deepEqual(r.jsonNames, expected);
    assert.equal(new Set(r.picker).size, r.picker.length, `${id}: every name differs`);
  }
  // The tiny GPT-2 reads "The cat sat on the mat" byte by byte: repeats exist, and ␣ is named.
  assert.ok(
    report.gpt2.picker.some((name) => name.includes('·')),
    report.gpt2.picker.join(' '),
  );
  assert.match(report.gpt2.marksLine, /␣ = space/);
  // Llama has grouped-query attention (4 heads on 2 key/value heads): heads 1 and 2 share.
  assert.equal(report.llama.group, 2);
  assert.deepEqual(report.llama.heads[0].keys, report.llama.heads[1].keys);
  assert.notDeepEqual(report.llama.heads[1].keys, report.llama.heads[2].keys);
  assert.deepEqual(errors, []);
  await page.close();
});
