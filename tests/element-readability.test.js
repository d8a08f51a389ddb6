// Every element readable on its own (issue 45), in headless Chromium, each on a page of its
// own as docs/elements.md shows it (scripts/element-shots.mjs's pages), at 1280 and 390 px:
// axe-core finds no violation at all; no two words overlap (nothing is printed over what it
// describes); no text is smaller than 11 px. And the views say what they show: legends whose
// ends are the data's numbers, axis titles, captions.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';
import { ELEMENT_PAGES, elementPage } from '../scripts/element-shots.mjs';

const AXE = fileURLToPath(new URL('../node_modules/axe-core/axe.min.js', import.meta.url));
let server, url, browser;

test.before(async () => {
  ({ server, url } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'node_modules'] }));
  browser = await launchChromium();
});

test.after(async () => {
  await browser?.close();
  server?.close();
});

// A page holding one element's tag, at `width` (in a light or dark page); resolves once the
// element has drawn.
async function open(name, width, scheme = 'light') {
  const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route(`${url}element/${name}.html`, (route) =>
    route.fulfill({ contentType: 'text/html; charset=utf-8', body: elementPage(ELEMENT_PAGES[name], scheme) }),
  );
  await page.goto(`${url}element/${name}.html`);
  await page.waitForFunction(
    () => {
      const root = document.querySelector('main > h1 + *')?.shadowRoot;
      return root && root.children.length > 0 && !root.querySelector('progress');
    },
    null,
    { timeout: 60_000 },
  );
  // The sentiment element draws its stages once its classifier has read the sentence.
  await page.waitForFunction(
    () => {
      const el = document.querySelector('main > h1 + *');
      return el.localName !== 'attention-sentiment' || el.shadowRoot.querySelector('ol.pipeline li');
    },
    null,
    { timeout: 60_000 },
  );
  await page.waitForTimeout(300);
  return { page, errors };
}

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
      const box = parent.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue; // visually hidden (for screen readers)
      const range = document.createRange();
      for (const match of node.textContent.matchAll(/\S+/g)) {
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        for (const r of range.getClientRects()) {
          if (r.width < 1 || r.height < 1) continue;
          words.push({ node, text: match[0], size: parseFloat(style.fontSize), r });
        }
      }
    }
  };
  walk(document.body);
  const small = words.filter((w) => w.size < 11).map((w) => `"${w.text}" ${w.size}px`);
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
      text: l.textContent,
    }));
    return {
      legends,
      pe: range(el.tensors.pe),
      similarity: range(el.tensors.similarity),
      axes: [...el.shadowRoot.querySelectorAll('.axis')].map((a) => a.textContent),
      ticks: [...el.shadowRoot.querySelectorAll('.xticks')].map((t) => t.textContent),
    };
  });
  await page.close();
  // PE is signed: a diverging legend from −m to m, m = max |PE| (sin and cos reach 1 here).
  const m = Math.max(-r.pe[0], r.pe[1]);
  assert.deepEqual(r.legends[0].ends, [-m, m]);
  assert.ok(Math.abs(m - 1) < 1e-3, `max |PE| ${m}`);
  assert.match(r.legends[0].text, /white = 0/);
  // PE·PEᵀ of 32 positions at d_model 32: every entry positive here (a sequential legend),
  // its largest the diagonal, d_model / 2 = 16.
  assert.ok(r.similarity[0] > 0, `min ${r.similarity[0]}`);
  assert.deepEqual(r.legends[1].ends, r.similarity);
  assert.ok(Math.abs(r.similarity[1] - 16) < 1e-3, `max ${r.similarity[1]}`);
  assert.deepEqual(r.axes, ['position ↓   feature →', 'position ↓   position →']);
  assert.deepEqual(r.ticks, ['031', '031']);
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

  ({ page } = await open('steps', 1280));
  const notes = () =>
    page.evaluate(() =>
      [...document.querySelector('attention-steps').shadowRoot.querySelectorAll('.slides')].map((n) => n.textContent),
    );
  const before = await notes();
  assert.ok(
    before.length > 0 &&
      before.every((t) => /^Course slides \(the same matrix as printed there, rounded\): \[/.test(t)),
    before.join(' | '),
  );
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
  assert.deepEqual(axes, ['token ↓   feature →', 'query ↓   feature →', 'query ↓   key →']);
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
  assert.deepEqual(before.chips, ['head 1', 'head 2', 'head 3', 'head 4']);
  assert.equal(before.pressed, 'true');
  assert.equal(before.head1 * 4, before.all, 'each head draws T² lines');
  const chip = page.locator('attention-model').locator('attention-heatmap').locator('.chip[data-head="0"]');
  await chip.click();
  const hidden = await lines();
  assert.deepEqual([hidden.head1, hidden.all, hidden.pressed], [0, before.all - before.head1, 'false']);
  await chip.click();
  assert.deepEqual(await lines(), before);
  await page.close();

  ({ page } = await open('model-neuron', 1280));
  const neuron = await page.evaluate(() => {
    const table = document.querySelector('attention-model').shadowRoot.querySelector('table.neuron');
    const values = (row) => [...row.querySelectorAll('td.dim')].map((td) => Number(td.dataset.value));
    const rows = [...table.tBodies[0].rows];
    return {
      q: values(table.tHead.rows[2]), // under the titles and the dimension numbers
      dims: [...table.tHead.rows[1].querySelectorAll('th.index')].map((th) => Number(th.textContent)),
      keys: rows.map((r) => values(r)),
      dots: rows.map((r) => r.dataset.score),
      cellHeight: Math.min(...[...table.querySelectorAll('td.dim')].map((td) => td.getBoundingClientRect().height)),
    };
  });
  await page.close();
  const hd = neuron.q.length;
  assert.equal(hd, 8, 'tiny GPT-2: head_dim 8');
  for (const [j, row] of neuron.keys.entries()) {
    // Each key row: k (hd cells), then q ⊙ k (hd cells) whose entries are q[c]·k[c].
    const k = row.slice(0, hd),
      products = row.slice(hd);
    products.forEach((p, c) => assert.ok(Math.abs(p - neuron.q[c] * k[c]) < 1e-6, `key ${j} dim ${c}`));
  }
  assert.ok(neuron.cellHeight >= 14, `cells ${neuron.cellHeight} px tall`);
});

test('attention-model model view: the caption names the axes and tokens; focusing a map reads it', async () => {
  const { page } = await open('model-model', 1280);
  const thumb = page.locator('attention-model').locator('button.thumb[aria-label="layer 2 head 3"]');
  await thumb.focus();
  const r = await page.evaluate(() => {
    const el = document.querySelector('attention-model');
    const json = el.toJSON();
    return {
      caption: el.shadowRoot.querySelector('table.model-grid caption').textContent,
      readout: el.shadowRoot.querySelector('.readout').textContent,
      labels: json.tokens.map((t) => t.label),
    };
  });
  await page.close();
  assert.match(r.caption, /query ↓ key →/);
  assert.ok(r.caption.includes(`(tokens in order: ${r.labels.join(' ')})`), r.caption);
  // The first query of a decoder sees only itself: its strongest key is itself, weight 1.
  assert.match(
    r.readout,
    new RegExp(`^Layer 2, head 3: each query's strongest key: ${r.labels[0]}→${r.labels[0]} 1\\.00, `),
  );
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
