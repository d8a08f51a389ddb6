// What a reader who sees only a screenshot of an element could still not say (issue 45, the
// second cold reader's list), now said by the views, in headless Chromium on the pages
// docs/elements.md shows: PE·PEᵀ's caption and scale agree with the closed form
// Σᵢ cos((p − p′)·ωᵢ); RoPE's table says which q and k it rotates; the lines view prints its
// weights on paper; repeated tokens carry their position; the words are a reader's; the
// matrix's colour bar has a title; on a dark page the colour maps' dark low end stays inside
// visible borders.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openElementPage, startElementBrowser } from './helpers/element-page.js';
import { EXAMPLES, WEIGHTS } from '../web/elements/course-examples.js';
import { contrast } from './helpers/contrast.js';

let url, browser, close;

test.before(async () => {
  ({ url, browser, close } = await startElementBrowser());
});

test.after(() => close?.());

const open = (name, width, scheme) => openElementPage(browser, url, name, width, scheme);
const number = (text) => Number(text.replace('−', '-'));
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

// PE_p · PE_p′ in float64 by the closed form, as a function of the distance Δ:
// s(Δ) = Σ_{i < d/2} cos(Δ·ωᵢ), ωᵢ = base^(−2i/d).
function similarityByDistance(positions, d, base) {
  return Array.from({ length: positions }, (_, gap) =>
    Array.from({ length: d / 2 }, (_, i) => Math.cos(gap * base ** ((-2 * i) / d))).reduce((a, b) => a + b, 0),
  );
}

test("PE·PEᵀ: the caption states the closed form's diagonal, lowest value and trend, and the scale's ends are those values", async () => {
  const { page } = await open('positional-sinusoidal', 1280);
  const read = () =>
    page.evaluate(() => {
      const root = document.querySelector('positional-encoding').shadowRoot;
      const [pe, similarity] = root.querySelectorAll('figure');
      const legend = (figure) => {
        const l = figure.querySelector('.legend');
        return [l.querySelector('.title').textContent, Number(l.dataset.min), Number(l.dataset.max)];
      };
      return {
        pe: legend(pe),
        similarity: legend(similarity),
        caption: similarity.querySelector('.caption').textContent,
        note: root.querySelector('.note').textContent,
      };
    });
  const r = await read();
  const s = similarityByDistance(32, 32, 10000);
  const low = s.indexOf(Math.min(...s));
  // The premises the words rest on, in float64: it falls off overall, and rises again somewhere.
  assert.ok(mean(s.slice(1, 17)) > mean(s.slice(17)), 'the nearer half is more similar');
  assert.ok(
    s.slice(1).some((x, gap) => x > s[gap]),
    'it ripples',
  );
  assert.ok(
    r.caption.includes(
      'It is 16.00 (= d_model/2) on the diagonal and falls off overall as the positions move apart, rippling on the way',
    ),
    r.caption,
  );
  assert.ok(r.caption.includes(`the lowest, ${s[low].toFixed(2)}, is at distance ${low}.`), r.caption);
  assert.ok(
    r.caption.endsWith(
      `The colours span ${s[low].toFixed(2)} to 16.00: the darkest cell is ${s[low].toFixed(2)}, not 0.`,
    ),
    r.caption,
  );
  assert.equal(r.similarity[0], "dot product (this image's own scale)");
  assert.ok(Math.abs(r.similarity[1] - s[low]) < 1e-4 && Math.abs(r.similarity[2] - 16) < 1e-4, `${r.similarity}`);
  assert.equal(r.pe[0], "PE value (this image's own scale)");
  assert.match(r.note, /PE_p · PE_p′ = Σᵢ cos\(\(p − p′\)·ωᵢ\)/);
  assert.doesNotMatch(r.note, /falls off with/);

  // On paper (nothing is hovered) every value: one per distance, each diagonal's.
  await page.emulateMedia({ media: 'print' });
  const printed = await page.evaluate(() => {
    const p = document.querySelector('positional-encoding').shadowRoot.querySelector('.print-only');
    return { text: p.textContent, display: getComputedStyle(p).display };
  });
  await page.emulateMedia({ media: 'screen' });
  assert.equal(printed.display, 'block');
  const byDistance = [...printed.text.matchAll(/(\d+): (−?\d+\.\d\d)/g)].map((m) => [Number(m[1]), number(m[2])]);
  assert.deepEqual(
    byDistance.map(([gap]) => gap),
    s.map((_, gap) => gap),
  );
  byDistance.forEach(([gap, v]) =>
    assert.ok(Math.abs(v - s[gap]) <= 0.005 + 1e-6, `distance ${gap}: ${v} vs ${s[gap]}`),
  );

  // Base 10: the same closed form, and the words follow its values (here: signed, so the
  // colours are centred on 0).
  await page.evaluate(() => {
    const select = document.querySelector('positional-encoding').shadowRoot.querySelector('select[name="base"]');
    select.value = '10';
    select.dispatchEvent(new Event('change'));
  });
  await page.waitForFunction(
    (before) =>
      document.querySelector('positional-encoding').shadowRoot.querySelectorAll('figure .caption')[1].textContent !==
      before,
    r.caption,
  );
  const ten = await read();
  await page.close();
  // Base 10 in float64: the nearer half is more similar and it ripples too (and dips below 0).
  const t = similarityByDistance(32, 32, 10);
  const tLow = t.indexOf(Math.min(...t));
  assert.ok(mean(t.slice(1, 17)) > mean(t.slice(17)) && t.slice(1).some((x, gap) => x > t[gap]));
  assert.ok(
    ten.caption.includes(
      `on the diagonal and falls off overall as the positions move apart, rippling on the way; the lowest, ${t[tLow].toFixed(2).replace('-', '−')}, is at distance ${tLow}.`,
    ),
    ten.caption,
  );
  assert.ok(t[tLow] < 0 && ten.caption.endsWith('Blue is below 0, red above, white 0.'), ten.caption);
});

