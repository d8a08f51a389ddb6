// What a reader who sees only a screenshot of <attention-heatmap>'s lines view,
// <attention-model> or <attention-explainer> could still not say (issue 45, round 5), now said
// by the views in headless Chromium: numbers on screen without hovering (a phone has no hover,
// a screenshot none), one colour scale for the strips a reader compares, the largest entries
// of long strips as numbers, the neuron view's legends beside its table and q·k as a row sum,
// readable head colours on a dark page.
import test from 'node:test';
import assert from 'node:assert/strict';
import { elementPages, printedNumber as number, visibleText } from './helpers/element-page.js';
import { contrast } from './helpers/contrast.js';
import { formatNumber } from '../web/elements/format.js';

const open = elementPages(test);
// A number printed to three places as the views print it (−0.250, 0.000 for −0.0001).
const formatted = (x) => formatNumber(x, 3);
// 'name 0.123 · name 0.456' → [['name', 0.123], …]
const entries = (text) =>
  text.split(' · ').map((entry) => {
    const at = entry.lastIndexOf(' ');
    return [entry.slice(0, at), number(entry.slice(at + 1))];
  });

// Three heads of 3 × 3 weights (rows sum to 1), by hand.
const HEADS = [
  [
    [1, 0, 0],
    [0.3, 0.7, 0],
    [0.5, 0.125, 0.375],
  ],
  [
    [1, 0, 0],
    [0.9, 0.1, 0],
    [0.25, 0.25, 0.5],
  ],
  [
    [1, 0, 0],
    [0.6, 0.4, 0],
    [0.125, 0.75, 0.125],
  ],
];

// A lines view of HEADS on the page, head `head`; resolves to the readout's lines (after
// `act`, run in the page with the element).
async function linesReadout(page, head, act = '') {
  return page.evaluate(
    ([heads, head, act]) => {
      const h = document.createElement('attention-heatmap');
      h.setAttribute('view', 'lines');
      h.setAttribute('head', head);
      h.setAttribute('tokens', 'the,cat,sat');
      document.querySelector('main').append(h);
      h.weights = heads;
      if (act) new Function('h', act)(h);
      return [...h.shadowRoot.querySelectorAll('.readout .weights')].map((line) => ({
        text: line.textContent,
        bold: line.querySelector('b')?.textContent,
        swatch: line.querySelector('.swatch')?.style.background ?? null,
        visible: line.getBoundingClientRect().height > 0,
      }));
    },
    [HEADS, head, act],
  );
}

test('the lines view writes the selected token’s weights on screen without hover: the last query first, a clicked token after', async () => {
  const { page } = await open('heatmap-lines', 390);
  // One head: the last query's row, in token order, the largest in bold.
  const one = await linesReadout(page, '1');
  assert.equal(one.length, 1);
  assert.ok(one[0].visible, 'on screen');
  const [where, list] = one[0].text.split(': ');
  assert.equal(where, 'from query “sat” (position 2), head 1');
  assert.deepEqual(entries(list), [
    ['the', 0.25],
    ['cat', 0.25],
    ['sat', 0.5],
  ]);
  assert.equal(one[0].bold, 'sat 0.500');
  // A click (a tap on a phone) on the key "cat" selects it: the queries that attend to it,
  // still written once the pointer has left.
  const key = await linesReadout(
    page,
    '0',
    `const g = h.shadowRoot.querySelector('g.token[aria-label="key cat"]');
     g.dispatchEvent(new MouseEvent('click')); g.dispatchEvent(new MouseEvent('mouseleave'));`,
  );
  assert.equal(key[0].text.split(': ')[0], 'to key “cat” (position 1), head 0');
  assert.deepEqual(
    entries(key[0].text.split(': ')[1]),
    HEADS[0].map((row, i) => [['the', 'cat', 'sat'][i], row[1]]),
  );
  // Every head drawn: a line per shown head, in its colour (a hidden head has none).
  const all = await linesReadout(page, 'all', 'h.hiddenHeads = [1];');
  await page.close();
  assert.deepEqual(
    all.map((l) => l.text.split(': ')[0]),
    ['from query “sat” (position 2), head 0', 'from query “sat” (position 2), head 2'],
  );
  assert.deepEqual(
    entries(all[1].text.split(': ')[1]).map(([, x]) => x),
    HEADS[2][2],
  );
  assert.ok(all.every((l) => l.swatch && l.visible));
});

test('the model view writes numbers without hover: the outlined map’s last query and its strongest keys, back again when the pointer leaves', async () => {
  const { page } = await open('model-model', 390);
  const read = () =>
    page.evaluate(() => {
      const el = document.querySelector('attention-model');
      const readout = el.shadowRoot.querySelector('.readout');
      const json = el.toJSON(); // layer 0's maps [heads, T, T]
      return {
        text: readout.textContent,
        visible: readout.getBoundingClientRect().height > 0,
        names: json.tokens.map((t) => t.name),
        map: json.attentions.data.slice(0, json.tokens.length ** 2),
      };
    });
  const r = await read();
  const T = r.names.length;
  const row = r.map.slice((T - 1) * T);
  const top = [...row.keys()].sort((a, b) => row[b] - row[a]).slice(0, 4);
  assert.ok(r.visible);
  const [where, list] = r.text.split(', its strongest keys: ');
  assert.equal(where, `Layer 0, head 0: query “${r.names[T - 1]}” (row ${T - 1})`);
  const shown = entries(list);
  assert.deepEqual(
    shown.map(([name]) => name),
    top.map((j) => r.names[j]),
  );
  shown.forEach(([, x], n) => assert.ok(Math.abs(x - row[top[n]]) <= 5e-4, `${x} vs ${row[top[n]]}`));
  // Hover another map, then leave: the resting line again.
  const canvas = page.locator('attention-model').locator('button.thumb[aria-label="layer 1 head 2"] canvas');
  await canvas.hover();
  assert.match((await read()).text, /^Layer 1, head 2: query/);
  await page.mouse.move(1, 899);
  assert.equal((await read()).text, r.text);
  await page.close();
});

