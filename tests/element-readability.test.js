// Every element readable on its own (issue 45), in headless Chromium, each on a page of its
// own as docs/elements.md shows it (scripts/element-shots.mjs's pages), at 1280 and 390 px:
// axe-core finds no violation at all; no two words overlap (nothing is printed over what it
// describes); no text is smaller than 11 px. And the views say what they show: legends whose
// ends are the data's numbers, axis titles, captions.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { ELEMENT_PAGES, elementPage } from '../scripts/element-shots.mjs';
import { openElementPage, startElementBrowser } from './helpers/element-page.js';
import { EXAMPLES, WEIGHTS } from '../web/elements/course-examples.js';

const AXE = fileURLToPath(new URL('../node_modules/axe-core/axe.min.js', import.meta.url));
let url, browser, close;

test.before(async () => {
  ({ url, browser, close } = await startElementBrowser());
});

test.after(() => close?.());

// Course example 2 in float64: X·W_Q, X·W_K, X·W_V, the scaled scores, their row softmax,
// A = weights·V and Y = A·W_O, as nested rows.
function exampleTwo() {
  const X = EXAMPLES.find((e) => e.id === 'ex2').X;
  const mul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
  const T = (m) => m[0].map((_, j) => m.map((row) => row[j]));
  const [Q, K, V] = [WEIGHTS.W_Q, WEIGHTS.W_K, WEIGHTS.W_V].map((w) => mul(X, w));
  const scaledScores = mul(Q, T(K)).map((row) => row.map((v) => v / Math.sqrt(3)));
  const weights = scaledScores.map((row) => {
    const e = row.map((v) => Math.exp(v - Math.max(...row)));
    return e.map((v) => v / e.reduce((a, b) => a + b));
  });
  const A = mul(weights, V);
  return { scaledScores, weights, A, Y: mul(A, WEIGHTS.W_O) };
}

// A page holding one element's tag, at `width` (in a light or dark page), drawn.
const open = (name, width, scheme) => openElementPage(browser, url, name, width, scheme);

// In the page: every visible word's box (through shadow roots), its font size, and which
// text node it belongs to; then the pairs of words from different nodes that overlap.
function layoutProblems() {
  const words = [];
  const walk = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (node.shadowRoot) walk(node.shadowRoot);
        continue;
      }
      const parent = node.parentElement;
      if (!parent || ['STYLE', 'SCRIPT', 'OPTION', 'TITLE'].includes(parent.tagName)) continue;
      const style = getComputedStyle(parent);
      if (style.visibility === 'hidden' || parent.closest('[hidden]')) continue;
      // The size as rendered: an SVG's text shrinks with the SVG (its viewBox scaled down).
      const ctm = parent instanceof SVGElement ? parent.getScreenCTM() : null;
      const scale = ctm ? Math.hypot(ctm.a, ctm.b) : 1;
      const box = parent.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue; // visually hidden (for screen readers)
      const range = document.createRange();
      for (const match of node.textContent.matchAll(/\S+/g)) {
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        for (const r of range.getClientRects()) {
          if (r.width < 1 || r.height < 1) continue;
          words.push({ node, text: match[0], size: Math.round(parseFloat(style.fontSize) * scale * 10) / 10, r });
        }
      }
    }
  };
  walk(document.body);
  const small = words.filter((w) => w.size < 11).map((w) => `"${w.text}" ${w.size}px`);
  // A drawing with words (a canvas with role=img: a chart, labelled maps) shown smaller than
  // drawn: its text shrinks with it (the loss chart's 11 px ticks were 5 px at 390 px).
  const canvases = [];
  const collect = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) collect(el.shadowRoot);
      if (el.localName !== 'canvas' || el.getAttribute('role') !== 'img' || el.closest('[hidden]')) continue;
      const shown = el.clientWidth / (el.width / devicePixelRatio);
      if (el.clientWidth > 0 && shown < 0.99) small.push(`a canvas's text at ${Math.round(shown * 100)}% of its size`);
    }
  };
  collect(document);
  const overlaps = [];
  for (let a = 0; a < words.length; a++)
    for (let b = a + 1; b < words.length; b++) {
      const p = words[a],
        q = words[b];
      if (p.node === q.node) continue;
      const x = Math.min(p.r.right, q.r.right) - Math.max(p.r.left, q.r.left);
      const y = Math.min(p.r.bottom, q.r.bottom) - Math.max(p.r.top, q.r.top);
      // more than a sliver: glyph boxes of neighbouring lines may touch by a pixel or two
      if (x > 2 && y > 3) overlaps.push(`"${p.text}" over "${q.text}"`);
    }
  return { small: [...new Set(small)], overlaps: overlaps.slice(0, 10) };
}

