// What a cold reader and a host trial still found in the views (session 10), in headless
// Chromium on the pages docs/elements.md shows: the explainer's model line clear of the right
// edge, its strips' intermediate ticks under the right cells, its q/k/v legend's words, and a
// signed scale's zero named on a dark page; the training chart's ticks, markers and held-out
// accuracy; the head view's key and faint lines; the flash element's memory factors; the
// compact steps' height docs/elements.md states.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { elementPages } from './helpers/element-page.js';
import { tickIndices } from '../web/elements/ticks.js';
import { contrast } from './helpers/contrast.js';

const open = elementPages(test);

test('tickIndices: 0, round steps and the last index, never two labels closer than half a step', () => {
  assert.deepEqual(tickIndices(32, 'binary'), [0, 8, 16, 24, 31]);
  assert.deepEqual(tickIndices(128, 'binary'), [0, 32, 64, 96, 127]);
  assert.deepEqual(tickIndices(768, 'binary'), [0, 128, 256, 384, 512, 640, 767]);
  assert.deepEqual(tickIndices(305, 'decimal'), [0, 50, 100, 150, 200, 250, 304]);
  assert.deepEqual(tickIndices(50257, 'decimal'), [0, 10000, 20000, 30000, 40000, 50256]);
  assert.deepEqual(tickIndices(1), [0]);
  assert.deepEqual(tickIndices(2), [0, 1]);
});

// Per strip of the explainer: its cell count, tick labels with their text boxes, the marks'
// centres and the canvas's box, and the model line's boxes.
const explainerLayout = (page) =>
  page.evaluate(() => {
    const el = document.querySelector('attention-explainer');
    const root = el.shadowRoot;
    const box = (e) => {
      const b = e.getBoundingClientRect();
      return { left: b.left, right: b.right, top: b.top, bottom: b.bottom };
    };
    const status = root.querySelector('.row > .status');
    const range = document.createRange();
    range.selectNodeContents(status);
    return {
      element: box(el),
      input: box(root.querySelector('.row > input[type=text]')),
      status: [...range.getClientRects()].map((r) => ({ left: r.left, right: r.right, top: r.top })),
      strips: [...root.querySelectorAll('.strip')].map((s) => ({
        name: s.querySelector('.name').textContent,
        canvas: box(s.querySelector('canvas')),
        n: Number(/\((\d+) [a-z ]+s\)$/.exec(s.querySelector('.name').textContent)[1]),
        axis: s.querySelector('.head > .axis').textContent,
        marks: [...s.querySelectorAll('.ticks .mark')].map((m) => {
          const b = m.getBoundingClientRect();
          return (b.left + b.right) / 2;
        }),
        labels: [...s.querySelectorAll('.ticks .label')].map((l) => ({ text: l.textContent, ...box(l) })),
      })),
      qkvLegends: [...root.querySelectorAll('.grid .legend .title')]
        .map((t) => t.textContent)
        .filter((t) => /q, k, v/.test(t)),
      zero: [...root.querySelectorAll('.legend .zero')].map((z) => z.innerText),
    };
  });