// The explainer on its page, with the library's trace of the same position (a float32 forward
// of its own, not the element's), per stage: the strips' legends, numbers and values.
async function explainerStrips(page) {
  await page.waitForFunction(() => document.querySelector('attention-explainer').result);
  return page.evaluate(async () => {
    const el = document.querySelector('attention-explainer');
    const root = el.shadowRoot;
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    const model = await attn.loadModel('/web/elements/models/tiny-gpt2/');
    const { trace } = model.forward(el.text, { trace: { position: el.result.position } });
    const layer = trace.layers[0];
    const values = {
      1: [trace.tokenEmbedding, trace.positionEmbedding, trace.embedding],
      6: [layer.attentionOutput, layer.attentionResidual],
      3: [layer.query, layer.keys, layer.values],
      4: [layer.scores, layer.maskedScores],
    };
    const out = {};
    for (const [n, tensors] of Object.entries(values)) out[n] = { values: tensors.map((t) => Array.from(t.data)) };
    model.dispose();
    for (const n of [1, 3, 4, 6]) {
      const section = root.getElementById(`stage-${n}`).closest('section');
      const legends = [...section.querySelectorAll('.strip .legend, .grid .legend')];
      out[n].legends = legends.map((l) => [
        l.querySelector('.title').textContent,
        Number(l.dataset.min),
        Number(l.dataset.max),
        l.querySelector('.lo').textContent,
        l.querySelector('.hi').textContent,
      ]);
      out[n].largest = [...section.querySelectorAll('.strip .largest')].map((x) => x.textContent);
    }
    return out;
  });
}

test('the explainer’s strips and grids that a reader compares share one colour scale per stage, with its numeric ends; each strip prints its range and largest entries', async () => {
  const { page } = await open('explainer', 1280);
  const r = await explainerStrips(page);
  await page.close();
  const maxAbs = (arrays) => Math.max(...arrays.flat().filter(Number.isFinite).map(Math.abs));
  // Stage 1 (token, position, their sum) and stage 6 (attention output, residual): one scale.
  for (const n of ['1', '6']) {
    const { legends, values } = r[n];
    assert.equal(legends.length, values.length);
    const m = maxAbs(values);
    for (const [title, min, max, lo, hi] of legends) {
      assert.equal(title, `one scale for this stage's ${values.length} strips`);
      assert.ok(Math.abs(max - m) <= 1e-6 * m && Math.abs(min + m) <= 1e-6 * m, `stage ${n}: ±${max} vs ±${m}`);
      assert.equal(number(hi), Number(m.toFixed(2)));
      assert.equal(number(lo), -Number(m.toFixed(2)));
    }
    // Each strip's numbers: its own range, and its largest |value| entries, largest first.
    r[n].largest.forEach((text, s) => {
      const v = values[s];
      const finite = v.filter(Number.isFinite);
      const [range, largest] = text.split('; largest |value|: ');
      assert.equal(
        range,
        `range ${formatted(Math.min(...finite))} to ${formatted(Math.max(...finite))}`,
        `stage ${n} strip ${s}`,
      );
      const top = [...v.keys()].sort((a, b) => Math.abs(v[b]) - Math.abs(v[a])).slice(0, 6);
      assert.equal(largest, top.map((i) => `dimension ${i} = ${formatted(v[i])}`).join(', '));
    });
  }
  // The position embedding is paler than the token embedding: its largest |value| is well
  // under the shared end, so the same colour means the same number in both.
  assert.ok(maxAbs([r['1'].values[1]]) < 0.5 * maxAbs(r['1'].values));
  // Stage 3's q, k and v grids share one scale; stage 4's two score grids another (−∞ left
  // out), the weights keep 0 … 1.
  const [q, k, v] = r['3'].legends;
  assert.deepEqual(q, k);
  assert.deepEqual(q, v);
  assert.equal(q[0], 'q, k, v entries: one scale');
  const [scores, masked, weights] = r['4'].legends;
  assert.deepEqual(scores, masked);
  assert.equal(scores[2], maxAbs(r['4'].values));
  assert.deepEqual(weights.slice(0, 3), ['weight', 0, 1]);
});