// In the page: content cut off. A box that clips (overflow hidden or clip) and holds more
// than it shows is cut; one that scrolls sideways must be a labelled region (role=region,
// aria-label, reachable by Tab) with a visible ".scroll-hint" just above it, and only table
// cells may lie past its edge (a caption or a sentence cut at the edge is cut all the same).
// A text field must show all its text, and no word may run past the element's right edge.
function clippedContent() {
  const problems = [];
  const name = (el) =>
    `${el.getRootNode().host?.localName ?? 'page'} ${el.localName}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''}${el.getAttribute('aria-label') ? `[${el.getAttribute('aria-label')}]` : ''}`;
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 1 && box.height > 1 && !el.closest('[hidden]');
  };
  const check = (el) => {
    const style = getComputedStyle(el);
    // (a text field scrolls its own text: not content cut off)
    if (!visible(el) || el.matches('input, textarea, select') || el.scrollWidth <= el.clientWidth + 1) return;
    if (style.overflowX === 'visible') return; // spills over: the page's own width check sees it
    if (style.overflowX !== 'auto' && style.overflowX !== 'scroll') {
      problems.push(`${name(el)}: ${el.scrollWidth - el.clientWidth} px clipped (overflow ${style.overflowX})`);
      return;
    }
    const hint = el.previousElementSibling;
    if (el.getAttribute('role') !== 'region' || !el.getAttribute('aria-label') || el.tabIndex < 0)
      problems.push(`${name(el)}: scrolls sideways but is no labelled, focusable region`);
    if (!hint?.classList.contains('scroll-hint') || !visible(hint))
      problems.push(`${name(el)}: scrolls sideways with no visible hint above it`);
    const edge = el.getBoundingClientRect().right;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!node.textContent.trim() || parent.closest('td, th')) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if (range.getBoundingClientRect().right > edge + 1)
        problems.push(`${name(el)}: "${node.textContent.trim().slice(0, 40)}" is cut at the edge`);
    }
  };
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      check(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  // A text field that holds more than it shows (a sentence cut at 390 px, round 5): it must
  // show its whole text, as a screenshot does not scroll it.
  const fields = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) fields(el.shadowRoot);
      if (!el.matches('textarea, input[type=text]') || !visible(el) || !el.value) continue;
      if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
        problems.push(
          `${name(el)}: its text "${el.value.slice(0, 30)}…" is cut (${el.scrollWidth} × ${el.scrollHeight} in ${el.clientWidth} × ${el.clientHeight})`,
        );
    }
  };
  fields(document);
  // Words past the element's right edge (outside a region that scrolls sideways, which the
  // check above covers): cut off in a screenshot of the element.
  const host = document.querySelector('main > h1 + *');
  const edge = host.getBoundingClientRect().right;
  const words = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (node.shadowRoot) words(node.shadowRoot);
        continue;
      }
      const parent = node.parentElement;
      if (
        !parent ||
        !node.textContent.trim() ||
        !visible(parent) ||
        ['STYLE', 'SCRIPT', 'OPTION'].includes(parent.tagName)
      )
        continue;
      let scrolls = false;
      for (let el = parent; el && !scrolls; el = el.parentElement ?? el.getRootNode().host)
        scrolls = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
      if (scrolls) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects())
        if (r.width > 0 && r.right > edge + 1)
          problems.push(
            `${name(parent)}: "${node.textContent.trim().slice(0, 40)}" runs ${Math.round(r.right - edge)} px past the element's right edge`,
          );
    }
  };
  words(host.shadowRoot ?? host);
  return [...new Set(problems)];
}