for (const width of [1280, 390]) {
  test(`<attention-explainer> at ${width} px: the model line clear of the right edge, ticks between the ends under their cells, the q/k/v legend's words`, async () => {
    const { page, errors } = await open('explainer', width);
    const r = await explainerLayout(page);
    // The model line sits on a line of its own, under the text field, inside the element.
    assert.ok(r.status.length > 0);
    assert.ok(r.status[0].top >= r.input.bottom, `status top ${r.status[0].top}, field bottom ${r.input.bottom}`);
    for (const line of r.status)
      assert.ok(line.right <= r.element.right && line.left >= r.element.left, JSON.stringify(line));
    if (width === 1280)
      assert.ok(r.element.right - r.status[0].right >= 100, `${r.element.right - r.status[0].right} px to spare`);

    const byWidth = (n) => r.strips.filter((s) => s.n === n);
    assert.equal(byWidth(305).length, 1, 'the logits strip');
    assert.ok(byWidth(128).length >= 2, 'the MLP strips');
    assert.ok(byWidth(32).length >= 8, 'the d_model strips');
    const expected = { 32: [0, 8, 16, 24, 31], 128: [0, 32, 64, 96, 127], 305: [0, 50, 100, 150, 200, 250, 304] };
    for (const s of r.strips) {
      const ticks = expected[s.n];
      assert.equal(s.axis, s.n === 305 ? 'token id →' : 'dimension →', s.name);
      assert.deepEqual(
        s.labels.map((l) => Number(l.text)),
        ticks,
        s.name,
      );
      // Each mark under the middle of its cell (within 1 px), each label under or beside its
      // mark, inside the strip, and no two labels touching.
      const cell = (s.canvas.right - s.canvas.left) / s.n;
      ticks.forEach((i, k) => {
        const centre = s.canvas.left + (i + 0.5) * cell;
        assert.ok(Math.abs(s.marks[k] - centre) <= 1, `${s.name}: tick ${i} at ${s.marks[k]}, cell centre ${centre}`);
        const l = s.labels[k];
        assert.ok(l.left <= s.marks[k] + 1 && l.right >= s.marks[k] - 1, `${s.name}: label ${i} not at its tick`);
        assert.ok(l.left >= s.canvas.left - 0.5 && l.right <= s.canvas.right + 0.5, `${s.name}: label ${i} outside`);
        if (k) assert.ok(l.left - s.labels[k - 1].right >= 4, `${s.name}: labels ${ticks[k - 1]} and ${i} touch`);
      });
    }
    // q, k and v share one colour scale; the legend says the number is an entry of any of them.
    assert.ok(r.qkvLegends.length >= 3, `${r.qkvLegends}`);
    for (const t of r.qkvLegends) assert.equal(t, 'q, k, v entries: one scale');
    // On a light page the zero words are the plain ones.
    assert.ok(r.zero.length > 0);
    for (const z of r.zero) assert.equal(z, '(palest = 0)');
    assert.deepEqual(errors, []);
  });
}

test('a signed scale on a dark page says its palest cells, 0, are the brightest (and not on a light one)', async () => {
  const { page, errors } = await open('explainer', 1280, 'dark');
  const r = await explainerLayout(page);
  assert.ok(r.zero.length > 10);
  for (const z of r.zero) assert.equal(z, '(palest = 0, the brightest on a dark page)');
  // theme="light" forces the light scheme: the dark words go.
  await page.evaluate(() => document.querySelector('attention-explainer').setAttribute('theme', 'light'));
  const forced = await page.evaluate(() =>
    [...document.querySelector('attention-explainer').shadowRoot.querySelectorAll('.legend .zero')].map(
      (z) => z.innerText,
    ),
  );
  for (const z of forced) assert.equal(z, '(palest = 0)');
  // The zero cell itself is the palette's middle (247, 247, 247): brighter than the page's
  // #111, which the words now say.
  assert.deepEqual(errors, []);
});

// Every fillText, fillRect and arc on the element's canvases from page load on, in the
// canvas's CSS px (the drawings set a devicePixelRatio transform; 1 here).
const recordCanvas = () => {
  const calls = (globalThis.__canvasCalls = []);
  const proto = CanvasRenderingContext2D.prototype;
  for (const name of ['fillText', 'fillRect', 'arc']) {
    const original = proto[name];
    proto[name] = function (...args) {
      calls.push({ canvas: this.canvas, name, args: args.slice(0, 4), fill: String(this.fillStyle) });
      return original.apply(this, args);
    };
  }
};