test('the neuron view at 390 px: its legend right above the table, q·k as the sum Σ q ⊙ k of each key’s row, “hover or tap”, and no hint on paper', async () => {
  const { page } = await open('model-neuron', 390);
  const read = () =>
    page.evaluate(() => {
      const root = document.querySelector('attention-model').shadowRoot;
      const table = root.querySelector('table.neuron');
      const rows = [...table.tBodies].flatMap((b) => [...b.rows]);
      const keys = [...table.tBodies[0].rows].map((r) => r.cells[0].textContent);
      return {
        legends: [...root.querySelectorAll('.legends .legend')].map((l) => l.getBoundingClientRect().bottom),
        // the table's top: its caption's, above its region (the caption points at the legends)
        tableTop: table.closest('.scroll-wrap').getBoundingClientRect().top,
        caption: table.closest('.scroll-wrap').querySelector('.caption').textContent,
        // per key: its products (data-value of its q ⊙ k cells, after its k cells) and its Σ
        products: keys.map((title) =>
          rows
            .filter((r) => r.cells[0].textContent === title)
            .flatMap((r) => [...r.querySelectorAll('td.dim')].map((td) => Number(td.dataset.value))),
        ),
        sums: keys.map((title) =>
          rows
            .filter((r) => r.cells[0].textContent === title)
            .flatMap((r) => [...r.querySelectorAll('td.sum')])
            .map((td) => td.textContent),
        ),
        scores: [...root.querySelector('table.scores').tBodies[0].rows].map((r) => r.cells[1].textContent),
        sumTitle: [...table.querySelectorAll('th')].some((th) => th.textContent === 'Σ q ⊙ k = q·k'),
        hint: root.querySelector('.readout').textContent,
        hintShown: getComputedStyle(root.querySelector('.readout')).display !== 'none',
        width: innerWidth,
        right: table.getBoundingClientRect().right,
      };
    });
  const r = await read();
  assert.equal(r.legends.length, 1);
  // The legend ends above the table, within a line of it.
  for (const bottom of r.legends)
    assert.ok(bottom <= r.tableTop && r.tableTop - bottom < 60, `${bottom} vs ${r.tableTop}`);
  assert.ok(r.sumTitle);
  assert.match(
    r.caption,
    /is the score q·k \(the last column, Σ\)\. Cell colours: the one scale above, for q, k and q ⊙ k alike\.$/,
  );
  assert.ok(r.right <= r.width);
  r.products.forEach((row, j) => {
    const hd = row.length / 2;
    const sum = row.slice(hd).reduce((a, b) => a + b, 0);
    assert.equal(r.sums[j].length, 1, `key ${j}: one Σ`);
    assert.ok(Math.abs(number(r.sums[j][0]) - sum) <= 5e-4, `key ${j}: Σ ${r.sums[j][0]} vs ${sum}`);
    assert.equal(r.sums[j][0], r.scores[j], `key ${j}: the Σ is the score table's q·k`);
  });
  assert.match(r.hint, /^Hover or tap a cell/);
  assert.ok(r.hintShown);
  await page.emulateMedia({ media: 'print' });
  assert.equal((await read()).hintShown, false, 'no live-only hint on paper');
  await page.close();
});

test('the explainer has one head control, stage 3’s chips (no second menu above)', async () => {
  const { page } = await open('explainer', 1280);
  await page.waitForFunction(() => document.querySelector('attention-explainer').result);
  const r = await page.evaluate(() => {
    const root = document.querySelector('attention-explainer').shadowRoot;
    return {
      menus: [...root.querySelectorAll('select')].map((s) => s.getAttribute('aria-label')),
      chips: [...root.querySelectorAll('.head-chips button')].map((b) => b.textContent),
      chipsIn: root.querySelector('.head-chips').closest('section').querySelector('h2').id,
    };
  });
  await page.close();
  assert.ok(!r.menus.includes('head'), r.menus.join(', '));
  assert.ok(r.menus.includes('layer'));
  assert.equal(r.chips.length, 4);
  assert.equal(r.chipsIn, 'stage-3');
});

test('<attention-model>’s head attribute counts from 0, as its views do: head="1" is the second head, and a head past the last (or below 0) is refused by name', async () => {
  const { page, errors } = await open('model-head', 1280);
  // Sets head, waits two frames, and reads the caption, the lines view's readout, the error
  // shown and the selected layer's maps [heads, T, T] (toJSON: the forward's own).
  const withHead = (head) =>
    page.evaluate(async (head) => {
      const el = document.querySelector('attention-model');
      el.setAttribute('head', head);
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const root = el.shadowRoot;
      const heatmap = root.querySelector('attention-heatmap')?.shadowRoot;
      const json = el.toJSON();
      return {
        caption: root.querySelector('.caption')?.textContent ?? '',
        readout: [...(heatmap?.querySelectorAll('.readout .weights') ?? [])].map((line) => line.textContent),
        alert: root.querySelector('.attribute-error')?.textContent ?? null,
        error: el.error?.message ?? null,
        names: json.tokens.map((t) => t.name),
        layer: json.layer,
        shape: json.attentions.shape,
        data: json.attentions.data,
      };
    }, head);
  const second = await withHead('1');
  const [H, T] = second.shape;
  assert.equal(H, 4, 'the shipped tiny GPT-2 has 4 heads');
  assert.equal(second.error, null);
  assert.ok(second.caption.startsWith('Head view. Layer 0, head 1: '), second.caption);
  // The lines view shows head index 1: the last query's row of attentions[0][1].
  assert.equal(second.readout.length, 1);
  const [where, list] = second.readout[0].split(': ');
  assert.equal(where, `from query “${second.names.at(-1)}” (position ${T - 1}), head 1`);
  const row = second.data.slice((1 * T + T - 1) * T, (1 * T + T) * T);
  assert.deepEqual(
    entries(list),
    second.names.map((name, j) => [name, number(formatted(row[j]))]),
  );
  // One past the last head, and below the first: the element's message, in place.
  for (const bad of ['4', '-1']) {
    const r = await withHead(bad);
    const message = `attention-model: head must be a whole number from 0 to 3 or one of average, all, got "${bad}"`;
    assert.equal(r.error, message);
    assert.equal(r.alert, message);
  }
  // The last head (3) is good again and clears the message.
  const last = await withHead('3');
  assert.equal(last.error, null);
  assert.equal(last.alert, null);
  assert.ok(last.caption.startsWith('Head view. Layer 0, head 3: '), last.caption);
  assert.deepEqual(errors, []);
  await page.close();
});

// Round 6: what the round-5 reader still could not say from <attention-model>'s and
// <attention-heatmap>'s screenshots.

// The head view's lines as drawn: [{ query, key, head, weight, width, opacity }] of the lines
// on screen (display not none), after `act` (run in the page with the heatmap's shadow root).
async function drawnLines(page, act = '') {
  return page.evaluate((act) => {
    const root = document.querySelector('attention-model').shadowRoot.querySelector('attention-heatmap').shadowRoot;
    if (act) new Function('root', act)(root);
    return [...root.querySelectorAll('svg line')]
      .filter((l) => getComputedStyle(l).display !== 'none')
      .map((l) => ({
        query: Number(l.dataset.query),
        key: Number(l.dataset.key),
        head: Number(l.dataset.head),
        weight: Number(l.dataset.weight),
        width: Number(l.getAttribute('stroke-width')),
        opacity: Number(getComputedStyle(l).opacity),
        x: [Number(l.getAttribute('x1')), Number(l.getAttribute('x2'))],
      }));
  }, act);
}