test('RoPE: the table says which q and k it rotates, and its scores are q·R((n − m)·1 rad)·k', async () => {
  const { page } = await open('positional-rope', 1280);
  const r = await page.evaluate(() => {
    const el = document.querySelector('positional-encoding');
    const table = el.shadowRoot.querySelector('attention-matrix[data-name="scores"]').shadowRoot;
    return {
      caption: table.querySelector('.caption').textContent,
      scores: Array.from(el.tensors.scores.data),
      q: Array.from(el.tensors.q.data),
      cells: [...table.querySelectorAll('td')].map((td) => td.textContent),
    };
  });
  // "Copy code" computes the same rotations and scores (its import and init are this page's).
  const copied = await page.evaluate(async () => {
    const el = document.querySelector('positional-encoding');
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    const body = el
      .toCode()
      .replace("import { init } from 'attention-wasm';", '')
      .replace(/const attn = await init\(.*\n/, '');
    const { q, trace } = await new Function('attn', `return (async () => {${body}\nreturn { q, trace };})();`)(attn);
    return {
      rotated: Array.from(q.data),
      scores: Array.from(trace.scores.data),
      shown: Array.from(el.tensors.q.data),
    };
  });
  await page.close();
  assert.deepEqual(copied.rotated, copied.shown);
  copied.scores.forEach((x, i) =>
    assert.ok(Math.abs(x - r.scores[i]) < 1e-6, `copied score ${i}: ${x} vs ${r.scores[i]}`),
  );
  assert.match(
    r.caption,
    /^q = \(1, 0\.5\) and k = \(0\.3, 1\), two made-up feature pairs, the same at every position/,
  );
  assert.match(r.caption, /q·R\(\(n − m\)·1 rad\)·k/);
  // float64: R(a)·(x, y) = (x cos a − y sin a, x sin a + y cos a); θ₀ = 1 rad per position.
  const rotate = ([x, y], a) => [x * Math.cos(a) - y * Math.sin(a), x * Math.sin(a) + y * Math.cos(a)];
  for (let m = 0; m < 8; m++) {
    const qm = rotate([1, 0.5], m);
    assert.ok(Math.abs(r.q[2 * m] - qm[0]) < 1e-6 && Math.abs(r.q[2 * m + 1] - qm[1]) < 1e-6, `q at ${m}`);
    for (let n = 0; n < 8; n++) {
      const rk = rotate([0.3, 1], n - m);
      const exact = rk[0] * 1 + rk[1] * 0.5;
      assert.ok(Math.abs(r.scores[8 * m + n] - exact) < 1e-5, `score ${m}, ${n}: ${r.scores[8 * m + n]} vs ${exact}`);
      assert.ok(Math.abs(number(r.cells[8 * m + n]) - exact) <= 0.005 + 1e-6, `cell ${m}, ${n}`);
    }
  }
});

// Course example 2 in float64: softmax(X·W_Q · (X·W_K)ᵀ / √3), by rows.
function exampleTwoWeights() {
  const X = EXAMPLES.find((e) => e.id === 'ex2').X;
  const mul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
  const [Q, K] = [WEIGHTS.W_Q, WEIGHTS.W_K].map((w) => mul(X, w));
  return Q.map((q) => {
    const scores = K.map((k) => q.reduce((s, v, c) => s + v * k[c], 0) / Math.sqrt(3));
    const e = scores.map((v) => Math.exp(v - Math.max(...scores)));
    return e.map((v) => v / e.reduce((a, b) => a + b));
  });
}

test("the lines view on paper: each drawn map's weights as a printed table (screen: hidden); hidden heads print no table", async () => {
  const { page } = await open('heatmap-lines', 1280);
  const printed = () =>
    page.evaluate(() => {
      const root = document.querySelector('attention-heatmap').shadowRoot;
      const wrap = root.querySelector('.print-only');
      return {
        display: getComputedStyle(wrap).display,
        readout: getComputedStyle(root.querySelector('.readout')).display,
        tables: [...wrap.querySelectorAll('attention-matrix')].map((m) => ({
          label: m.label,
          rows: [...m.shadowRoot.querySelectorAll('th[role=rowheader]')].map((th) => th.textContent),
          values: [...m.shadowRoot.querySelectorAll('td')].map((td) => Number(td.dataset.value)),
          shown: [...m.shadowRoot.querySelectorAll('td')].map((td) => td.textContent),
        })),
      };
    });
  const screen = await printed();
  assert.equal(screen.display, 'none', 'on screen the lines and the readout are the view');
  await page.emulateMedia({ media: 'print' });
  const paper = await printed();
  assert.equal(paper.display, 'flex');
  assert.equal(paper.readout, 'block', "on paper the screen's readout too (the same token), above the printed tables");
  assert.equal(paper.tables.length, 1);
  const exact = exampleTwoWeights().flat();
  assert.equal(paper.tables[0].label, "head 0: the lines' weights");
  assert.deepEqual(paper.tables[0].rows, ['I', 'am']);
  paper.tables[0].values.forEach((v, i) =>
    assert.ok(Math.abs(v - exact[i]) < 1e-6, `weight ${i}: ${v} vs ${exact[i]}`),
  );
  assert.deepEqual(
    paper.tables[0].shown,
    exact.map((v) => v.toFixed(2)),
  );
  // Every head in a colour of its own, one hidden: a table per head drawn, with its weights.
  const heads = await page.evaluate(() => {
    const h = document.createElement('attention-heatmap');
    h.setAttribute('view', 'lines');
    h.setAttribute('head', 'all');
    h.setAttribute('tokens', 'a,b');
    document.querySelector('main').append(h);
    h.weights = {
      data: Float32Array.from([0.9, 0.1, 0.2, 0.8, 0.5, 0.5, 0.5, 0.5, 0.25, 0.75, 0.6, 0.4]),
      shape: [3, 2, 2],
    };
    h.hiddenHeads = [1];
    return [...h.shadowRoot.querySelectorAll('.print-only attention-matrix')].map((m) => [
      m.label,
      Array.from(m.value.data),
    ]);
  });
  await page.close();
  assert.deepEqual(heads, [
    ["head 0: the lines' weights", Array.from(Float32Array.from([0.9, 0.1, 0.2, 0.8]))],
    ["head 2: the lines' weights", Array.from(Float32Array.from([0.25, 0.75, 0.6, 0.4]))],
  ]);
});

test('repeated tokens carry their position: the sentiment tables ("was·3"), a heatmap and the pruning grid', async () => {
  let { page } = await open('sentiment', 1280);
  const r = await page.evaluate(() => {
    const el = document.querySelector('attention-sentiment');
    const tables = [...el.shadowRoot.querySelectorAll('table')];
    const heads = (table) => [...table.tHead.rows[0].cells].slice(1).map((c) => c.textContent);
    return {
      tokens: el.prediction.tokens.map((t) => t.text),
      // ([CLS]'s own vector in the first body, the table's rows in the second)
      vectors: [...tables[0].tBodies].flatMap((b) => [...b.rows].map((tr) => tr.cells[0].textContent)),
      cls: heads(tables[1]),
      matrixRows: [...tables[2].tBodies[0].rows].map((tr) => tr.cells[0].textContent),
      note: [...el.shadowRoot.querySelectorAll('.stage-note')].map((p) => p.textContent).join(' | '),
      calibration: tables[3].getAttribute('aria-label'),
    };
  });
  // A word longer than the tokenizer reads (max_input_chars_per_word, 100) is [UNK]: the
  // dotted underline's meaning is on the page, not only in a tooltip.
  const unknown = await page.evaluate(() => {
    const el = document.querySelector('attention-sentiment');
    el.setAttribute('text', `good ${'a'.repeat(101)}`);
    return {
      tokens: el.prediction.tokens.map((t) => t.text),
      underlined: [...el.shadowRoot.querySelectorAll('.chip.unknown')].map((c) => c.textContent),
      notes: [...el.shadowRoot.querySelectorAll('.stage-note')].map((p) => p.textContent),
    };
  });
  await page.close();
  assert.deepEqual(unknown.tokens, ['[CLS]', 'good', '[UNK]']);
  assert.deepEqual(unknown.underlined, ['[UNK]']);
  assert.ok(
    unknown.notes.includes('[UNK] (dotted underline): a word not in the vocabulary, which carries no sentiment.'),
    unknown.notes.join(' | '),
  );
  const expected = r.tokens.map((t, j) => (r.tokens.filter((u) => u === t).length > 1 ? `${t}·${j}` : t));
  assert.equal(expected[3], 'was·3', 'the sentence the docs show: "was" at position 3, [CLS] at 0');
  assert.deepEqual(r.vectors, ['[CLS] (own vector)', ...expected.slice(1)]);
  assert.deepEqual(r.cls, expected);
  assert.deepEqual(r.matrixRows, expected);
  assert.match(r.note, /A repeated token carries its position, counted from 0: the·1 is the “the” at position 1\./);
  // The calibration in a reader's words (no file name).
  assert.doesNotMatch(r.calibration, /config\.json/);
  assert.match(r.calibration, /T is stored with the classifier: a calibration fitted after training/);

  ({ page } = await open('heatmap-grid', 1280));
  const grid = await page.evaluate(() => {
    const h = document.querySelector('attention-heatmap');
    h.setAttribute('tokens', 'the,cat,the');
    h.weights = [
      [1, 0, 0],
      [0.5, 0.5, 0],
      [0.2, 0.3, 0.5],
    ];
    const m = h.shadowRoot.querySelector('attention-matrix').shadowRoot;
    return {
      rows: [...m.querySelectorAll('th[role=rowheader]')].map((t) => t.textContent),
      cols: [...m.querySelectorAll('th[role=columnheader]')].map((t) => t.textContent),
      caption: h.shadowRoot.querySelector('.caption').textContent,
      json: h.toJSON().tokens.k,
    };
  });
  await page.close();
  assert.deepEqual(grid.rows, ['the·0', 'cat', 'the·2']);
  assert.deepEqual(grid.cols, ['the·0', 'cat', 'the·2']);
  assert.match(grid.caption, /the·0 is the “the” at position 0\. Positions count from 0\.$/);
  assert.deepEqual(grid.json, ['the', 'cat', 'the'], 'the JSON keeps the tokens as given');

  ({ page } = await open('pruning', 1280));
  const pruning = await page.evaluate(async () => {
    const el = document.querySelector('token-pruning');
    el.setAttribute('tokens', 'a,rose,is,a,rose');
    await new Promise((done) => setTimeout(done, 300));
    const m = el.shadowRoot.querySelector('attention-matrix[data-name="weights"]').shadowRoot;
    return [...m.querySelectorAll('th[role=rowheader]')].map((t) => t.textContent);
  });
  await page.close();
  assert.deepEqual(pruning, ['a·0', 'rose·1', 'is', 'a·3', 'rose·4']);
});

test("training's maps name the repeated digit by position and draw their gaps in the border colour, visible on a dark page", async () => {
  const { page } = await open('training', 1280, 'dark');
  const r = await page.evaluate(() => {
    const el = document.querySelector('attention-training');
    const canvas = el.shadowRoot.querySelector('.maps canvas');
    const grid = getComputedStyle(canvas).borderTopColor;
    // The pixel between the first two cells of head 1's first row, and one inside a cell.
    const ctx = canvas.getContext('2d');
    const label = canvas.getAttribute('aria-label');
    return {
      label,
      grid,
      background: getComputedStyle(document.body).backgroundColor,
      caption: el.shadowRoot.querySelector('.maps + div .caption').textContent,
      description: el.shadowRoot.querySelector('.description').textContent,
      width: canvas.width,
      pixels: Array.from(ctx.getImageData(0, 0, canvas.width, canvas.height).data),
      height: canvas.height,
    };
  });
  await page.close();
  assert.match(r.label, /head 1: 3→\S+ 1·1→\S+ 4→\S+ 1·3→/);
  assert.match(
    r.caption,
    /\(3 1 4 1 5 9 2 6\).*A repeated token carries its position, counted from 0: 1·1 is the “1” at position 1\. The key names above each map stand on 2 staggered lines so that they fit: read them left to right, zigzagging between the lines \(3, 1·1, 4, 1·3, 5, 9, 2, 6\), the same order as the rows\.$/,
  );
  assert.match(r.description, /position t must look at position L − 1 − t \(positions counted from 0/);
  // The grid colour stands out from the dark page (WCAG's 3:1 for graphics) ...
  assert.ok(contrast(r.grid, r.background) >= 3, `${r.grid} on ${r.background}`);
  // ... and the canvas holds it in the gaps between the cells and around each map.
  const [gr, gg, gb, ga = 1] = r.grid.match(/[\d.]+/g).map(Number);
  const grid = [gr, gg, gb, Math.round(255 * ga)];
  let gaps = 0;
  for (let p = 0; p < r.pixels.length; p += 4) if (grid.every((c, k) => Math.abs(r.pixels[p + k] - c) <= 1)) gaps++;
  // Per head: T + 1 vertical and T + 1 horizontal lines of T·18 + 1 px (T = 8), minus crossings.
  const perHead = 2 * 9 * (8 * 18 + 1) - 81;
  assert.ok(gaps >= 2 * perHead, `${gaps} grid pixels, ${2 * perHead} expected at least`);
});

test('the matrix titles its colour bar; on a dark page cell borders and colour bars stand out from the page', async () => {
  const read = (page) =>
    page.evaluate(() => {
      const m = document.querySelector('attention-matrix').shadowRoot;
      return {
        title: m.querySelector('.legend .title')?.textContent ?? null,
        cell: getComputedStyle(m.querySelector('td')).borderTopColor,
        bar: getComputedStyle(m.querySelector('.legend .bar')).borderTopColor,
        background: getComputedStyle(document.body).backgroundColor,
      };
    });
  let { page } = await open('matrix', 1280, 'dark');
  const dark = await read(page);
  await page.close();
  ({ page } = await open('matrix', 1280));
  const light = await read(page);
  await page.close();
  assert.equal(dark.title, 'cell colour = weight');
  for (const colour of [dark.cell, dark.bar])
    assert.ok(contrast(colour, dark.background) >= 3, `${colour} on ${dark.background}`);
  // (a light page keeps faint grey borders)
  assert.equal(light.cell, 'rgba(136, 136, 136, 0.2)');

  ({ page } = await open('steps', 1280));
  const steps = await page.evaluate(() => {
    const root = document.querySelector('attention-steps').shadowRoot;
    const legend = (name) =>
      root.querySelector(`attention-matrix[data-name="${name}"]`).shadowRoot.querySelector('.legend .title')
        .textContent;
    return { scores: legend('scores'), weights: legend('weights') };
  });
  await page.close();
  assert.match(steps.scores, /^cell colour = value \(one scale for Q·Kᵀ, ÷√d_k and the masked scores/);
  assert.equal(steps.weights, 'cell colour = weight');
});

test("steps in a reader's words: where the printed numbers come from, and the padding and window presets named by what they keep", async () => {
  const { page } = await open('steps', 1280);
  const r = await page.evaluate(() => {
    const root = document.querySelector('attention-steps').shadowRoot;
    return {
      slides: root.querySelector('.slides').textContent,
      labels: [...root.querySelectorAll('.controls label')].map((l) => l.firstChild.textContent.trim()),
      options: [...root.querySelectorAll('.controls option')].map((o) => o.textContent),
    };
  });
  assert.match(
    r.slides,
    /^As printed in the worked example this reproduces \(the “Transformer Insight” course slides\): \[\[-0\.019, 0\.002\], \[0\.043, -0\.046\]\]\. The slides round each step before the next/,
  );
  assert.deepEqual(r.labels, ['Mask preset', 'padding: keys kept', 'window: keys before each query']);
  assert.ok(r.options.includes('padding: first N keys only…'), r.options.join(' | '));
  // Padding with N = 1: every query sees the first key only, so its weight is 1 (and 0 after).
  // (The number shows once its preset is chosen.)
  await page.locator('attention-steps').locator('select').selectOption('key-length');
  const keys = page.locator('attention-steps').locator('input[aria-label^="padding: keys kept"]');
  await keys.fill('1');
  await keys.dispatchEvent('change');
  await page.waitForFunction(() =>
    Array.from(document.querySelector('attention-steps').stages.M.data).some((x) => x === -Infinity),
  );
  const stages = await page.evaluate(() => {
    const s = document.querySelector('attention-steps').stages;
    return { M: Array.from(s.M.data), weights: Array.from(s.weights.data) };
  });
  await page.close();
  assert.deepEqual(stages.M, [0, -Infinity, 0, -Infinity]);
  assert.deepEqual(stages.weights, [1, 0, 1, 0]);
});

test('the model and explainer views say what a repeated token’s position mark means (at·3, at·8)', async () => {
  for (const [name, tag] of [
    ['explainer', 'attention-explainer'],
    ['model-head', 'attention-model'],
  ]) {
    const { page } = await openElementPage(browser, url, name, 1280);
    await page.waitForFunction((t) => document.querySelector(t).toJSON().tokens.length > 0, tag);
    const r = await page.evaluate(
      (t) => ({
        labels: document
          .querySelector(t)
          .toJSON()
          .tokens.map((k) => k.label),
        text: document.querySelector(t).shadowRoot.textContent,
      }),
      tag,
    );
    await page.close();
    // The first token whose label occurs again, counted from 0 (the tiny GPT-2 splits "cat"
    // and "mat" into c + at and m + at).
    const i = r.labels.findIndex((l) => r.labels.filter((m) => m === l).length > 1);
    assert.ok(i >= 0, `${name}: the text repeats a token`);
    const label = r.labels[i];
    assert.ok(r.text.includes(`${label}·${i} is the “${label}” at position ${i}`), `${name}: the mark is explained`);
  }
});

// The name a view gives each token, as the explainer's picker and the model's views do: a
// label that occurs more than once carries its position counted from 0 ('at·8'), computed here.
const positioned = (labels) =>
  labels.map((label, i) => (labels.filter((l) => l === label).length > 1 ? `${label}·${i}` : label));

test('one name per token: the explainer’s tables and the neuron view’s menu and tables name a token as its picker does (at·8)', async () => {
  let { page } = await openElementPage(browser, url, 'explainer', 1280);
  await page.waitForFunction(() => document.querySelector('attention-explainer').toJSON().tokens.length > 0);
  const explainer = await page.evaluate(() => {
    const el = document.querySelector('attention-explainer');
    const root = el.shadowRoot;
    const tables = [...root.querySelectorAll('table.heat')];
    const corner = (t) => t.querySelector('th.corner').textContent;
    return {
      labels: el.toJSON().tokens.map((t) => t.label),
      picker: [...root.querySelectorAll('.tokens [role=radio]')].map((b) => b.textContent),
      // grids with a key per column (scores, masked scores, weights): their column titles
      columns: tables
        .filter((t) => corner(t) === 'head ↓ key →')
        .map((t) => [...t.querySelectorAll('th[scope=col]')].map((th) => th.textContent)),
      // grids with a token per row (keys, values): their row titles
      rows: tables
        .filter((t) => corner(t).startsWith('token ↓'))
        .map((t) => [...t.querySelectorAll('th[scope=row]')].map((th) => th.textContent)),
    };
  });
  await page.close();
  const names = positioned(explainer.labels);
  assert.ok(
    names.some((n) => n.includes('·')),
    `the text repeats a token: ${names.join(' ')}`,
  );
  assert.deepEqual(explainer.picker, names);
  assert.equal(explainer.columns.length, 3, 'scores, masked scores, weights');
  for (const columns of explainer.columns) assert.deepEqual(columns, names);
  assert.equal(explainer.rows.length, 2, 'keys, values');
  for (const rows of explainer.rows) assert.deepEqual(rows, names);

  ({ page } = await openElementPage(browser, url, 'model-neuron', 1280));
  await page.waitForFunction(() => document.querySelector('attention-model').toJSON().tokens.length > 0);
  const neuron = await page.evaluate(() => {
    const el = document.querySelector('attention-model');
    const root = el.shadowRoot;
    return {
      labels: el.toJSON().tokens.map((t) => t.label),
      menu: [...root.querySelectorAll('select[aria-label=query] option')].map((o) => o.textContent),
      scores: [...root.querySelectorAll('table.scores tbody th')].map((th) => th.textContent),
      keys: [...root.querySelectorAll('table.neuron tbody th')].map((th) => th.textContent),
    };
  });
  await page.close();
  const neuronNames = positioned(neuron.labels);
  assert.deepEqual(neuron.menu, neuronNames);
  assert.deepEqual(neuron.scores, neuronNames);
  assert.deepEqual(
    neuron.keys,
    neuronNames.map((n) => `k “${n}”`),
  );
});

test('the head view says what its MiB are (parameters); the explainer’s strips each say whose scale they are on, and stage 8 shows the final norm’s input, the runner’s residual after the last layer', async () => {
  let { page } = await openElementPage(browser, url, 'model-head', 1280);
  await page.waitForFunction(() => document.querySelector('attention-model').model);
  const head = await page.evaluate(() => {
    const el = document.querySelector('attention-model');
    return { status: el.shadowRoot.querySelector('.row .status').textContent, bytes: el.model.parameterBytes };
  });
  await page.close();
  const size = (b) => (b < 2 ** 20 ? `${(b / 2 ** 10).toFixed(1)} KiB` : `${(b / 2 ** 20).toFixed(1)} MiB`);
  assert.ok(
    head.status.includes(
      ` as float32; in memory ${size(head.bytes)}: the runner's weights laid out for its SIMD kernels)`,
    ),
    head.status,
  );
  assert.doesNotMatch(head.status, /· \d+\.\d MiB/, 'no MiB without saying of what');

  ({ page } = await openElementPage(browser, url, 'explainer', 1280));
  await page.waitForFunction(() => document.querySelector('attention-explainer').result);
  const r = await page.evaluate(async () => {
    const el = document.querySelector('attention-explainer');
    const root = el.shadowRoot;
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    const model = await attn.loadModel('/web/elements/models/tiny-gpt2/');
    const { trace } = model.forward(el.text, { trace: { position: el.result.position } });
    const residual = Array.from(trace.layers.at(-1).residual.data, String);
    model.dispose();
    const stage8 = root.getElementById('stage-8').closest('section');
    const strip = stage8.querySelector('.strip');
    const canvas = strip.querySelector('canvas');
    canvas.focus();
    const read = [strip.querySelector('.readout').textContent];
    for (let i = 1; i < residual.length; i++) {
      canvas.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      read.push(strip.querySelector('.readout').textContent);
    }
    return {
      residual,
      read,
      json: el.toJSON().trace.finalNormInput.data.map(String),
      names: [...stage8.querySelectorAll('.strip .name')].map((n) => n.textContent),
      stripScales: [...root.querySelectorAll('.strip .legend .title')].map((t) => t.textContent),
      gridScales: [...root.querySelectorAll('.grid .legend .title')].map((t) => t.textContent),
    };
  });
  await page.close();
  assert.deepEqual(r.names, [
    "residual after layer 1: the final norm's input (32 dimensions)",
    'final norm output (32 dimensions)',
  ]);
  assert.deepEqual(
    r.read,
    r.residual.map((x, i) => `dimension ${i}: ${x}`),
  );
  assert.deepEqual(r.json, r.residual);
  assert.ok(r.stripScales.length >= 10, r.stripScales.join(' | '));
  // Each strip says whose scale it is on: its own, or its stage's (element-reader-gaps-model
  // checks the shared ends).
  for (const title of r.stripScales)
    assert.match(title, /^(this strip's own scale|one scale for this stage's \d strips)$/);
  // The grids: the weights on the fixed 0 … 1 scale; q, k and v on one, the scores on another;
  // the head outputs say their scale is their own.
  assert.deepEqual(r.gridScales, [
    'q, k, v entries: one scale',
    'q, k, v entries: one scale',
    'q, k, v entries: one scale',
    'score (both grids: one scale)',
    'score (both grids: one scale)',
    'weight',
    "value: this grid's own scale",
  ]);
});

test("the course's 2×2 example is named where it is shown, with its axes, and said not to be causal (a decoder's mask makes it so)", async () => {
  const ex2 =
    "The course's worked example 2 (self-attention, two tokens, 3 features a token, one head; W_Q, W_K, W_V and W_O are the slides' made-up numbers, not trained; from the “Transformer Insight” course slides (AI VIETNAM, 2023))";
  const notCausal = 'Not causal: a token also attends to a later token, as in an encoder';
  // Heatmap, grids then lines: the weights it shows have query 1 attend to the later key 2.
  for (const [name, axes] of [
    ['heatmap-grid', 'rows are queries, columns keys'],
    ['heatmap-lines', 'queries on the left, keys on the right'],
  ]) {
    const { page } = await open(name, 390);
    const r = await page.evaluate(() => {
      const el = document.querySelector('attention-heatmap');
      return { caption: el.shadowRoot.querySelector('[data-role=example]')?.textContent ?? '', heads: el.weights };
    });
    assert.ok(r.heads[0][0][1] > 0.4, `query 1 gives key 2 weight ${r.heads[0][0][1]}`);
    assert.ok(r.caption.startsWith(`${ex2}: ${axes}. ${notCausal}`), `${name}: ${r.caption}`);
    // Example 3 masks the later key: its weight is 0 and the caption says causal.
    await page.evaluate(() => document.querySelector('attention-heatmap').setAttribute('example', '3'));
    await page.waitForFunction(() => document.querySelector('attention-heatmap').weights[0]?.[0]?.[1] === 0);
    const masked = await page.evaluate(
      () => document.querySelector('attention-heatmap').shadowRoot.querySelector('[data-role=example]').textContent,
    );
    assert.match(
      masked,
      /^The course's worked example 3 \(masked self-attention, 2 tokens, .*\): .* Causal: no token attends to a later one/,
    );
    // The caller's own weights are no course example: no such caption.
    await page.evaluate(() => {
      document.querySelector('attention-heatmap').weights = [
        [1, 0],
        [0.5, 0.5],
      ];
    });
    assert.equal(
      await page.evaluate(() =>
        document.querySelector('attention-heatmap').shadowRoot.querySelector('[data-role=example]'),
      ),
      null,
    );
    await page.close();
  }
  // Steps: the same words above its stages, which follow the mask the reader picks.
  const { page } = await open('steps', 390);
  const intro = () =>
    page.evaluate(
      () => document.querySelector('attention-steps').shadowRoot.querySelector('[data-role=intro]').textContent,
    );
  const before = await intro();
  assert.ok(before.startsWith(`${ex2}: rows are queries, columns keys. ${notCausal}`), before);
  assert.match(before, /Each bar on the left marks one stage of the computation/);
  await page.locator('attention-steps').locator('select').selectOption('causal-top-left');
  await page.waitForFunction(() => document.querySelector('attention-steps').stages.weights.data[1] === 0);
  assert.match(await intro(), /Causal: no token attends to a later one \(the mask M blocks it\)/);
  await page.close();
  // Matrix: its page names the course and the example, and the tokens it names them by.
  const m = await open('matrix', 390);
  const shown = await m.page.evaluate(() => {
    const root = document.querySelector('attention-matrix').shadowRoot;
    return { caption: root.querySelector('.caption').textContent, axis: root.querySelector('.axis').textContent };
  });
  await m.page.close();
  assert.match(
    shown.caption,
    /^Worked example 2 of the “Transformer Insight” course slides \(AI VIETNAM, 2023\): self-attention over two tokens, named “I” and “am” .* Not causal: “I” also attends to the later “am”/,
  );
  assert.equal(shown.axis, 'query ↓   key →');
});

test('sentiment at 390 and 1280 px shows every key of the [CLS] table whole (head ↓ key →; turned at 390 px, key ↓ head →); the head map fits at 1280 px (at 390 it scrolls, with a hint)', async () => {
  for (const width of [390, 1280]) {
    const { page } = await open('sentiment', width);
    // the turned table comes after layout, in the region's resize callback
    await page.waitForTimeout(300);
    const r = await page.evaluate(() => {
      const el = document.querySelector('attention-sentiment');
      const region = el.shadowRoot.querySelector('[role=region][aria-label^="What the [CLS] query"]');
      const table = region.querySelector('table');
      const rows = [...table.tBodies[0].rows];
      return {
        orient: table.dataset.orient,
        corner: table.tHead.rows[0].cells[0].textContent,
        scrolls: region.scrollWidth > region.clientWidth + 1,
        mapScrolls: (() => {
          const map = el.shadowRoot.querySelector('[role=region][aria-label^="Attention matrix"]');
          return map.scrollWidth > map.clientWidth + 1;
        })(),
        rowNames: rows.map((tr) => tr.cells[0].textContent),
        columnNames: [...table.tHead.rows[0].cells].slice(1).map((c) => c.textContent),
        cells: rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.title))),
        tokens: el.prediction.tokens.map((t) => t.text),
        clsRows: el.prediction.attention.at(-1).map((head) => Array.from(head[0])),
      };
    });
    await page.close();
    const names = r.tokens.map((t, j) => (r.tokens.filter((u) => u === t).length > 1 ? `${t}·${j}` : t));
    const heads = r.clsRows.map((_, h) => String(h));
    assert.equal(r.scrolls, false, `${width} px: the table fits, no sideways scroll`);
    assert.equal(r.mapScrolls, width === 390, `${width} px: the head's map scrolls only on a phone`);
    const turned = width === 390;
    assert.equal(r.orient, turned ? 'keys-as-rows' : 'keys-as-columns');
    assert.equal(r.corner, turned ? 'key ↓ head →' : 'head ↓ key →');
    assert.deepEqual(r.columnNames, turned ? heads : names, 'heads counted from 0');
    assert.deepEqual(r.rowNames, turned ? names : heads);
    assert.deepEqual(turned ? r.cells[0].map((_, h) => r.cells.map((row) => row[h])) : r.cells, r.clsRows);
  }
});