for (const width of [1280, 390]) {
  test(`every element at ${width} px: axe finds no violation, no words overlap, no text under 11 px, nothing cut off`, async () => {
    const failures = [];
    for (const name of Object.keys(ELEMENT_PAGES)) {
      const { page, errors } = await open(name, width);
      await page.addScriptTag({ path: AXE });
      const violations = await page.evaluate(async () =>
        (await window.axe.run(document)).violations.map(
          (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`,
        ),
      );
      const { small, overlaps } = await page.evaluate(layoutProblems);
      const clipped = await page.evaluate(clippedContent);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (violations.length) failures.push(`${name}: axe: ${violations.join(' | ')}`);
      if (small.length) failures.push(`${name}: text under 11 px: ${small.slice(0, 8).join(', ')}`);
      if (overlaps.length) failures.push(`${name}: overlapping words: ${overlaps.join(', ')}`);
      if (clipped.length) failures.push(`${name}: content cut off: ${clipped.join(' | ')}`);
      if (overflow > 0) failures.push(`${name}: ${overflow} px of sideways scroll`);
      if (errors.length) failures.push(`${name}: page errors: ${errors.join('; ')}`);
      await page.close();
    }
    assert.deepEqual(failures, []);
  });
}

test('the legends span the data: PE and PE·PEᵀ legends end at their min and max (0 in the middle when signed)', async () => {
  const { page } = await open('positional-sinusoidal', 1280);
  const r = await page.evaluate(() => {
    const el = document.querySelector('positional-encoding');
    const range = (t) => [Math.min(...t.data), Math.max(...t.data)];
    const legends = [...el.shadowRoot.querySelectorAll('.legend')].map((l) => ({
      ends: [Number(l.dataset.min), Number(l.dataset.max)],
      text: l.innerText, // what a reader sees (no dark-only words on a light page)
    }));
    return {
      legends,
      pe: range(el.tensors.pe),
      similarity: range(el.tensors.similarity),
      axes: [...el.shadowRoot.querySelectorAll('.axis')].map((a) => a.textContent),
      ticks: [...el.shadowRoot.querySelectorAll('.xticks')].map((t) => [...t.children].map((c) => c.textContent)),
      name: el.shadowRoot.querySelector('.view-name')?.textContent,
    };
  });
  await page.close();
  // PE is signed: a diverging legend from −m to m, m = max |PE| (sin and cos reach 1 here).
  const m = Math.max(-r.pe[0], r.pe[1]);
  assert.deepEqual(r.legends[0].ends, [-m, m]);
  assert.ok(Math.abs(m - 1) < 1e-3, `max |PE| ${m}`);
  assert.match(r.legends[0].text, /\(palest = 0\)/);
  // PE·PEᵀ of 32 positions at d_model 32: every entry positive here (a sequential legend),
  // its largest the diagonal, d_model / 2 = 16.
  assert.ok(r.similarity[0] > 0, `min ${r.similarity[0]}`);
  assert.deepEqual(r.legends[1].ends, r.similarity);
  assert.ok(Math.abs(r.similarity[1] - 16) < 1e-3, `max ${r.similarity[1]}`);
  assert.deepEqual(r.axes, ['position ↓   feature →', 'position ↓   position →']);
  // 32 positions and 32 features: a tick every 8 and the last (31), each under its cell.
  assert.deepEqual(r.ticks, [
    ['0', '8', '16', '24', '31'],
    ['0', '8', '16', '24', '31'],
  ]);
  assert.match(r.name, /^Sinusoidal positional encoding/);
});

test('RoPE says the base the selector holds; the heatmap names its axes; edited steps disown the slides', async () => {
  let { page } = await open('positional-rope', 1280);
  const rope = await page.evaluate(() => {
    const root = document.querySelector('positional-encoding').shadowRoot;
    const table = root.querySelector('attention-matrix').shadowRoot;
    return {
      note: root.querySelector('.note').textContent,
      wheel: root.querySelector('figure .caption')?.textContent ?? '',
      table: table.querySelector('.caption')?.textContent ?? '',
      axis: table.querySelector('.axis').textContent,
    };
  });
  await page.close();
  assert.match(rope.note, /\(base 10000\)/);
  assert.match(rope.note, /θ₀ = base⁰ = 1 rad per position whatever the base/);
  assert.match(rope.wheel, /positions 0 to 7/);
  assert.match(rope.table, /depends only on the distance/);
  assert.equal(rope.axis, 'query position m ↓   key position n →');

  ({ page } = await open('heatmap-grid', 1280));
  const grid = await page.evaluate(() => {
    const root = document.querySelector('attention-heatmap').shadowRoot;
    const m = root.querySelector('attention-matrix').shadowRoot;
    return {
      axis: m.querySelector('.axis').textContent,
      rows: [...m.querySelectorAll('th[role=rowheader]')].map((t) => t.textContent),
      legend: [Number(m.querySelector('.legend').dataset.min), Number(m.querySelector('.legend').dataset.max)],
      caption: root.querySelector('.caption').textContent,
    };
  });
  await page.close();
  assert.equal(grid.axis, 'query ↓   key →');
  assert.deepEqual(grid.rows, ['I', 'am']);
  assert.deepEqual(grid.legend, [0, 1], 'weights on the 0 … 1 scale');
  assert.match(grid.caption, /rows sum to 1/);

  ({ page } = await open('steps', 390));
  const notes = () =>
    page.evaluate(() =>
      [...document.querySelector('attention-steps').shadowRoot.querySelectorAll('.slides')].map((n) => n.textContent),
    );
  const before = await notes();
  // Example 2 in float64, by hand: the slides' numbers lie up to this far from the exact ones
  // (they round each step before the next), and each note says by how much.
  const exact = exampleTwo();
  const slides = EXAMPLES.find((e) => e.id === 'ex2').slides;
  const gaps = ['scaledScores', 'weights', 'A', 'Y'].map((k) =>
    Math.max(...slides[k].flat().map((v, i) => Math.abs(v - exact[k].flat()[i]))),
  );
  assert.equal(before.length, 4, before.join(' | '));
  before.forEach((t, i) => {
    assert.match(
      t,
      /^As printed in the worked example this reproduces \(the “Transformer Insight” course slides\): \[\[.*\]\]\. The slides round each step before the next, so the last digit can differ: the largest gap between a printed number and the exact one in the matrix above is (\d\.\d{4})\.$/,
    );
    assert.equal(t.match(/(\d\.\d{4})\.$/)[1], gaps[i].toFixed(4), t);
  });
  assert.ok(
    gaps.every((g) => g > 0 && g < 0.01),
    `the slides differ in the last digit: ${gaps}`,
  );
  const cut = await page.evaluate(() => {
    const host = document.querySelector('attention-steps');
    const code = host.shadowRoot.querySelector('section[data-stage=softmax] code');
    return [Math.max(...[...code.getClientRects()].map((r) => r.right)), host.getBoundingClientRect().right];
  });
  assert.ok(cut[0] <= cut[1] - 3, `the softmax formula ends ${cut[0]}, inside the element ${cut[1]}`);
  await page.evaluate(() => {
    const steps = document.querySelector('attention-steps');
    const x = steps.shadowRoot.querySelector('attention-matrix[data-name="X"]');
    x.dispatchEvent(new CustomEvent('change', { detail: { row: 0, col: 0, value: 5 } }));
  });
  await page.waitForFunction(() =>
    [...document.querySelector('attention-steps').shadowRoot.querySelectorAll('.slides')].every((n) =>
      n.textContent.includes('unedited'),
    ),
  );
  const axes = await page.evaluate(() =>
    ['X', 'Q', 'weights'].map(
      (name) =>
        document
          .querySelector('attention-steps')
          .shadowRoot.querySelector(`attention-matrix[data-name="${name}"]`)
          .shadowRoot.querySelector('.axis').textContent,
    ),
  );
  await page.close();
  // (no tokens given: the token axes are numbered by position)
  assert.deepEqual(axes, [
    'token position ↓   feature →   (counted from 0)',
    'query position ↓   feature →   (counted from 0)',
    'query position ↓   key position →   (counted from 0)',
  ]);
});

test('a full-page screenshot shows a model far down the page: same-origin models also load when the page is idle', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 700 } });
  await page.route(`${url}element/far.html`, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: elementPage(
        `<div style="height: 3000px">spacer</div>
<attention-model id="near-end" src="/web/elements/models/tiny-gpt2/" text="The cat sat"></attention-model>
<attention-model id="remote" src="https://example.invalid/model/" text="The cat sat"></attention-model>`,
      ),
    }),
  );
  await page.goto(`${url}element/far.html`);
  // Never scrolled: the shipped model (this origin) is drawn all the same ...
  await page.waitForFunction(() => document.getElementById('near-end').toJSON().attentions, null, {
    timeout: 30_000,
  });
  // ... while one from another origin waits for the viewport, and says so.
  const remote = await page.evaluate(() => document.getElementById('remote').shadowRoot.textContent);
  await page.close();
  assert.match(
    remote,
    /^The model loads when this element is scrolled into view \(https:\/\/example\.invalid\/model\/\)\.$/,
  );
});

test('attention-model head view at 390 px: every head joining two tokens shows apart from the others; the key keeps its scale on one line; the caption says a decoder sees only earlier keys', async () => {
  const { page } = await open('model-head', 390);
  const r = await page.evaluate(() => {
    const model = document.querySelector('attention-model').shadowRoot;
    const root = model.querySelector('attention-heatmap').shadowRoot;
    const lines = [...root.querySelectorAll('svg line')].map((l) => ({
      pair: `${l.dataset.query},${l.dataset.key}`,
      head: l.dataset.head,
      ends: `${l.getAttribute('y1')},${l.getAttribute('y2')}`,
      stroke: getComputedStyle(l).stroke,
    }));
    const scale = root.querySelector('.key .scale');
    const range = document.createRange();
    range.selectNodeContents(scale);
    return {
      lines,
      chips: [...root.querySelectorAll('.chip')].map((c) => getComputedStyle(c).borderTopColor),
      // the boxes of "0 (thin, faint)", the samples and "1 (thick, solid)": one line when they all overlap
      scaleLines: ((boxes) => (Math.max(...boxes.map((b) => b.top)) < Math.min(...boxes.map((b) => b.bottom)) ? 1 : 2))(
        [...range.getClientRects()],
      ),
      scaleText: scale.textContent,
      caption: model.querySelector('.caption').textContent,
    };
  });
  await page.close();
  const byPair = new Map();
  for (const l of r.lines) byPair.set(l.pair, [...(byPair.get(l.pair) ?? []), l]);
  for (const [pair, lines] of byPair) {
    assert.equal(new Set(lines.map((l) => l.head)).size, 4, `${pair}: a line per head`);
    assert.equal(new Set(lines.map((l) => l.ends)).size, 4, `${pair}: the heads' lines do not share their ends`);
  }
  // Every line is drawn in a head's colour (the chips'), none in another (a grey).
  assert.deepEqual(new Set(r.lines.map((l) => l.stroke)), new Set(r.chips));
  assert.equal(r.scaleText, '0 (thin, faint)1 (thick, solid)');
  assert.equal(r.scaleLines, 1, '"0 (thin, faint)", the samples and "1 (thick, solid)" on one line');
  assert.match(r.caption, /to each key token \(right\) it can see \(a decoder: itself and the tokens before it\)/);
});

test("attention-model: head chips toggle a head's lines; the neuron view shows q, each k, q ⊙ k and q·k as cells", async () => {
  let { page } = await open('model-head', 1280);
  const lines = () =>
    page.evaluate(() => {
      const heatmap = document.querySelector('attention-model').shadowRoot.querySelector('attention-heatmap');
      const root = heatmap.shadowRoot;
      return {
        head1: root.querySelectorAll('svg line[data-head="0"]').length,
        all: root.querySelectorAll('svg line').length,
        pressed: root.querySelector('.chip[data-head="0"]').getAttribute('aria-pressed'),
        chips: [...root.querySelectorAll('.chip')].map((c) => c.textContent),
      };
    });
  const before = await lines();
  assert.deepEqual(before.chips, ['head 0 (blue)', 'head 1 (orange)', 'head 2 (green)', 'head 3 (purple)']);
  assert.equal(before.pressed, 'true');
  assert.equal(before.head1 * 4, before.all, 'each head draws T² lines');
  const chip = page.locator('attention-model').locator('attention-heatmap').locator('.chip[data-head="0"]');
  await chip.click();
  const hidden = await lines();
  assert.deepEqual([hidden.head1, hidden.all, hidden.pressed], [0, before.all - before.head1, 'false']);
  await chip.click();
  assert.deepEqual(await lines(), before);
  await page.close();

  ({ page } = await open('model-neuron', 390));
  const neuron = await page.evaluate(() => {
    const table = document.querySelector('attention-model').shadowRoot.querySelector('table.neuron');
    const scores = document.querySelector('attention-model').shadowRoot.querySelector('table.scores');
    // At 390 px the columns wrap into bands: a row's cells are those of its title in each band.
    const values = (title) =>
      [...table.rows]
        .filter((r) => r.cells[0].textContent === title)
        .flatMap((r) => [...r.querySelectorAll('td.dim')].map((td) => Number(td.dataset.value)));
    const titles = [...table.tBodies[0].rows].map((r) => r.cells[0].textContent);
    return {
      q: values(table.tHead.rows[2].cells[0].textContent), // under the titles and the dimension numbers
      dims: [...table.querySelectorAll('th.index')].map((th) => Number(th.textContent)),
      keys: titles.map(values),
      dots: [...table.tBodies[0].rows].map((r) => r.dataset.score),
      bands: table.querySelectorAll('tbody.band').length,
      tableRight: table.getBoundingClientRect().right,
      overflows: table.parentElement.scrollWidth > table.parentElement.clientWidth + 1,
      cellHeight: Math.min(...[...table.querySelectorAll('td.dim')].map((td) => td.getBoundingClientRect().height)),
      // the scores table: per key q·k, ÷ √d and the weight, on screen at 390 px
      scores: [...scores.tBodies[0].rows].map((r) =>
        [...r.querySelectorAll('td')].map((c) => Number(c.textContent.replace('−', '-'))),
      ),
      scoresRight: scores.getBoundingClientRect().right,
      width: innerWidth,
    };
  });
  await page.close();
  const hd = neuron.q.length;
  assert.equal(hd, 8, 'tiny GPT-2: head_dim 8');
  // Every column on screen at 390 px: k's 8 dims, then q ⊙ k's, each band under its titles.
  assert.ok(neuron.bands > 0 && !neuron.overflows, `bands ${neuron.bands}, overflows ${neuron.overflows}`);
  assert.ok(neuron.tableRight <= neuron.width, `the vectors end at ${neuron.tableRight} px of ${neuron.width}`);
  assert.deepEqual(neuron.dims, [...Array(hd).keys(), ...Array(hd).keys()]);
  for (const [j, row] of neuron.keys.entries()) {
    // Each key row: k (hd cells), then q ⊙ k (hd cells) whose entries are q[c]·k[c].
    const k = row.slice(0, hd),
      products = row.slice(hd);
    products.forEach((p, c) => assert.ok(Math.abs(p - neuron.q[c] * k[c]) < 1e-6, `key ${j} dim ${c}`));
  }
  assert.ok(neuron.cellHeight >= 14, `cells ${neuron.cellHeight} px tall`);
  // The scores: q·k is the sum of the row's products, then ÷ √8, then the softmax of the
  // scaled scores (the last query of a decoder sees every key), all on screen at 390 px.
  assert.ok(neuron.scoresRight <= neuron.width, `the scores end at ${neuron.scoresRight} px of ${neuron.width}`);
  const dots = neuron.keys.map((row) => row.slice(hd).reduce((a, b) => a + b, 0));
  const scaled = dots.map((d) => d / Math.sqrt(hd));
  const e = scaled.map((x) => Math.exp(x - Math.max(...scaled)));
  const weights = e.map((x) => x / e.reduce((a, b) => a + b));
  assert.equal(neuron.scores.length, neuron.keys.length);
  neuron.scores.forEach(([dot, scale, weight], j) => {
    assert.ok(Math.abs(dot - dots[j]) <= 5e-4, `key ${j}: q·k ${dot} vs ${dots[j]}`);
    assert.ok(Math.abs(scale - scaled[j]) <= 5e-4, `key ${j}: ÷ √8 ${scale} vs ${scaled[j]}`);
    assert.ok(Math.abs(weight - weights[j]) <= 5e-4 + 1e-5, `key ${j}: weight ${weight} vs ${weights[j]}`);
  });
});

test('attention-model model view: the caption names the axes and tokens; focusing a map reads it', async () => {
  const { page } = await open('model-model', 1280);
  const thumb = page.locator('attention-model').locator('button.thumb[aria-label="layer 1 head 2"]');
  await thumb.focus();
  const r = await page.evaluate(() => {
    const el = document.querySelector('attention-model');
    const json = el.toJSON();
    return {
      caption: el.shadowRoot.querySelector('table.model-grid caption').innerText,
      readout: el.shadowRoot.querySelector('.readout').textContent,
      // the tokens as the views name them (a repeated one with its position: ␣·2)
      labels: json.tokens.map((t) => t.name),
      outlined: [...el.shadowRoot.querySelectorAll('button.thumb[aria-current=true]')].map((b) =>
        b.getAttribute('aria-label'),
      ),
    };
  });
  await page.close();
  assert.match(r.caption, /query ↓ key →/);
  assert.ok(r.caption.includes(`(tokens in order: ${r.labels.join(' ')})`), r.caption);
  // The outline says what it marks: the maps the head view shows (no head attribute: all of
  // layer 1's).
  assert.match(r.caption, / Outlined: the maps the head view shows \(layer 0, every head\)\.$/);
  assert.deepEqual(r.outlined, ['layer 0 head 0', 'layer 0 head 1', 'layer 0 head 2', 'layer 0 head 3']);
  // The first query of a decoder sees only itself: its strongest key is itself, weight 1.
  assert.match(
    r.readout,
    new RegExp(`^Layer 1, head 2: each query's strongest key: ${r.labels[0]}→${r.labels[0]} 1\\.00, `),
  );
});

test('attention-model model view: a map reads the query, key and weight under the pointer; on paper the hover readings are printed; repeated tokens carry positions', async () => {
  const { page } = await open('model-model', 1280);
  const r = await page.evaluate(() => {
    const el = document.querySelector('attention-model');
    const root = el.shadowRoot;
    const json = el.toJSON(); // layer 0's maps [heads, T, T]
    const T = json.tokens.length;
    const canvas = root.querySelector('button.thumb[aria-label="layer 0 head 1"] canvas');
    const box = canvas.getBoundingClientRect();
    // The pointer over row 3, column 2 (0-based 2, 1): the cell's centre.
    canvas.dispatchEvent(
      new PointerEvent('pointermove', {
        clientX: box.left + ((1 + 0.5) / T) * box.width,
        clientY: box.top + ((2 + 0.5) / T) * box.height,
      }),
    );
    return {
      T,
      names: json.tokens.map((t) => t.name),
      labels: json.tokens.map((t) => t.label),
      weight: json.attentions.data[1 * T * T + 2 * T + 1],
      head2: json.attentions.data.slice(1 * T * T, 2 * T * T),
      readout: root.querySelector('.readout').textContent,
      caption: root.querySelector('table.model-grid caption').textContent,
      printedOnScreen: getComputedStyle(root.querySelector('.print-only')).display,
    };
  });
  await page.emulateMedia({ media: 'print' });
  const printed = await page.evaluate(() => {
    const root = document.querySelector('attention-model').shadowRoot;
    const table = root.querySelector('.print-only table.strongest');
    return {
      display: getComputedStyle(root.querySelector('.print-only')).display,
      rows: [...table.tBodies[0].rows].map((row) => [...row.cells].map((c) => c.textContent)),
    };
  });
  await page.close();
  const fmt = (x, digits) =>
    x
      .toFixed(digits)
      .replace(/^-(0\.?0*)$/, '$1')
      .replace(/^-/, '−');
  assert.equal(
    r.readout,
    `Layer 0, head 1: query “${r.names[2]}” (row 2) → key “${r.names[1]}” (column 1): weight ${fmt(r.weight, 3)}`,
  );
  // The caption names the first and last tokens of the maps' rows and columns.
  assert.ok(r.caption.includes(`rows run from “${r.names[0]}” (top) to “${r.names[r.T - 1]}” (bottom)`), r.caption);
  // Repeated names carry their 1-based position; unique ones are as they are.
  const counts = new Map();
  for (const l of r.labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  assert.deepEqual(
    r.names,
    r.labels.map((l, i) => (counts.get(l) > 1 ? `${l}·${i}` : l)),
  );
  assert.ok(
    r.names.some((n) => n.includes('·')),
    'the tiny GPT-2 repeats byte tokens',
  );
  // On screen the printed table is hidden; on paper it lists every layer × head, head 2 of
  // layer 1 reading each query's strongest key and its weight (computed here from toJSON).
  assert.equal(r.printedOnScreen, 'none');
  assert.equal(printed.display, 'block');
  assert.equal(printed.rows.length, 2 * 4);
  const strongest = r.names.map((name, i) => {
    const row = Array.from({ length: r.T }, (_, j) => r.head2[i * r.T + j]);
    const j = row.indexOf(Math.max(...row));
    return `${name}→${r.names[j]} ${fmt(row[j], 2)}`;
  });
  assert.deepEqual(printed.rows[1], ['0', '1', strongest.join(', ')]);
});

test('on paper no toolbar and no button that only acts (head chips, head rows, maps and picked tokens stay); colour bars show no sliver of their far end', async () => {
  const failures = [];
  for (const name of Object.keys(ELEMENT_PAGES)) {
    const { page } = await open(name, 1280);
    await page.emulateMedia({ media: 'print' });
    const r = await page.evaluate(() => {
      const buttons = [],
        bars = [];
      const walk = (root) => {
        for (const el of root.querySelectorAll('*')) {
          if (el.shadowRoot) walk(el.shadowRoot);
          const box = el.getBoundingClientRect();
          const shown = box.width > 0 && box.height > 0;
          if (el.localName === 'button' && shown && !el.matches('.chip, .head, .thumb, [role=radio]'))
            buttons.push(el.textContent);
          // A gradient drawn from the padding box repeats under the border: the far end's
          // colour shows as a 1 px sliver at each end.
          if (el.matches('.legend .bar')) bars.push(getComputedStyle(el).backgroundOrigin);
        }
      };
      walk(document);
      return { buttons, bars };
    });
    await page.close();
    if (r.buttons.length) failures.push(`${name}: buttons on paper: ${r.buttons.join(', ')}`);
    if (r.bars.some((o) => o !== 'border-box')) failures.push(`${name}: colour bars drawn from ${r.bars.join(', ')}`);
  }
  assert.deepEqual(failures, []);
});

test('attention-matrix says when its rows sum to 1, and only then', async () => {
  const { page } = await open('matrix', 1280);
  const shapes = await page.evaluate(async () => {
    const m = document.querySelector('attention-matrix');
    const shape = () => m.shadowRoot.querySelector('.shape').textContent;
    const weights = shape();
    m.value = [
      [0.5, 0.6],
      [0.2, 0.8],
    ];
    return [weights, shape()];
  });
  await page.close();
  assert.deepEqual(shapes, [' [2 × 2] · each row sums to 1', ' [2 × 2]']);
});

test('the lines view says "more opaque = more weight", true in light and dark pages; its key is drawn in the lines\' colour', async () => {
  for (const scheme of ['light', 'dark']) {
    const { page } = await open('heatmap-lines', 1280, scheme);
    const r = await page.evaluate(() => {
      const root = document.querySelector('attention-heatmap').shadowRoot;
      const lines = [...root.querySelectorAll('svg line:not(.other)')]; // the selected token's
      const luminance = (colour) => {
        const [r, g, b] = colour.match(/[\d.]+/g).map(Number);
        const lin = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
      };
      const stroke = getComputedStyle(lines[0]).stroke;
      return {
        caption: root.querySelector('.caption').textContent,
        key: root.querySelector('.key').textContent,
        strokes: [...new Set(lines.map((l) => getComputedStyle(l).stroke))],
        samples: [
          ...new Set([...root.querySelectorAll('.key .samples span')].map((s) => getComputedStyle(s).backgroundColor)),
        ],
        opacities: lines.map((l) => [Number(l.style.opacity), Number(l.dataset.weight)]),
        // (a page with no background of its own is white: the light pages here)
        lineLighterThanPage:
          luminance(stroke) >
          luminance(getComputedStyle(document.body).backgroundColor.replace(/^rgba\(.*, 0\)$/, 'rgb(255, 255, 255)')),
      };
    });
    await page.close();
    assert.match(r.caption, /the thicker and more opaque \(solid\) the line, the more weight/);
    assert.doesNotMatch(r.caption, /darker/);
    assert.match(
      r.key,
      /^line width and opacity = weight: 0 \(thin, faint\)\s*1 \(thick, solid\) · thin grey: the other tokens' lines$/,
    );
    assert.equal(r.strokes.length, 1);
    assert.deepEqual(r.samples, r.strokes, `${scheme}: the key's samples in the lines' colour`);
    // opacity grows with the weight from 0.55 (any weight above 0) to 1; 0 for a weight of 0
    for (const [opacity, weight] of r.opacities) {
      const expected = weight > 0 ? 0.55 + 0.45 * weight : 0;
      assert.ok(Math.abs(opacity - expected) < 1e-6, `${opacity} vs ${expected} for ${weight}`);
    }
    // The premise: on a dark page a heavy line is lighter than the page, so "darker" was false.
    assert.equal(r.lineLighterThanPage, scheme === 'dark');
  }
});

test('attention-matrix names its axes query ↓ key → unless told otherwise (row-title="" shows none)', async () => {
  const { page } = await open('matrix', 1280);
  const axes = await page.evaluate(async () => {
    const m = document.querySelector('attention-matrix');
    const axis = () => m.shadowRoot.querySelector('.axis')?.textContent ?? null;
    const corner = () => m.shadowRoot.querySelector('th.corner').textContent;
    // the page's matrix names its tokens (I, am): the axes are the tokens, no positions
    const seen = [[axis(), corner()]];
    m.removeAttribute('row-labels');
    m.removeAttribute('col-labels');
    seen.push([axis(), corner()]);
    m.setAttribute('row-title', 'token');
    m.setAttribute('col-title', 'feature');
    seen.push([axis(), corner()]);
    m.setAttribute('row-title', '');
    m.setAttribute('col-title', '');
    seen.push([axis(), corner()]);
    return seen;
  });
  await page.close();
  // Numbered rows and columns (no labels given) say that the numbers are positions.
  assert.deepEqual(axes, [
    ['query ↓   key →', 'query \\ key'],
    ['query position ↓   key position →   (counted from 0)', 'query \\ key'],
    ['token position ↓   feature →   (counted from 0)', 'token \\ feature'],
    [null, 'row \\ column'],
  ]);
});

test('hidden heads stay hidden when the head view is rebuilt (another layer, another text); a new head count shows all', async () => {
  const { page } = await open('model-head', 1280);
  const heads = () =>
    page.evaluate(() => {
      const root = document.querySelector('attention-model').shadowRoot.querySelector('attention-heatmap').shadowRoot;
      return {
        pressed: [...root.querySelectorAll('.chip')].map((c) => c.getAttribute('aria-pressed')),
        drawn: [...new Set([...root.querySelectorAll('svg line')].map((l) => l.dataset.head))].sort(),
      };
    });
  const chip = (n) => page.locator('attention-model').locator('attention-heatmap').locator(`.chip[data-head="${n}"]`);
  await chip(0).click();
  await chip(2).click();
  const hidden = { pressed: ['false', 'true', 'false', 'true'], drawn: ['1', '3'] };
  assert.deepEqual(await heads(), hidden);
  await page.evaluate(() => document.querySelector('attention-model').setAttribute('layer', '1'));
  await page.waitForFunction(() =>
    document
      .querySelector('attention-model')
      .shadowRoot.querySelector('.caption')
      .textContent.startsWith('Head view. Layer 1'),
  );
  assert.deepEqual(await heads(), hidden, 'layer 1 (layer="1": counted from 0)');
  await page.evaluate(() => {
    document.querySelector('attention-model').text = 'A dog ran';
  });
  await page.waitForFunction(() => document.querySelector('attention-model').toJSON().text === 'A dog ran');
  assert.deepEqual(await heads(), hidden, 'a new text');
  // The heatmap itself: the same number of heads keeps them hidden, another number shows all.
  const standalone = await page.evaluate(() => {
    const h = document.createElement('attention-heatmap');
    h.setAttribute('view', 'lines');
    h.setAttribute('head', 'all');
    document.body.append(h);
    const uniform = (heads) => ({ data: new Float32Array(heads * 4).fill(0.5), shape: [heads, 2, 2] });
    h.weights = uniform(4);
    h.hiddenHeads = [1];
    h.weights = uniform(4);
    const same = h.hiddenHeads;
    h.weights = uniform(3);
    return [same, h.hiddenHeads];
  });
  await page.close();
  assert.deepEqual(standalone, [[1], []]);
});

// The first legend in element `tag`'s view: [its title, its low end, its high end].
const firstLegend = (page, tag) =>
  page.evaluate((tag) => {
    const l = document.querySelector(tag).shadowRoot.querySelector('.legend');
    return [l.querySelector('.title').textContent, Number(l.dataset.min), Number(l.dataset.max)];
  }, tag);

test('every colour has a legend with numeric ends, and every index, column and mark is named', async () => {
  let { page } = await open('model-neuron', 1280);
  const neuron = await page.evaluate(() => {
    const root = document.querySelector('attention-model').shadowRoot;
    const table = root.querySelector('table.neuron');
    const hd = table.tHead.rows[1].querySelectorAll('th.index').length / 2;
    const values = (row, from, to) =>
      [...row.querySelectorAll('td.dim')].slice(from, to).map((td) => Number(td.dataset.value));
    const rows = [table.tHead.rows[2], ...table.tBodies[0].rows];
    const vectors = [...values(rows[0], 0, hd), ...rows.slice(1).flatMap((r) => values(r, 0, hd))];
    const products = rows.slice(1).flatMap((r) => values(r, hd, 2 * hd));
    return {
      dims: [...table.tHead.rows[1].querySelectorAll('th.index')].map((th) => Number(th.textContent)),
      dimsTitle: table.tHead.rows[1].cells[0].textContent,
      legends: [...root.querySelectorAll('.legends .legend')].map((l) => [
        l.querySelector('.title').textContent,
        Number(l.dataset.min),
        Number(l.dataset.max),
      ]),
      vectorMax: Math.max(...vectors.map(Math.abs)),
      productMax: Math.max(...products.map(Math.abs)),
      caption: root.querySelector('.table-caption').textContent,
    };
  });
  await page.close();
  assert.deepEqual(neuron.dims, [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(neuron.dimsTitle, 'dimension →');
  const cellMax = Math.max(neuron.vectorMax, neuron.productMax);
  assert.deepEqual(neuron.legends, [['q, k and q ⊙ k cells (one scale)', -cellMax, cellMax]]);
  assert.match(neuron.caption, /numbered 0 to 7 above the cells/);

  ({ page } = await open('model-model', 1280));
  const model = await firstLegend(page, 'attention-model');
  await page.close();
  assert.deepEqual(model, ['map colour = attention weight', 0, 1]);

  ({ page } = await open('model-head', 1280));
  const head = await page.evaluate(() => {
    const root = document.querySelector('attention-model').shadowRoot;
    const key = root.querySelector('attention-heatmap').shadowRoot.querySelector('.key .samples');
    return {
      columns: [...root.querySelectorAll('table.probabilities thead th')].map((th) => th.textContent),
      neutral: getComputedStyle(key.firstElementChild).backgroundColor,
    };
  });
  await page.close();
  assert.deepEqual(head.columns, ['token', 'probability (0 … 1)']);
  assert.equal(head.neutral, 'rgb(136, 136, 136)', "the all-heads key is drawn in a mid grey, not a head's colour");

  ({ page } = await open('sentiment', 1280));
  const sentiment = await firstLegend(page, 'attention-sentiment');
  await page.close();
  // (0 to the layer's largest weight, said in the title: tests/element-reader-gaps-course.test.js)
  assert.match(sentiment[0], /^both tables below: cell shade = attention weight, on a scale from 0 to /);
  assert.equal(sentiment[1], 0);
  assert.ok(sentiment[2] > 0 && sentiment[2] <= 1);

  ({ page } = await open('positional-rope', 1280));
  const rope = await page.evaluate(() => {
    const root = document.querySelector('positional-encoding').shadowRoot;
    return {
      heads: root.querySelectorAll('svg polygon.arrowhead').length,
      shades: [...root.querySelectorAll('.shades .samples span')].map((s) => Number(s.style.opacity)),
      lines: [...root.querySelectorAll('svg line.q')].map((l) => Number(l.style.opacity)),
      kLines: [...root.querySelectorAll('svg line.k')].map((l) => Number(l.style.opacity)),
      key: root.querySelector('.shades').textContent,
    };
  });
  await page.close();
  assert.equal(rope.heads, 16, 'an arrowhead at each tip: q and k at 8 positions');
  assert.deepEqual(rope.shades, rope.lines, "the key's shades are the arrows'");
  assert.deepEqual(rope.kLines, rope.lines, 'k shaded by position as q');
  assert.equal(rope.key, 'arrow shade = position: 07');
});

test("flash names s and marks this block's keys only once a block is read", async () => {
  const { page } = await open('flash', 1280);
  const read = () =>
    page.evaluate(() => {
      const root = document.querySelector('attention-flash').shadowRoot;
      const m = (name) => root.querySelector(`attention-matrix[data-name="${name}"]`);
      const k = m('k');
      return {
        formula: root.querySelector('.formula').textContent.split(':')[0],
        k: k.label,
        marked: k.rowLabels.filter((l) => l.startsWith('▶')).length,
        scores: m('block-scores') && [
          m('block-scores').label,
          m('block-scores').shadowRoot.querySelector('.axis').textContent,
        ],
        p: m('block-p')?.label ?? null,
      };
    });
  const s =
    "Per query row, block by block, with s = its scores q·kᵀ/√d against the block's keys, m the running max, ℓ the running sum and out the running output (one vector per row)";
  assert.deepEqual(await read(), { formula: s, k: 'k (no block read yet)', marked: 0, scores: null, p: null });
  await page.locator('attention-flash').getByRole('button', { name: 'Next block ▶' }).click();
  const after = await read();
  await page.close();
  assert.equal(after.k, "k (▶ = block 1's keys)");
  assert.equal(after.marked, 2, 'block="2": two keys');
  assert.deepEqual(after.scores, ["s: this block's scores q·kᵀ/√d", "query row ↓   this block's key →"]);
  assert.equal(after.p, 'e^(s − m): s above, m the new running max');
});

test('training: the status, the curve and the pause agree on the step', async () => {
  const { page } = await open('training', 1280);
  await page.waitForFunction(() => document.querySelector('attention-training').state !== 'running', null, {
    timeout: 60_000,
  });
  await page.waitForTimeout(1000); // a report the Worker sent before it read the pause would be in by now
  const r = await page.evaluate(() => {
    const el = document.querySelector('attention-training');
    return {
      last: el.history.at(-1).step,
      first: el.history[0].step,
      stats: el.shadowRoot.querySelector('.stats').textContent,
      caption: el.shadowRoot.querySelector('canvas + .curve-key + .caption').textContent,
    };
  });
  await page.close();
  assert.equal(Number(/^step (\d+)/.exec(r.stats)[1]), r.last, r.stats);
  // The curve is named, and says why it starts where its first point is (every="10": step 10).
  assert.equal(r.first, 10);
  assert.match(
    r.caption,
    /^Training loss \(left axis, log scale\) and held-out token accuracy \(right axis\) against step: each loss point is the mean loss of the training batches of the 10 steps before it, so the curves start at step 10;/,
  );
  const paused = /at step (\d+): paused/.exec(r.stats);
  if (paused) assert.equal(Number(paused[1]), r.last, r.stats);
});

test('print of a model from another origin: a placeholder says what happened and what to try, never a bare control', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 700 } });
  await page.route(`${url}element/remote.html`, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: elementPage(
        `<div style="height: 3000px">spacer</div><attention-model id="remote" src="https://example.invalid/model/" text="The cat sat"></attention-model>`,
      ),
    }),
  );
  await page.route('https://example.invalid/**', () => {}); // online, and never answered
  await page.goto(`${url}element/remote.html`);
  await page.emulateMedia({ media: 'print' });
  await page.waitForFunction(() => document.getElementById('remote').shadowRoot.querySelector('progress'));
  const printing = await page.evaluate(() => {
    const root = document.getElementById('remote').shadowRoot;
    return {
      progress: getComputedStyle(root.querySelector('progress')).display,
      note: root.querySelector('.print-only').textContent,
      shown: getComputedStyle(root.querySelector('.print-only')).display,
    };
  });
  assert.equal(printing.progress, 'none');
  assert.equal(printing.shown, 'block');
  assert.match(
    printing.note,
    /^Could not load https:\/\/example\.invalid\/model\/ in time for print: it was still downloading\. Try: print again once the model is drawn, or the tiny GPT-2 this package ships \(random weights: its predictions mean nothing, its arithmetic is exact\), src="tiny-gpt2"\.$/,
  );
  await page.close();
  // Offline: the load fails at once, and the element says so in plain words, then what to try.
  const offline = await browser.newPage({ viewport: { width: 1280, height: 700 } });
  await offline.route(`${url}element/remote.html`, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: elementPage(
        `<div style="height: 3000px">spacer</div><attention-model id="remote" src="https://example.invalid/model/" text="The cat sat"></attention-model>`,
      ),
    }),
  );
  await offline.goto(`${url}element/remote.html`);
  await offline.context().setOffline(true);
  await offline.emulateMedia({ media: 'print' });
  await offline.waitForFunction(() => document.getElementById('remote').error, null, { timeout: 30_000 });
  const failed = await offline.evaluate(() =>
    [...document.getElementById('remote').shadowRoot.children].map((c) => c.textContent),
  );
  // A full-page screenshot offline (no print): an element from another origin, not yet
  // scrolled to, says it cannot load and what to try, rather than that it will load.
  await offline.emulateMedia({ media: 'screen' });
  const waiting = await offline.evaluate(async () => {
    await customElements.whenDefined('attention-model');
    const el = document.createElement('attention-model');
    el.setAttribute('src', 'https://example.invalid/other/');
    document.body.prepend(Object.assign(document.createElement('div'), { style: 'height: 3000px' }));
    document.body.append(el);
    return [...el.shadowRoot.children].map((c) => c.textContent);
  });
  await offline.context().setOffline(false);
  await offline.close();
  assert.equal(failed[0], 'Could not load https://example.invalid/model/: the browser is offline.');
  assert.match(failed.at(-1), /^Try: /);
  assert.equal(waiting[0], 'Could not load https://example.invalid/other/: the browser is offline.');
  assert.match(waiting[1], /^Try: /);
});