test('the head view with every head draws one token’s lines only (the selected query’s, every head, every key it sees), 180 px long; a click, a hover moves them', async () => {
  const { page } = await open('model-head', 1280);
  const T = await page.evaluate(() => document.querySelector('attention-model').toJSON().tokens.length);
  const resting = await drawnLines(page);
  assert.ok(resting.length > 0);
  assert.deepEqual([...new Set(resting.map((l) => l.query))], [T - 1], 'the last query only');
  assert.deepEqual(new Set(resting.map((l) => l.head)), new Set([0, 1, 2, 3]));
  assert.equal(new Set(resting.map((l) => l.key)).size, T, 'a line to each key');
  assert.ok(
    resting.every((l) => l.x[1] - l.x[0] >= 180),
    'the lines span at least 180 px',
  );
  const clicked = await drawnLines(
    page,
    `root.querySelector('g.token[data-side="query"][data-index="2"]').dispatchEvent(new MouseEvent('click'));`,
  );
  assert.deepEqual([...new Set(clicked.map((l) => l.query))], [2]);
  // a decoder's query 2 sees keys 0 … 2: their lines carry its weights, the later ones none
  assert.ok(clicked.filter((l) => l.key > 2).every((l) => l.weight === 0));
  const hovered = await drawnLines(
    page,
    `root.querySelector('g.token[data-side="key"][data-index="1"]').dispatchEvent(new MouseEvent('mouseenter'));`,
  );
  assert.deepEqual([...new Set(hovered.map((l) => l.key))], [1], 'the key under the pointer: the lines to it');
  const left = await drawnLines(
    page,
    `root.querySelector('g.token[data-side="key"][data-index="1"]').dispatchEvent(new MouseEvent('mouseleave'));`,
  );
  assert.deepEqual([...new Set(left.map((l) => l.query))], [2], 'back to the selected query');
  await page.close();
});

test('the lines view encodes weight by width as well as opacity (0.478 and 0.522 differ), says so in its key, whose faintest sample sits in a box that shows on a dark page; print writes the same readout as the screen', async () => {
  for (const scheme of ['light', 'dark']) {
    const { page } = await open('heatmap-lines', 1280, scheme);
    const read = () =>
      page.evaluate(() => {
        const root = document.querySelector('attention-heatmap').shadowRoot;
        const box = getComputedStyle(root.querySelector('.key .samples'));
        let bg = document.body;
        while (bg && /rgba\(.*, 0\)|transparent/.test(getComputedStyle(bg).backgroundColor)) bg = bg.parentElement;
        const readout = root.querySelector('.readout');
        return {
          key: root.querySelector('.key').textContent,
          lines: [...root.querySelectorAll('svg line')].map((l) => [
            Number(l.dataset.weight),
            Number(l.getAttribute('stroke-width')),
          ]),
          border: [box.borderTopWidth, box.borderTopColor],
          page: bg ? getComputedStyle(bg).backgroundColor : 'rgb(255, 255, 255)',
          readout: readout.getBoundingClientRect().height > 0 ? readout.textContent : null,
        };
      });
    const r = await read();
    assert.match(r.key, /^line width and opacity = weight: /);
    const sorted = [...r.lines].sort((a, b) => a[0] - b[0]);
    assert.ok(sorted[0][0] < 0.49 && sorted.at(-1)[0] > 0.51, 'the example has 0.478 and 0.522');
    for (let n = 1; n < sorted.length; n++)
      if (sorted[n][0] > sorted[n - 1][0] + 0.04)
        assert.ok(sorted[n][1] > sorted[n - 1][1] + 0.2, `${sorted[n - 1]} then ${sorted[n]}: wider for more weight`);
    assert.notEqual(r.border[0], '0px');
    assert.ok(contrast(r.border[1], r.page) >= 3, `${scheme}: the samples' box ${r.border[1]} on ${r.page}`);
    assert.match(r.readout, /^from query “am” \(position 1\), head 0: /);
    await page.emulateMedia({ media: 'print' });
    assert.equal((await read()).readout, r.readout, `${scheme}: print writes the screen's readout`);
    await page.close();
  }
});