for (const width of [1280, 390]) {
  test(`<attention-training> at ${width} px: the loss chart's steps ticked between 0 and the last report, a marker per report, the held-out accuracy plotted on a 0–100 % axis`, async () => {
    const { page, errors } = await open('training', width);
    await page.context().addInitScript(recordCanvas);
    await page.reload();
    await page.waitForFunction(() => {
      const el = document.querySelector('attention-training');
      return el.history.length > 0 && el.state !== 'running';
    });
    await page.evaluate(() => new Promise((r) => setTimeout(r, 500)));
    const r = await page.evaluate(() => {
      const el = document.querySelector('attention-training');
      const canvas = el.shadowRoot.querySelector('canvas');
      // The last drawing only: from its first "step" title on.
      const mine = globalThis.__canvasCalls.filter((c) => c.canvas === canvas);
      const from = mine.findLastIndex((c) => c.name === 'fillText' && c.args[0] === 'step');
      return {
        history: el.history.map(({ step, loss, accuracy }) => ({ step, loss, accuracy })),
        width: canvas.getBoundingClientRect().width - 2, // its 1 px border, each side
        calls: mine.slice(from).map(({ name, args, fill }) => ({ name, args, fill })),
        key: el.shadowRoot.querySelector('.curve-key').textContent,
      };
    });
    const [H, left, right, top, bottom] = [170, 44, 40, 24, 28];
    const x0 = left,
      x1 = r.width - right,
      y0 = H - bottom,
      y1 = top;
    const maxStep = r.history.at(-1).step;
    const xOf = (step) => x0 + ((x1 - x0) * step) / maxStep;
    const near = (a, b) => Math.abs(a - b) < 0.01;
    assert.ok(r.history.length >= 3, `the premise: several reports (${r.history.length})`);
    // Step ticks: 0, round steps, the last report's step, each written under its place.
    const texts = r.calls.filter((c) => c.name === 'fillText');
    const stepLabels = texts.filter((c) => near(c.args[2], y0 + 14));
    const steps = stepLabels.map((c) => Number(c.args[0]));
    assert.equal(steps[0], 0);
    assert.equal(steps.at(-1), maxStep);
    assert.ok(steps.length >= 4, `ticks ${steps}`);
    for (const c of stepLabels) assert.ok(near(c.args[1], xOf(Number(c.args[0]))), `tick ${c.args[0]} at ${c.args[1]}`);
    // (every 10 steps, the reports' spacing, for the 50 steps this run takes)
    if (maxStep === 50) assert.deepEqual(steps, [0, 10, 20, 30, 40, 50]);
    // A loss marker (a circle) and an accuracy marker (a square) at each report.
    const arcs = r.calls.filter((c) => c.name === 'arc');
    const squares = r.calls.filter((c) => c.name === 'fillRect');
    assert.equal(arcs.length, r.history.length);
    assert.equal(squares.length, r.history.length);
    r.history.forEach((e, i) => {
      assert.ok(near(arcs[i].args[0], xOf(e.step)), `loss marker ${i} x`);
      const [x, y] = squares[i].args;
      assert.ok(near(x + 3, xOf(e.step)), `accuracy marker ${i} x ${x + 3} vs ${xOf(e.step)}`);
      assert.ok(near(y + 3, y0 - (y0 - y1) * e.accuracy), `accuracy marker ${i}: ${e.accuracy} at y ${y + 3}`);
    });
    // The markers in two colours, and the accuracy axis's labels and title written.
    assert.notEqual(arcs[0].fill, squares[0].fill);
    for (const words of ['0%', '50%', '100%', 'held-out accuracy ↑', '↑ training loss (nats)'])
      assert.ok(
        texts.some((c) => c.args[0] === words),
        words,
      );
    assert.equal(r.key, 'training loss (nats, left axis, log scale)held-out token accuracy (%, right axis)');
    assert.deepEqual(errors, []);
  });
}