test("flash's still image holds where it ends: at the start step the result after the last block is shown, titled, on screen and in print", async () => {
  const { page } = await open('flash', 390);
  const read = () =>
    page.evaluate(() => {
      const el = document.querySelector('attention-flash');
      const root = el.shadowRoot;
      const cells = (name) => {
        const m = root.querySelector(`attention-matrix[data-name="${name}"]`);
        return m && m.getClientRects().length
          ? Array.from(m.shadowRoot.querySelectorAll('td'), (td) => Number(td.dataset.value))
          : null;
      };
      return {
        step: el.step,
        data: el.data,
        status: root.querySelector('.controls .status').textContent,
        title: root.querySelector('.final-title')?.textContent ?? null,
        final: cells('final-result'),
        finalReference: cells('final-reference'),
        result: cells('result'),
        verdicts: [...root.querySelectorAll('.verdict')].map((v) => v.textContent),
      };
    });
  const start = await read();
  // softmax(q·kᵀ/√d)·v in float64, from the element's own inputs
  const { q, k, v } = start.data;
  const expected = q.flatMap((qi) => {
    const s = k.map((kj) => qi.reduce((a, x, t) => a + x * kj[t], 0) / Math.sqrt(qi.length));
    const e = s.map((x) => Math.exp(x - Math.max(...s)));
    const sum = e.reduce((a, b) => a + b, 0);
    return v[0].map((_, c) => e.reduce((a, w, j) => a + (w / sum) * v[j][c], 0));
  });
  assert.equal(start.step, 0);
  assert.match(start.status, /^Start: no key seen/);
  assert.equal(start.title, 'Where it ends, after the last block (3 of 3):');
  assert.equal(start.result, null, 'the step shown is the start');
  // (a matrix holds float32: the float64 result rounded)
  start.final.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) < 1e-6, `${x} vs ${expected[i]}`));
  start.finalReference.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) < 1e-6, `${x} vs ${expected[i]}`));
  assert.equal(start.verdicts.length, 1);
  // On paper: the same (the buttons go, the end stays).
  await page.emulateMedia({ media: 'print' });
  const printed = await read();
  assert.deepEqual(printed.final, start.final);
  // At the last step the end is the step itself: shown once, untitled.
  await page.emulateMedia({ media: 'screen' });
  await page.evaluate(() => {
    document.querySelector('attention-flash').step = 3;
  });
  const last = await read();
  await page.close();
  assert.equal(last.title, null);
  assert.equal(last.final, null);
  assert.deepEqual(last.result, start.final);
  assert.equal(last.verdicts.length, 1);
});