test('masked cells (the mask the model applied: a decoder’s later keys) are hatched grey, outside the colour map, with a legend entry: the model view’s maps, the head view’s printed grids, a masked course example’s grid', async () => {
  let { page } = await open('model-model', 1280);
  const model = await page.evaluate(() => {
    const el = document.querySelector('attention-model');
    const T = el.toJSON().tokens.length;
    const canvas = el.shadowRoot.querySelector('button.thumb[aria-label="layer 0 head 0"] canvas');
    const g = canvas.getContext('2d');
    const cell = canvas.width / T;
    // every pixel of cell (i, j), as [r, g, b]
    const pixels = (i, j) => {
      const d = g.getImageData(Math.ceil(j * cell), Math.ceil(i * cell), Math.floor(cell), Math.floor(cell)).data;
      return Array.from({ length: d.length / 4 }, (_, n) => [d[4 * n], d[4 * n + 1], d[4 * n + 2]]);
    };
    const weights = el.toJSON().attentions.data;
    return {
      T,
      masked: pixels(0, T - 1),
      seen: Array.from({ length: T }, (_, j) => [weights[(T - 1) * T + j], pixels(T - 1, j)]),
      key: el.shadowRoot.querySelector('.masked-key')?.textContent,
    };
  });
  await page.close();
  const grey = ([r, g, b]) => r === g && g === b;
  assert.ok(model.masked.every(grey), 'the masked cell (query 0, last key) is grey');
  assert.ok(new Set(model.masked.map(([r]) => r)).size === 2, 'hatched: two greys');
  // the last query sees every key: none of its cells is grey, the smallest weight included
  for (const [w, px] of model.seen) assert.ok(!px.some(grey), `a weight of ${w} is not grey`);
  assert.equal(model.key, 'masked: a later position (a decoder cannot see it), weight 0');

  ({ page } = await open('model-head', 1280));
  await page.emulateMedia({ media: 'print' });
  const printed = await page.evaluate(() => {
    const root = document.querySelector('attention-model').shadowRoot.querySelector('attention-heatmap').shadowRoot;
    const m = root.querySelector('.print-only attention-matrix').shadowRoot;
    const cells = [...m.querySelectorAll('td')].map((td) => [
      Number(td.dataset.row),
      Number(td.dataset.col),
      td.classList.contains('masked'),
      getComputedStyle(td).backgroundImage,
    ]);
    return { cells, key: m.querySelector('.masked-key')?.textContent };
  });
  assert.ok(printed.cells.length > 0);
  for (const [i, j, masked, image] of printed.cells) {
    assert.equal(masked, j > i, `printed cell ${i},${j}`);
    assert.equal(image.includes('repeating-linear-gradient'), j > i);
  }
  assert.match(printed.key, /^hatched grey = a later position/);

  const example = await page.evaluate(async () => {
    const h = document.createElement('attention-heatmap');
    h.setAttribute('example', '3');
    h.setAttribute('tokens', 'I,am');
    document.querySelector('main').append(h);
    for (let n = 0; n < 100 && !h.shadowRoot.querySelector('attention-matrix'); n++)
      await new Promise((r) => setTimeout(r, 20));
    const m = h.shadowRoot.querySelector('attention-matrix').shadowRoot;
    return [...m.querySelectorAll('td.masked')].map((td) => `${td.dataset.row},${td.dataset.col}`);
  });
  await page.close();
  assert.deepEqual(example, ['0,1'], 'example 3: its mask hides key 1 from query 0');
});

test('the model view enlarges the outlined map with its axes: query ↓ and key →, every row named by its token and every column numbered (9 tokens), the same pixels as the 48 px map', async () => {
  for (const width of [390, 1280]) {
    const { page } = await open('model-model', width);
    const r = await page.evaluate(() => {
      const el = document.querySelector('attention-model');
      const figure = el.shadowRoot.querySelector('figure.axes-map');
      if (!figure) return null;
      const big = figure.querySelector('canvas');
      const thumb = el.shadowRoot.querySelector('button.thumb[aria-current=true] canvas');
      const data = (c) => Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data);
      const box = big.getBoundingClientRect();
      const { tokens } = el.toJSON();
      return {
        T: tokens.length,
        title: figure.querySelector('figcaption').textContent,
        top: [...figure.querySelectorAll('.ticks.top span')].map((s) => s.textContent),
        left: [...figure.querySelectorAll('.ticks.left span')].map((s) => s.textContent),
        corner: figure.querySelector('.corner')?.textContent,
        names: tokens.map((t) => t.name),
        // each row's name centred on its row of cells (20 px each)
        rowsAligned: [...figure.querySelectorAll('.ticks.left span')].every((s, i) => {
          const b = s.getBoundingClientRect();
          return Math.abs((b.top + b.bottom) / 2 - (box.top + (i + 0.5) * (box.height / tokens.length))) <= 2;
        }),
        same: JSON.stringify(data(big)) === JSON.stringify(data(thumb)),
        size: [box.width, box.height],
        readout: el.shadowRoot.querySelector('.readout').textContent,
      };
    });
    await page.close();
    assert.ok(r, `${width}: an enlarged map`);
    assert.match(r.title, /^Layer 0, head 0 \(in the grid above: row 0, column 0\)/);
    assert.match(r.readout, /^Layer 0, head 0: /, 'the map the readout reads');
    assert.equal(r.T, 9);
    assert.deepEqual(r.top, ['0', '1', '2', '3', '4', '5', '6', '7', '8']);
    assert.deepEqual(r.left, r.names);
    assert.equal(r.left[2], 'c');
    assert.equal(r.left[3], 'at·3', 'a repeated token by its position, as everywhere');
    assert.equal(r.corner, 'query ↓ key →');
    assert.ok(r.rowsAligned, 'each token name beside its row');
    assert.match(r.title, /Rows: the query tokens; columns: the same tokens as keys, numbered from 0$/);
    assert.ok(r.same, 'the outlined map’s pixels');
    assert.ok(r.size[0] >= 100 && r.size[1] >= 100, `${r.size}`);
  }
});

test('the neuron view colours q, k and q ⊙ k on one scale (± the largest |value| of all its cells), under one legend that says so', async () => {
  const { heatColour } = await import('../web/elements/format.js');
  for (const scheme of ['light', 'dark']) {
    const { page } = await open('model-neuron', 1280, scheme);
    const r = await page.evaluate(() => {
      const root = document.querySelector('attention-model').shadowRoot;
      return {
        cells: [...root.querySelectorAll('table.neuron td.dim')].map((td) => [
          Number(td.dataset.value),
          td.style.background,
        ]),
        legends: [...root.querySelectorAll('.legends .legend')].map((l) => [
          l.querySelector('.title').textContent,
          Number(l.dataset.min),
          Number(l.dataset.max),
        ]),
      };
    });
    await page.close();
    const M = Math.max(...r.cells.map(([v]) => Math.abs(v)));
    assert.deepEqual(r.legends, [['q, k and q ⊙ k cells (one scale)', -M, M]]);
    const rgb = (css) => css.match(/\d+/g).map(Number).join(',');
    for (const [v, background] of r.cells)
      assert.equal(rgb(background), rgb(heatColour(v, 'diverging', { min: -M, max: M }).background), `cell ${v}`);
  }
});