for (const scheme of ['light', 'dark']) {
  test(`the head view with every head (${scheme}): its width key in a mid grey that shows on the page, labelled; each line in its head's colour, at least 1 px wide and 0.55 opaque`, async () => {
    const { page, errors } = await open('model-head', 1280, scheme);
    const r = await page.evaluate(() => {
      const root = document.querySelector('attention-model').shadowRoot.querySelector('attention-heatmap').shadowRoot;
      let bg = document.body;
      while (bg && /rgba\(.*, 0\)|transparent/.test(getComputedStyle(bg).backgroundColor)) bg = bg.parentElement;
      return {
        page: bg ? getComputedStyle(bg).backgroundColor : 'rgb(255, 255, 255)',
        samples: [...root.querySelectorAll('.key .samples span')].map((s) => getComputedStyle(s).backgroundColor),
        key: root.querySelector('.key').textContent,
        chips: [...root.querySelectorAll('.chip')].map((c) => getComputedStyle(c).borderTopColor),
        lines: [...root.querySelectorAll('svg line')]
          .filter((l) => getComputedStyle(l).display !== 'none')
          .map((l) => ({
            head: Number(l.dataset.head),
            weight: Number(l.dataset.weight),
            width: Number(l.getAttribute('stroke-width')),
            opacity: Number(getComputedStyle(l).opacity),
            stroke: getComputedStyle(l).stroke,
          })),
      };
    });
    await page.close();
    assert.equal(r.samples.length, 4);
    for (const s of r.samples) assert.equal(s, 'rgb(136, 136, 136)');
    assert.ok(
      contrast('rgb(136, 136, 136)', r.page) >= 3,
      `grey on ${r.page}: ${contrast('rgb(136, 136, 136)', r.page)}`,
    );
    assert.match(r.key, /1 \(thick, solid\) · grey: any head$/);
    const seen = r.lines.filter((l) => l.weight > 0);
    assert.ok(seen.length >= 30, `${seen.length} lines`);
    assert.ok(
      seen.some((l) => l.weight < 0.01),
      'the premise: some lines carry under 1 % of the weight',
    );
    for (const l of seen) {
      assert.equal(l.stroke, r.chips[l.head], `head ${l.head}'s line in the head's colour`);
      assert.ok(Math.abs(l.width - (1 + 5 * l.weight)) < 1e-9, `width ${l.width} for ${l.weight}`);
      assert.ok(Math.abs(l.opacity - (0.55 + 0.45 * l.weight)) < 1e-6, `opacity ${l.opacity} for ${l.weight}`);
    }
    assert.deepEqual(errors, []);
  });
}

test('<attention-steps layout="compact">: example 2 at 960 px is as tall as docs/elements.md says, and fits a 960 × 700 slide', async () => {
  const { page, errors } = await open('steps', 960);
  const heights = await page.evaluate(async () => {
    document.querySelector('attention-steps').remove(); // the page's, with show-slides
    const make = (layout) => {
      const el = document.createElement('attention-steps');
      el.setAttribute('example', '2');
      if (layout) el.setAttribute('layout', layout);
      document.querySelector('main').append(el);
      return new Promise((r) => el.addEventListener('compute', () => r(el), { once: true }));
    };
    const [full, compact] = await Promise.all([make(null), make('compact')]);
    await new Promise((r) => setTimeout(r, 300));
    const tall = (el) => Math.round(el.getBoundingClientRect().height);
    return {
      full: tall(full.shadowRoot.querySelector('.stages')),
      stages: tall(compact.shadowRoot.querySelector('.stages')),
      element: tall(compact),
    };
  });
  const docs = readFileSync(new URL('../docs/elements.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const said =
    /example 2 on a 960 px page: the stages ([\d,]+) px tall instead of ([\d,]+), the whole element with its intro ([\d,]+) px/.exec(
      docs,
    );
  assert.ok(said, 'docs/elements.md states the compact heights');
  const [stages, full, element] = said.slice(1).map((t) => Number(t.replace(',', '')));
  // Within 5 % (the font installed moves the wrapping a little).
  const near = (measured, stated, name) =>
    assert.ok(Math.abs(measured - stated) <= 0.05 * stated, `${name}: measured ${measured} px, the docs say ${stated}`);
  near(heights.stages, stages, 'compact stages');
  near(heights.full, full, 'full stages');
  near(heights.element, element, 'compact element');
  assert.ok(heights.element <= 700, `${heights.element} px`);
  assert.deepEqual(errors, []);
});