test("the smaller gaps: pruning defines Ã, i and j and says why the dropped token keeps its row; steps' slide gap reads one way; RoPE defines d", async () => {
  let { page } = await open('pruning', 390);
  const pruning = await page.evaluate(() => {
    const el = document.querySelector('token-pruning');
    const caption = (name) =>
      el.shadowRoot.querySelector(`attention-matrix[data-name="${name}"]`).shadowRoot.querySelector('.caption')
        .textContent;
    const w = el.result.weights;
    const L = w.shape[0];
    return { G: caption('G'), weights: caption('weights'), tokens: el.tokens, keep: el.keep, w: Array.from(w.data), L };
  });
  await page.close();
  // The page drops "on" (drop="4"): its row still sees the kept tokens and itself (G_ij = 1
  // if i = j, else keep_j), and its column gets 0 from every other query.
  const on = pruning.tokens.indexOf('on');
  assert.equal(pruning.keep[on], 0);
  const row = pruning.w.slice(on * pruning.L, (on + 1) * pruning.L);
  assert.ok(
    row.filter((x, j) => j !== on && pruning.keep[j]).every((x) => x > 0),
    'the dropped row sees the kept keys',
  );
  assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-6);
  assert.match(pruning.G, /^Row i is query token i, column j key token j: 1 where query i may look at key j\./);
  assert.ok(
    pruning.weights.startsWith('Ã is the matrix of attention weights with the dropped tokens masked out'),
    pruning.weights,
  );
  assert.match(pruning.weights, /row i is query token i's weights over the keys j it may see/);
  assert.match(
    pruning.weights,
    /The dropped token \(on\) keeps its query row, still looking at the kept tokens and itself, so that no shape changes/,
  );

  ({ page } = await open('steps', 390));
  const slides = await page.evaluate(
    () => document.querySelector('attention-steps').shadowRoot.querySelector('.slides').textContent,
  );
  await page.close();
  assert.match(
    slides,
    /the largest gap between a printed number and the exact one in the matrix above is \d\.\d{4}\.$/,
  );

  ({ page } = await open('positional-rope', 390));
  const rope = await page.evaluate(() => {
    const el = document.querySelector('positional-encoding');
    return { note: el.shadowRoot.querySelector('.note').textContent, shape: el.toJSON().tensors.q.shape };
  });
  await page.close();
  // The view rotates one pair: its tensors are [positions, 2].
  assert.deepEqual(rope.shape, [8, 2]);
  assert.match(
    rope.note,
    /θᵢ = base\^\(−2i\/d\) radians per position \(base 10000\), d being the head dimension: here d = 2, one pair/,
  );
});