test('the heatmap grids say what counts from 0 only where it is numbered: head titles, default position labels', async () => {
  const { page } = await open('heatmap-grid', 1280);
  const captions = await page.evaluate(async (heads) => {
    const grid = (attributes, weights) => {
      const h = document.createElement('attention-heatmap');
      for (const [k, v] of Object.entries(attributes)) h.setAttribute(k, v);
      document.querySelector('main').append(h);
      h.weights = weights;
      return {
        caption: h.shadowRoot.querySelector('.caption').textContent,
        titles: [...h.shadowRoot.querySelectorAll('attention-matrix')].map((m) => m.getAttribute('label')),
        rows: h.shadowRoot.querySelector('attention-matrix').rowLabels,
      };
    };
    return {
      page: document.querySelector('attention-heatmap').shadowRoot.querySelector('.caption').textContent,
      oneNamed: grid({ tokens: 'the,cat,sat' }, heads[0]),
      threeNamed: grid({ tokens: 'the,cat,sat' }, heads),
      threeNumbered: grid({}, heads),
    };
  }, HEADS);
  await page.close();
  // example 2, tokens "I" and "am", one map: nothing numbered, nothing said
  assert.doesNotMatch(captions.page, /count from 0/);
  assert.doesNotMatch(captions.oneNamed.caption, /count from 0/);
  assert.deepEqual(captions.threeNamed.titles, ['head 0', 'head 1', 'head 2', 'average of heads']);
  assert.match(captions.threeNamed.caption, / Heads count from 0\.$/);
  assert.match(captions.threeNumbered.caption, / Heads and positions count from 0\.$/);
});

test('the model line counts the parameters (GPT-2’s closed form from config.json, the tied LM head once), then says what its MiB are', async () => {
  const { readFile } = await import('node:fs/promises');
  const c = JSON.parse(
    await readFile(new URL('../web/elements/models/tiny-gpt2/config.json', import.meta.url), 'utf8'),
  );
  const d = c.n_embd;
  // embeddings (tokens, positions); per layer: 2 norms (4d), c_attn (3d² + 3d), c_proj
  // (d² + d), the MLP (4d² + 4d and 4d² + d); the final norm (2d); the LM head tied (0)
  const count = c.vocab_size * d + c.n_positions * d + c.n_layer * (12 * d * d + 13 * d) + 2 * d;
  const { page } = await open('model-head', 1280);
  const r = await page.evaluate(() => {
    const el = document.querySelector('attention-model');
    return {
      status: el.shadowRoot.querySelector('.row .status').textContent,
      count: el.model.parameterCount,
      bytes: el.model.parameterBytes,
    };
  });
  await page.close();
  assert.equal(r.count, count);
  const size = (b) => (b < 2 ** 20 ? `${(b / 2 ** 10).toFixed(1)} KiB` : `${(b / 2 ** 20).toFixed(1)} MiB`);
  assert.ok(
    r.status.endsWith(
      ` · ${count.toLocaleString('en-US')} parameters (${size(count * 4)} as float32; in memory ${size(r.bytes)}: the runner's weights laid out for its SIMD kernels)`,
    ),
    r.status,
  );
});

test('on a dark page no legend of the model views names a colour by the page’s white: a signed scale says palest = 0', async () => {
  for (const name of ['model-neuron', 'model-model', 'model-head', 'heatmap-lines', 'heatmap-grid']) {
    const { page } = await open(name, 1280, 'dark');
    const legends = await page.evaluate(() => {
      const texts = [];
      const walk = (root) => {
        for (const el of root.querySelectorAll('*')) {
          if (el.matches('[part~=legend], .legend, .key')) texts.push(el.textContent);
          if (el.shadowRoot) walk(el.shadowRoot);
        }
      };
      walk(document);
      return texts;
    });
    await page.close();
    assert.ok(legends.length > 0, name);
    for (const text of legends) assert.doesNotMatch(text, /white/i, `${name}: ${text}`);
    if (name === 'model-neuron') assert.match(legends.join(' '), /\(palest = 0, the brightest on a dark page\)/);
  }
});

// Round 7: what the round-6 reader still could not say from the model views' screenshots.

// A computed colour ('rgb(r, g, b)') as CIELAB (D65) after simulated deuteranopia: Machado,
// Oliveira and Fernandes (2009), severity 1, applied to linear sRGB.
function deuteranopeLab(colour) {
  const lin = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const [r, g, b] = colour
    .match(/[\d.]+/g)
    .slice(0, 3)
    .map(Number)
    .map(lin);
  const M = [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ];
  const [R, G, B] = M.map((m) => Math.min(1, Math.max(0, m[0] * r + m[1] * g + m[2] * b)));
  const X = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047,
    Y = 0.2126 * R + 0.7152 * G + 0.0722 * B,
    Z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))];
}

test('head colours: named in the chips ("head 0 (blue)"), 3:1 or more against a light and a dark page, and told apart under simulated deuteranopia (ΔE ≥ 15 for every pair up to six heads)', async () => {
  for (const scheme of ['light', 'dark']) {
    const { page } = await open('heatmap-lines', 1280, scheme);
    const r = await page.evaluate(() => {
      const out = [];
      for (const count of [2, 3, 4, 5, 6, 8, 12, 16]) {
        const h = document.createElement('attention-heatmap');
        h.setAttribute('view', 'lines');
        h.setAttribute('head', 'all');
        h.setAttribute('tokens', 'a,b');
        document.querySelector('main').append(h);
        h.weights = { data: new Float32Array(count * 4).fill(0.5), shape: [count, 2, 2] };
        const root = h.shadowRoot;
        const lines = [...root.querySelectorAll('line')];
        out.push({
          count,
          chips: [...root.querySelectorAll('.chip')].map((c) => [c.textContent, getComputedStyle(c).borderLeftColor]),
          strokes: [...new Set(lines.map((l) => getComputedStyle(l).stroke))],
        });
        h.remove();
      }
      let bg = document.body;
      while (bg && /rgba\(.*, 0\)|transparent/.test(getComputedStyle(bg).backgroundColor)) bg = bg.parentElement;
      return { out, page: bg ? getComputedStyle(bg).backgroundColor : 'rgb(255, 255, 255)' };
    });
    await page.close();
    assert.equal(r.page, scheme === 'dark' ? 'rgb(17, 17, 17)' : 'rgb(255, 255, 255)');
    const names = ['blue', 'orange', 'green', 'purple', 'sky blue', 'olive'];
    for (const { count, chips, strokes } of r.out) {
      assert.equal(chips.length, count);
      assert.deepEqual(
        new Set(strokes),
        new Set(chips.map(([, c]) => c)),
        `${count} heads: lines in the chips' colours`,
      );
      chips.forEach(([text, colour], n) => {
        assert.equal(text, count <= 6 ? `head ${n} (${names[n]})` : `head ${n}`);
        const ratio = contrast(colour, r.page);
        assert.ok(ratio >= 3, `${scheme}, head ${n} of ${count}: ${colour} at ${ratio.toFixed(2)}:1`);
      });
      if (count > 6) continue;
      // CIE76 ΔE 2.3 is a just-noticeable difference between two large patches side by side; a
      // head's line is 1–6 px wide and its chip's colour is seen apart from the others', so we
      // ask for more than six times that.
      for (let a = 0; a < count; a++)
        for (let b = a + 1; b < count; b++) {
          const [x, y] = [deuteranopeLab(chips[a][1]), deuteranopeLab(chips[b][1])];
          const dE = Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
          assert.ok(
            dE >= 15,
            `${scheme}, ${count} heads: heads ${a} and ${b} at ΔE ${dE.toFixed(1)} for a deuteranope`,
          );
        }
    }
  }
});

test('the lines view at near-equal weights (0.522 and 0.478): the selected query’s lines in colour with their weights at their ends, 3:1 on the page; the other query’s thin and grey; a click moves both', async () => {
  for (const scheme of ['light', 'dark']) {
    const { page } = await open('heatmap-lines', 1280, scheme);
    const read = (act = '') =>
      page.evaluate((act) => {
        const h = document.querySelector('attention-heatmap');
        const root = h.shadowRoot;
        if (act) new Function('root', act)(root);
        let bg = document.body;
        while (bg && /rgba\(.*, 0\)|transparent/.test(getComputedStyle(bg).backgroundColor)) bg = bg.parentElement;
        const tokenY = (side, n) =>
          Number(root.querySelector(`g.token[data-side="${side}"][data-index="${n}"] text`).getAttribute('y'));
        return {
          weights: h.weights[0],
          page: bg ? getComputedStyle(bg).backgroundColor : 'rgb(255, 255, 255)',
          lines: [...root.querySelectorAll('svg line')].map((l) => {
            const style = getComputedStyle(l);
            return {
              query: Number(l.dataset.query),
              key: Number(l.dataset.key),
              other: l.classList.contains('other'),
              stroke: style.stroke,
              width: parseFloat(style.strokeWidth),
              opacity: Number(style.opacity),
            };
          }),
          labels: [...root.querySelectorAll('svg text.weight')].map((t) => ({
            key: Number(t.dataset.key),
            text: t.textContent,
            y: Number(t.getAttribute('y')),
            keyY: tokenY('key', Number(t.dataset.key)),
          })),
          underlined: [...root.querySelectorAll('g.token')]
            .filter((g) => getComputedStyle(g.querySelector('text')).textDecorationLine === 'underline')
            .map((g) => `${g.dataset.side} ${g.dataset.index}`),
        };
      }, act);
    const check = (r, query) => {
      const mine = r.lines.filter((l) => l.query === query);
      const others = r.lines.filter((l) => l.query !== query);
      assert.ok(mine.length === 2 && others.length === 2);
      assert.ok(mine.every((l) => !l.other) && others.every((l) => l.other));
      // a line as seen: its stroke at its opacity over the page
      const seen = (l) => contrast(l.stroke.replace('rgb(', 'rgba(').replace(')', `, ${l.opacity})`), r.page);
      for (const l of mine)
        assert.ok(seen(l) >= 3, `${scheme}: query ${query}'s line to ${l.key} at ${seen(l).toFixed(2)}:1`);
      for (const l of others) {
        assert.ok(l.width <= 1 && l.stroke !== mine[0].stroke, `${scheme}: the other query's line thin and grey`);
        assert.ok(
          seen(l) < 2,
          `${scheme}: the other query's line fainter than the selected's (${seen(l).toFixed(2)}:1)`,
        );
      }
      assert.deepEqual(
        r.labels.map((t) => [t.key, t.text]),
        r.weights[query].map((x, j) => [j, formatNumber(x, 2)]),
      );
      for (const t of r.labels) assert.equal(t.y, t.keyY - 8, 'the weight sits just above its key’s row');
      assert.deepEqual(r.underlined, [`query ${query}`]);
    };
    const r = await read();
    assert.ok(Math.abs(r.weights[1][0] - 0.522) < 5e-4 && Math.abs(r.weights[1][1] - 0.478) < 5e-4);
    check(r, 1);
    check(
      await read(
        `root.querySelector('g.token[data-side="query"][data-index="0"]').dispatchEvent(new MouseEvent('click'));`,
      ),
      0,
    );
    await page.close();
  }
});

test('on paper the model views name no control print removes (pick, click, hover, focus …): they say what is shown instead', async () => {
  const controls = /\b(pick (?:a|an|another|one)|click|clicked|tap|hover|hovering|focus|focused|press|drag)\b/i;
  for (const [name, tag, shown] of [
    ['explainer', 'attention-explainer', /the head shown: layer 0, head 0/],
    ['model-model', 'attention-model', /Outlined: the layer shown, layer 0 \(every head\)/],
    ['model-head', 'attention-model', /in bold: “at·8” ?\)/],
    ['model-neuron', 'attention-model', null],
  ]) {
    const { page } = await open(name, 1280);
    await page.emulateMedia({ media: 'print' });
    const words = await visibleText(page, tag);
    await page.close();
    const found = words.match(new RegExp(`.{0,60}${controls.source}.{0,40}`, 'i'));
    assert.equal(found, null, `${name} on paper: “${found?.[0]}”`);
    if (shown) assert.match(words, shown, name);
  }
});

test('the heatmap grid’s caption of example 2 says in plain words which example is masked (not “the same two tokens with one, does”)', async () => {
  const { page } = await open('heatmap-grid', 1280);
  const caption = await page.evaluate(
    () => document.querySelector('attention-heatmap').shadowRoot.querySelector('[data-role=example]').textContent,
  );
  await page.close();
  assert.match(caption, /^The course's worked example 2 /);
  assert.match(
    caption,
    /a decoder would block it with a causal mask \(the course's example 3 does: the same two tokens, with that mask\)\.$/,
  );
  assert.doesNotMatch(caption, /with one, does/);
});

// Puts the page's `tag` into a `width` × `height` px box (height 0: as tall as it needs),
// itself in a shrink-to-fit wrapper (an inline-block, as a host page that sizes an element to
// its content) when `shrink`; resolves to what overflows: the element's and the wrapper's
// widths, its scroll and client widths and height, every visible box of its shadow trees past
// the box's right (or, with a height, bottom) edge, and every scroll region that scrolls.
async function inBox(page, tag, { width, height = 0, shrink = false, attributes = {} }) {
  return page.evaluate(
    async ([tag, width, height, shrink, attributes]) => {
      const el = document.querySelector(tag);
      const box = document.createElement('div');
      box.style.cssText = `width: ${width}px; ${height ? `height: ${height}px;` : ''}`;
      const wrap = document.createElement('div');
      if (shrink) wrap.style.display = 'inline-block';
      box.append(wrap);
      document.querySelector('main').prepend(box);
      for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
      wrap.append(el);
      await new Promise((resolve) => setTimeout(resolve, 600)); // (the resize observers)
      const edge = box.getBoundingClientRect();
      const past = [],
        scrolling = [];
      const walk = (root) => {
        for (const e of root.querySelectorAll('*')) {
          if (e.shadowRoot) walk(e.shadowRoot);
          if (!e.checkVisibility()) continue;
          const r = e.getBoundingClientRect();
          if (r.width === 0 || r.height === 0) continue;
          if (r.right > edge.right + 0.5 || (height && r.bottom > edge.bottom + 0.5))
            past.push(`${e.localName}.${e.getAttribute('class') ?? ''} ${Math.round(r.right)}×${Math.round(r.bottom)}`);
          if (e.matches('.scroll') && e.scrollWidth > e.clientWidth + 1) scrolling.push(e.getAttribute('aria-label'));
        }
      };
      walk(el.shadowRoot);
      const r = el.getBoundingClientRect();
      return {
        width: r.width,
        height: r.height,
        wrap: wrap.getBoundingClientRect().width,
        scroll: [el.scrollWidth, el.clientWidth],
        within: r.right <= edge.right + 0.5 && (!height || r.bottom <= edge.bottom + 0.5),
        past: [...new Set(past)].slice(0, 10),
        scrolling,
      };
    },
    [tag, width, height, shrink, attributes],
  );
}

test('the explainer fits a 360 px box, also in a host that sizes it to its content: no box past the edge, no grid scrolling sideways (the grids band)', async () => {
  for (const shrink of [false, true]) {
    const { page } = await open('explainer', 1280);
    const r = await inBox(page, 'attention-explainer', { width: 360, shrink });
    await page.close();
    assert.ok(r.width <= 360 && r.wrap <= 360, `shrink ${shrink}: ${r.width} px in a ${r.wrap} px wrapper`);
    assert.ok(r.scroll[0] <= r.scroll[1], `shrink ${shrink}: scrollWidth ${r.scroll}`);
    assert.ok(r.within);
    assert.deepEqual(r.past, [], `shrink ${shrink}`);
    assert.deepEqual(r.scrolling, [], `shrink ${shrink}`);
  }
});

test('<attention-model layout="compact"> fits a 960 × 700 slide in each view, the next-token table beside the head and model views; without it the head view does not', async () => {
  for (const [name, beside] of [
    ['model-head', true],
    ['model-model', true],
    ['model-neuron', false],
  ]) {
    const { page } = await open(name, 1280);
    const r = await inBox(page, 'attention-model', { width: 960, height: 700, attributes: { layout: 'compact' } });
    const table = await page.evaluate(() => {
      const root = document.querySelector('attention-model').shadowRoot;
      const [view, extra] = [root.querySelector('.main > :first-child'), root.querySelector('table.probabilities')];
      const [a, b] = [view.getBoundingClientRect(), extra.getBoundingClientRect()];
      return { shown: b.height > 0, beside: b.left >= a.right && b.top < a.bottom };
    });
    await page.close();
    assert.ok(r.within, `${name}: ${r.width} × ${r.height} px`);
    assert.ok(r.scroll[0] <= r.scroll[1], `${name}: scrollWidth ${r.scroll}`);
    assert.deepEqual(r.past, [], name);
    assert.deepEqual(r.scrolling, [], name);
    assert.deepEqual(table, { shown: beside, beside }, name);
  }
  // The premise: the default layout overflows the slide.
  const { page } = await open('model-head', 1280);
  const r = await inBox(page, 'attention-model', { width: 960, height: 700 });
  await page.close();
  assert.ok(!r.within && r.height > 700, `${r.height}`);
});
