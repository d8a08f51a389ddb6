// What a reader who sees only screenshots of the course elements (steps, flash, pruning,
// training, positional-encoding, sentiment, the heatmap's grids, matrix) could still not say
// (issue 45, round 5), now said by the views, in headless Chromium on the pages
// docs/elements.md shows. Expected values come from float64 references computed here from
// the elements' own inputs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { elementPages, visibleText, printedNumber } from './helpers/element-page.js';
import { settled } from '../scripts/element-shots.mjs';
import { EXAMPLES, WEIGHTS } from '../web/elements/course-examples.js';

const open = elementPages(test);

// Row-vector product a·b of nested rows, float64.
const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, x, t) => s + x * b[t][j], 0)));
const transpose = (a) => a[0].map((_, j) => a.map((row) => row[j]));
const largestAbs = (rows) => Math.max(...rows.flat().filter(Number.isFinite).map(Math.abs));

// The legend of matrix `name` inside element `tag`: [title, low end, high end], and the
// background of its cell (row, col).
const matrixLegend = (page, tag, name, cell = [0, 0]) =>
  page.evaluate(
    ([tag, name, cell]) => {
      const m = document.querySelector(tag).shadowRoot.querySelector(`attention-matrix[data-name="${name}"]`);
      const l = m.shadowRoot.querySelector('.legend');
      const td = m.shadowRoot.querySelector(`td[data-row="${cell[0]}"][data-col="${cell[1]}"]`);
      return {
        title: l.querySelector('.title').textContent,
        min: Number(l.dataset.min),
        max: Number(l.dataset.max),
        background: getComputedStyle(td).backgroundColor,
        value: Number(td.dataset.value),
      };
    },
    [tag, name, cell],
  );

test("steps' three score matrices share one colour scale, ± the largest |score| and at least ±1, so example 2's ±0.08 is drawn pale", async () => {
  const { page } = await open('steps', 1280);
  const ex = EXAMPLES[1];
  const Q = matmul(ex.X, WEIGHTS.W_Q),
    K = matmul(ex.X, WEIGHTS.W_K);
  const scores = matmul(Q, transpose(K));
  const m = Math.max(1, largestAbs(scores));
  assert.ok(largestAbs(scores) < 0.1, 'the premise: the scores are all within ±0.1');
  for (const name of ['scores', 'scaled', 'masked']) {
    const r = await matrixLegend(page, 'attention-steps', name);
    assert.equal(r.min, -m, name);
    assert.equal(r.max, m, name);
    assert.match(r.title, /one scale for Q·Kᵀ, ÷√d_k and the masked scores, at least ±1/);
    // |score| < 0.1 of ±1: within 10 % of the diverging map's white (247, 247, 247)
    const [red, green, blue] = r.background.match(/\d+/g).map(Number);
    for (const c of [red, green, blue]) assert.ok(c > 200, `${name}[0][0] = ${r.value} drawn ${r.background}`);
  }
  // After an edit that makes a score large, the scale follows it (still one for all three).
  const X = [
    [0, 0, 3],
    [0, 1, 3],
  ];
  await page.evaluate((x) => {
    const el = document.querySelector('attention-steps');
    el.data = { ...el.data, x };
  }, X);
  await page.waitForFunction(() => Math.abs(document.querySelector('attention-steps').stages.scores.data[0]) > 1);
  const big = matmul(matmul(X, WEIGHTS.W_Q), transpose(matmul(X, WEIGHTS.W_K)));
  const mBig = Math.max(1, largestAbs(big));
  assert.ok(mBig > 1);
  for (const name of ['scores', 'scaled', 'masked']) {
    const r = await matrixLegend(page, 'attention-steps', name);
    assert.ok(Math.abs(r.max - mBig) < 1e-5 * mBig, `${name}: ${r.max} vs ${mBig}`);
  }
  await page.close();
});

test("flash draws every block's scores on one scale, at least ±1; ALiBi's heads share one; an unshared signed matrix says its scale is its own", async () => {
  let { page } = await open('flash', 1280);
  const data = await page.evaluate(() => document.querySelector('attention-flash').data);
  const scale = 1 / Math.sqrt(data.q[0].length);
  const s = data.q.map((qi) => data.k.map((kj) => qi.reduce((a, x, t) => a + x * kj[t], 0) * scale));
  const m = Math.max(1, largestAbs(s));
  for (const step of [1, 2, 3]) {
    await page.evaluate((t) => {
      document.querySelector('attention-flash').step = t;
    }, step);
    const r = await matrixLegend(page, 'attention-flash', 'block-scores');
    assert.ok(
      Math.abs(r.max - m) < 1e-12 && Math.abs(r.min + m) < 1e-12,
      `block ${step}: ${r.min} … ${r.max} vs ±${m}`,
    );
    assert.match(r.title, /one scale for every block's scores/);
  }
  await page.close();

  ({ page } = await open('positional-rope', 1280));
  await page.evaluate(() => document.querySelector('positional-encoding').setAttribute('kind', 'alibi'));
  await page.waitForFunction(() =>
    document.querySelector('positional-encoding').shadowRoot.querySelector('attention-matrix[data-name="head-2"]'),
  );
  const alibi = await page.evaluate(() => {
    const el = document.querySelector('positional-encoding');
    const legends = [...el.shadowRoot.querySelectorAll('attention-matrix')].map((m) => {
      const l = m.shadowRoot.querySelector('.legend');
      return [l.querySelector('.title').textContent, Number(l.dataset.max)];
    });
    return { legends };
  });
  await page.close();
  assert.ok(alibi.legends.length >= 2);
  const largest = Math.max(...alibi.legends.map(([, max]) => max));
  for (const [title, max] of alibi.legends) {
    assert.equal(max, largest, 'every head on one scale');
    assert.match(title, /one scale for every head/);
  }

  // A matrix alone says its signed scale is its own.
  ({ page } = await open('matrix', 1280));
  const own = await page.evaluate(() => {
    const m = document.querySelector('attention-matrix');
    m.heat = 'diverging';
    m.value = [
      [0.02, -0.01],
      [0.005, 0.01],
    ];
    const l = m.shadowRoot.querySelector('.legend');
    return [l.querySelector('.title').textContent, Number(l.dataset.max)];
  });
  await page.close();
  assert.equal(own[0], "cell colour = value (this matrix's own scale: ± its largest |value|)");
  assert.ok(Math.abs(own[1] - 0.02) < 1e-8);
});

test("sentiment: its maps are shaded 0 to the layer's largest weight (said in the legend), one head control, the path from attention to the verdict, and what “[CLS] 2” is", async () => {
  const { page } = await open('sentiment', 1280);
  const r = await page.evaluate(() => {
    const el = document.querySelector('attention-sentiment');
    const root = el.shadowRoot;
    const stages = [...root.querySelectorAll('ol.pipeline > li')];
    const legend = stages[4].querySelector('.legend');
    const map = root.querySelector('[role=region][aria-label^="Attention matrix"] table');
    const cells = [...map.querySelectorAll('td')].map((td) => [Number(td.title), getComputedStyle(td).backgroundColor]);
    return {
      attention: el.prediction.attention.map((layer) => layer.map((head) => head.map((row) => Array.from(row)))),
      tokens: el.prediction.tokens,
      dModel: el.classifier.modelConfig.dModel,
      legend: [legend.querySelector('.title').textContent, Number(legend.dataset.min), Number(legend.dataset.max)],
      cells,
      selects: [...root.querySelectorAll('select')].map((s) => s.closest('label').textContent.trim().split(/\s/)[0]),
      headButtons: [...root.querySelectorAll('button.head')].map((b) => b.textContent),
      indices: stages[2].querySelector('.stage-note')?.textContent ?? '',
      verdict: stages[5].querySelector('.stage-note')?.textContent ?? '',
    };
  });
  await page.close();
  const last = r.attention.at(-1);
  const top = Math.max(...last.flat(2));
  assert.ok(top < 0.5, `the premise: the largest weight is small (${top})`);
  assert.equal(r.legend[1], 0);
  assert.ok(Math.abs(r.legend[2] - top) < 1e-6, `${r.legend[2]} vs ${top}`);
  assert.match(
    r.legend[0],
    new RegExp(
      `on a scale from 0 to ${top.toFixed(2)} \\(the largest weight in layer ${r.attention.length - 1}\\), not 0 to 1`,
    ),
  );
  // The largest weight of the head shown is drawn at (or, for another head's maximum, below)
  // viridis' top, yellow; its smallest is not drawn black-purple unless it is near 0.
  const [wMax, colour] = r.cells.reduce((a, b) => (b[0] > a[0] ? b : a));
  const [red, green] = colour.match(/\d+/g).map(Number);
  assert.ok(wMax / top > 0.9 ? red > 200 && green > 200 : green > 100, `${wMax} of ${top}: ${colour}`);
  // One head control: the [CLS] table's head buttons, counted from 0; the selects are the
  // examples and the layer.
  assert.deepEqual(r.selects, ['Examples', 'Layer']);
  assert.deepEqual(
    r.headButtons,
    last.map((_, h) => String(h)),
  );
  const cls = r.tokens[0];
  assert.equal(cls.text, '[CLS]');
  assert.match(
    r.indices,
    new RegExp(`“\\[CLS\\] ${cls.id}”: the \\[CLS\\] token, index ${cls.id}, added before the text`),
  );
  assert.ok(
    r.verdict.startsWith(
      `How attention leads to the verdict: the [CLS] query's weights (its row in stage 5) decide how much of each token's vector flows into the [CLS] row. That row of the last layer (layer ${r.attention.length - 1}), ${r.dModel} numbers, is the pooled vector`,
    ),
    r.verdict,
  );
});

test('references a reader lacks are said inline: what the worked example is (no "seed 001"), that its weights are made up, not learned; the sentiment list names its reviews', async () => {
  let { page } = await open('steps', 1280);
  const steps = await page.evaluate(() => {
    const root = document.querySelector('attention-steps').shadowRoot;
    return {
      text: root.textContent,
      intro: root.querySelector('[data-role=intro]').textContent,
      weights: root.querySelector('section[data-stage=weights] code').textContent,
    };
  });
  await page.close();
  assert.doesNotMatch(steps.text, /seed 001/i);
  assert.ok(
    steps.intro.startsWith(
      "The course's worked example 2 (self-attention, two tokens, 3 features a token, one head; W_Q, W_K, W_V and W_O are the slides' made-up numbers, not trained; from the “Transformer Insight” course slides (AI VIETNAM, 2023))",
    ),
    steps.intro,
  );
  // It names example 3 by what it is, not by a number alone.
  assert.match(steps.intro, /\(the course's example 3 does: the same two tokens, with that mask\)/);
  assert.equal(steps.weights, "the slides' made-up numbers, not learned (editable)");
  // The caller's own weights: no such claim.
  ({ page } = await open('steps', 1280));
  const own = await page.evaluate(async () => {
    const el = document.querySelector('attention-steps');
    el.removeAttribute('example');
    el.data = {
      x: [
        [1, 0],
        [0, 1],
      ],
    };
    await new Promise((r) => setTimeout(r, 300));
    return el.shadowRoot.querySelector('section[data-stage=weights] code').textContent;
  });
  await page.close();
  assert.equal(own, 'learned in a model; here as given (editable)');

  ({ page } = await open('sentiment', 1280));
  const options = await page.evaluate(() =>
    [...document.querySelector('attention-sentiment').shadowRoot.querySelector('select').options].map(
      (o) => o.textContent,
    ),
  );
  await page.close();
  assert.ok(!options.some((o) => /seed/i.test(o)), options.join(' | '));
  assert.match(options[1], /IMDB review 1 from the course slides \((positive|negative)\)$/);
});

test('steps says beside M what the mask does, and when a preset changes nothing: padding that keeps every key, a window covering every earlier key', async () => {
  const { page } = await open('steps', 1280);
  const steps = page.locator('attention-steps');
  const note = () =>
    page.evaluate(
      () =>
        document
          .querySelector('attention-steps')
          .shadowRoot.querySelector('section[data-stage=mask] [data-role=mask-note]')?.textContent ?? null,
    );
  const M = () => page.evaluate(() => Array.from(document.querySelector('attention-steps').stages.M.data));
  // Example 2 has no mask: M is all zeros.
  assert.deepEqual(await M(), [0, 0, 0, 0]);
  assert.equal(await note(), 'mask: none (M = 0 everywhere): every query may attend to every key.');
  const set = async (label, value) => {
    const input = steps.locator(`input[aria-label^="${label}"]`);
    await input.fill(value);
    await input.dispatchEvent('change');
  };
  // Padding that keeps both keys (the preset's number starts at the number of keys): still all
  // zeros, and the note says why.
  await steps.locator('select').selectOption('key-length');
  await page.waitForFunction(() =>
    /padding keeps/.test(document.querySelector('attention-steps').shadowRoot.textContent),
  );
  assert.deepEqual(await M(), [0, 0, 0, 0]);
  assert.equal(
    await note(),
    'M = 0 everywhere: every query may attend to every key (padding keeps all 2 keys, none is padding: it blocks nothing).',
  );
  // Padding that keeps 1 key: key j is blocked for j ≥ 1, in both rows.
  await set('padding: keys kept', '1');
  await page.waitForFunction(() => document.querySelector('attention-steps').stages.M.data[1] === -Infinity);
  const blocked = [0, 1].flatMap((i) => [0, 1].map((j) => j >= 1)).filter(Boolean).length;
  assert.equal(
    await note(),
    `M is −∞ at ${blocked} of 4 query–key pairs: their weights become 0. Padding keeps the first 1 of 2 keys; the rest are padding.`,
  );
  // A window of 1 key before each query (the preset's number starts at 1), over 2 tokens: the
  // plain causal mask (j ≤ i).
  await steps.locator('select').selectOption('causal-window');
  await page.waitForFunction(
    () =>
      document.querySelector('attention-steps').stages.M.data[2] === 0 &&
      document.querySelector('attention-steps').stages.M.data[1] === -Infinity &&
      document
        .querySelector('attention-steps')
        .shadowRoot.querySelector('[data-role=mask-note]')
        .textContent.includes('window'),
  );
  assert.deepEqual(await M(), [0, -Infinity, 0, 0]);
  assert.equal(
    await note(),
    'M is −∞ at 1 of 4 query–key pairs: their weights become 0. The window (1 key before each query) covers every earlier key of these 2 tokens: M is the plain causal mask.',
  );
  await page.close();
});

test("flash gives its memory sentence's arithmetic, shows every block's m and ℓ (the middle ones too, on paper as well), and counts rows and keys from 0", async () => {
  const { page } = await open('flash', 390);
  const read = () =>
    page.evaluate(() => {
      const root = document.querySelector('attention-flash').shadowRoot;
      const m = root.querySelector('attention-matrix[data-name="history"]');
      return {
        data: document.querySelector('attention-flash').data,
        memory: root.querySelector('.memory').textContent,
        status: root.querySelector('.controls .status').textContent,
        shown: m ? m.getClientRects().length > 0 : false,
        rows: m ? [...m.shadowRoot.querySelectorAll('th[role=rowheader]')].map((th) => th.textContent) : [],
        cols: m ? [...m.shadowRoot.querySelectorAll('th[role=columnheader]')].map((th) => th.textContent) : [],
        cells: m ? [...m.shadowRoot.querySelectorAll('td')].map((td) => Number(td.dataset.value)) : [],
      };
    });
  const r = await read();
  // The arithmetic: N = 4096, head_dim 64, blocks of 32; m, ℓ, O and one block of scores.
  const kept = 4096 * (2 + 64) * 4 + 4096 * 32 * 4;
  assert.ok(r.memory.includes('the score matrix is 4096 × 4096 × 4 B = 64 MiB'), r.memory);
  assert.ok(
    r.memory.includes(
      `m and ℓ (4096 × 2 × 4 B = 32 KiB), out (4096 × 64 × 4 B = 1 MiB) and one block of scores (4096 × 32 × 4 B = 512 KiB): ${(kept / 2 ** 20).toFixed(2)} MiB per head.`,
    ),
    r.memory,
  );
  // Every step's m and ℓ per query row, from a float64 online softmax of the element's inputs.
  const { q, k } = r.data;
  const block = 2;
  const expected = [q.flatMap(() => [-Infinity, 0])];
  let state = q.map(() => ({ m: -Infinity, l: 0 }));
  for (let j0 = 0; j0 < k.length; j0 += block) {
    state = q.map((qi, i) => {
      const s = k.slice(j0, j0 + block).map((kj) => qi.reduce((a, x, t) => a + x * kj[t], 0) / Math.sqrt(qi.length));
      const m = Math.max(state[i].m, ...s);
      const l =
        state[i].l * (state[i].m === -Infinity ? 0 : Math.exp(state[i].m - m)) +
        s.reduce((a, x) => a + Math.exp(x - m), 0);
      return { m, l };
    });
    expected.push(state.flatMap(({ m, l }) => [m, l]));
  }
  assert.equal(r.shown, true);
  assert.deepEqual(r.rows, ['▶ start', 'after block 1 of 3', 'after block 2 of 3', 'after block 3 of 3']);
  assert.deepEqual(r.cols, ['m (row 0)', 'ℓ (row 0)', 'm (row 1)', 'ℓ (row 1)']);
  expected
    .flat()
    .forEach((x, i) =>
      assert.ok(
        x === r.cells[i] || Math.abs(x - r.cells[i]) < 1e-6 * Math.max(1, Math.abs(x)),
        `cell ${i}: ${r.cells[i]} vs ${x}`,
      ),
    );
  // On paper the table stays; at block 1 the status counts keys from 0.
  await page.emulateMedia({ media: 'print' });
  assert.equal((await read()).shown, true);
  await page.emulateMedia({ media: 'screen' });
  await page.evaluate(() => {
    document.querySelector('attention-flash').step = 1;
  });
  const one = await read();
  await page.close();
  assert.equal(one.status, 'Block 1 of 3: keys 0–1');
  assert.equal(one.rows[1], '▶ after block 1 of 3');
});

test("sources said: pruning's P (scores of stated made-up vectors, not probabilities; the keep decisions are the ticks), training's causality, RoPE's wheel drawing the table's q and k", async () => {
  let { page } = await open('pruning', 1280);
  const pruning = await page.evaluate(() => {
    const el = document.querySelector('token-pruning');
    const w = el.result.weights;
    return {
      note: el.shadowRoot.querySelector('[data-role=source]')?.textContent ?? '',
      keep: el.keep,
      weights: Array.from(w.data),
      L: w.shape[0],
      d: el.result.x.shape[1],
    };
  });
  await page.close();
  const { L, d, keep } = pruning;
  assert.match(
    pruning.note,
    new RegExp(
      `^Where the numbers come from: P is not a probability but the scaled scores, P = x·xᵀ/√d, of made-up token vectors x \\(x\\[t, f\\] = cos\\(1\\.3·\\(t·d \\+ f\\) \\+ 0\\.4·f\\), d = ${d} features a token`,
    ),
  );
  assert.match(
    pruning.note,
    /The keep decisions are the ticks above: in DynamicViT a small prediction network gives each token a keep probability/,
  );
  // The note's P, in float64, gives the weights shown: Ã_ij = exp(P_ij)·G_ij / Σ_k exp(P_ik)·G_ik.
  const x = Array.from({ length: L }, (_, t) =>
    Array.from({ length: d }, (_, f) => Math.cos(1.3 * (t * d + f) + 0.4 * f)),
  );
  for (let i = 0; i < L; i++) {
    const e = x.map((xj, j) =>
      i === j || keep[j] ? Math.exp(x[i].reduce((s, v, f) => s + v * xj[f], 0) / Math.sqrt(d)) : 0,
    );
    const sum = e.reduce((a, b) => a + b, 0);
    e.forEach((v, j) => assert.ok(Math.abs(v / sum - pruning.weights[i * L + j]) < 1e-5, `Ã[${i}][${j}]`));
  }

  ({ page } = await open('training', 1280));
  const training = await page.evaluate(() => {
    const el = document.querySelector('attention-training');
    return {
      caption: el.shadowRoot.querySelector('.maps ~ .legend .caption, .legend + .caption, .caption')?.textContent,
      all: [...el.shadowRoot.querySelectorAll('.caption')].map((c) => c.textContent).join(' | '),
      maps: el.maps,
    };
  });
  await page.close();
  // The reverse task's maps: some query attends to a later key (upper-right triangle), so the
  // words "Not causal" are true of what is drawn.
  const later = training.maps.some((layer) =>
    layer.some((head) => head.some((row, i) => row.some((w, j) => j > i && w > 0.01))),
  );
  assert.ok(later, 'the premise: a later key is attended');
  assert.match(
    training.all,
    /Not causal: every query sees every key, later ones too \(bidirectional, as an encoder\)\./,
  );
  assert.match(training.all, /Layers, heads and positions count from 0\./);

  ({ page } = await open('positional-rope', 1280));
  const rope = await page.evaluate(() => {
    const root = document.querySelector('positional-encoding').shadowRoot;
    const tips = (kind) =>
      [...root.querySelectorAll(`svg polygon.arrowhead.${kind}`)].map((p) =>
        p.getAttribute('points').split(' ')[0].split(',').map(Number),
      );
    const labels = (kind) =>
      [...root.querySelectorAll('svg text')].map((t) => t.textContent).filter((t) => t.startsWith(kind));
    return {
      q: tips('q'),
      k: tips('k'),
      qLabels: labels('q'),
      kLabels: labels('k'),
      caption: root.querySelector('figure .caption').textContent,
    };
  });
  await page.close();
  // float64: q = (1, 0.5) and k = (0.3, 1) turned by p rad, drawn at 90 px per |longest| (y up).
  const rotate = ([x, y], a) => [x * Math.cos(a) - y * Math.sin(a), x * Math.sin(a) + y * Math.cos(a)];
  const longest = Math.max(Math.hypot(1, 0.5), Math.hypot(0.3, 1));
  for (const [name, v] of [
    ['q', [1, 0.5]],
    ['k', [0.3, 1]],
  ])
    for (let p = 0; p < 8; p++) {
      const [x, y] = rotate(v, p);
      const [tx, ty] = rope[name][p];
      assert.ok(
        Math.abs(tx - (90 * x) / longest) < 0.01 && Math.abs(ty + (90 * y) / longest) < 0.01,
        `${name} at ${p}: ${tx}, ${ty}`,
      );
    }
  assert.deepEqual(rope.qLabels, ['q0', 'q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7']);
  assert.deepEqual(rope.kLabels, ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']);
  assert.match(
    rope.caption,
    /^Solid arrows q0 … q7: one query vector, q = \(1, 0\.5\) before rotation, rotated by RoPE to query positions 0 to 7 \(q_m is q at position m\)\. Dashed arrows k0 … k7: one key vector, k = \(0\.3, 1\) before rotation, .* These are the q_m and k_n of the score table q_m · k_n\./,
  );
});

test('on paper no live-only hint (hover, click, tap, press, drag) is printed; on screen a hint says "click or tap", and steps’ mask controls stay off paper', async () => {
  const pages = [
    ['steps', 'attention-steps'],
    ['flash', 'attention-flash'],
    ['matrix', 'attention-matrix'],
    ['heatmap-grid', 'attention-heatmap'],
    ['positional-sinusoidal', 'positional-encoding'],
    ['positional-rope', 'positional-encoding'],
    ['pruning', 'token-pruning'],
    ['sentiment', 'attention-sentiment'],
  ];
  const live = /\b(hover|click|tap|press|drag)\b/i;
  for (const [name, tag] of pages) {
    const { page } = await open(name, 1280);
    const screen = await visibleText(page, tag);
    for (const hint of screen.match(/[^.;(]*\b(hover|click|press)\b[^.;)]*/gi) ?? [])
      assert.match(hint, /\b(or tap|or focus)\b/i, `${name} on screen: "${hint}"`);
    await page.emulateMedia({ media: 'print' });
    const paper = await visibleText(page, tag);
    assert.doesNotMatch(
      paper,
      live,
      `${name} on paper: ${paper.match(new RegExp(`.{0,60}${live.source}.{0,40}`, 'i'))?.[0]}`,
    );
    if (name === 'steps') {
      assert.doesNotMatch(paper, /Mask preset|padding: keys kept/);
      assert.match(paper, /mask: none \(M = 0 everywhere\): every query may attend to every key/);
    }
    if (name === 'positional-sinusoidal') {
      // the graph view too
      await page.emulateMedia({ media: 'screen' });
      await page.evaluate(() => document.querySelector('positional-encoding').setAttribute('kind', 'laplacian'));
      await page.waitForFunction(() =>
        document.querySelector('positional-encoding').shadowRoot.querySelector('svg circle'),
      );
      assert.match(await visibleText(page, tag), /Click or tap a node, then another/);
      await page.emulateMedia({ media: 'print' });
      assert.doesNotMatch(await visibleText(page, tag), live);
    }
    await page.close();
  }
});

test('the course elements count from 0 and say so: matrix numbers, steps and flash, sentiment, training, pruning’s repeated tokens', async () => {
  let { page } = await open('steps', 1280);
  const steps = await page.evaluate(() => {
    const m = document
      .querySelector('attention-steps')
      .shadowRoot.querySelector('attention-matrix[data-name="weights"]').shadowRoot;
    return {
      rows: [...m.querySelectorAll('th[role=rowheader]')].map((t) => t.textContent),
      cols: [...m.querySelectorAll('th[role=columnheader]')].map((t) => t.textContent),
      axis: m.querySelector('.axis').textContent,
    };
  });
  await page.close();
  assert.deepEqual(steps.rows, ['0', '1']);
  assert.deepEqual(steps.cols, ['0', '1']);
  assert.equal(steps.axis, 'query position ↓   key position →   (counted from 0)');

  ({ page } = await open('pruning', 1280));
  const pruning = await page.evaluate(async () => {
    const el = document.querySelector('token-pruning');
    el.setAttribute('tokens', 'a,rose,is,a,rose');
    await new Promise((done) => setTimeout(done, 300));
    const m = el.shadowRoot.querySelector('attention-matrix[data-name="G"]').shadowRoot;
    return {
      rows: [...m.querySelectorAll('th[role=rowheader]')].map((t) => t.textContent),
      caption: m.querySelector('.caption').textContent,
    };
  });
  await page.close();
  assert.deepEqual(pruning.rows, ['a·0', 'rose·1', 'is', 'a·3', 'rose·4']);
  assert.match(
    pruning.caption,
    /A repeated token carries its position, counted from 0: a·0 is the “a” at position 0\./,
  );

  ({ page } = await open('training', 1280));
  const training = await page.evaluate(() => {
    const root = document.querySelector('attention-training').shadowRoot;
    return {
      figures: [...root.querySelectorAll('.maps figcaption')].map((f) => f.textContent),
      label: root.querySelector('.maps canvas').getAttribute('aria-label'),
      description: root.querySelector('.description').textContent,
    };
  });
  await page.close();
  assert.match(training.figures[0], /^Layer 0: /);
  assert.match(training.label, /head 0: /);
  assert.match(
    training.description,
    /position t must look at position L − 1 − t \(positions counted from 0, L of them\)/,
  );
});

// The boxes of the words inside `selector` (in element `tag`'s shadow tree), and the pairs of
// them that overlap by more than half a pixel each way.
const overlappingWords = (page, tag, selector) =>
  page.evaluate(
    ([tag, selector]) => {
      const boxes = [...document.querySelector(tag).shadowRoot.querySelectorAll(selector)].map((t) => ({
        text: t.textContent,
        r: t.getBoundingClientRect(),
      }));
      const pairs = [];
      for (let a = 0; a < boxes.length; a++)
        for (let b = a + 1; b < boxes.length; b++) {
          const [p, q] = [boxes[a].r, boxes[b].r];
          const x = Math.min(p.right, q.right) - Math.max(p.left, q.left);
          const y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
          if (x > 0.5 && y > 0.5) pairs.push(`${boxes[a].text} on ${boxes[b].text}`);
        }
      return { count: boxes.length, pairs };
    },
    [tag, selector],
  );

test("RoPE's wheel: no two of its words overlap at 1280 or 390 px; its axes name the quantity (feature 2i, 2i + 1) and the pair once beside; tick numbers sit at the vectors' own units, outside the frame, under no arrow or leader", async () => {
  const longest = Math.max(Math.hypot(1, 0.5), Math.hypot(0.3, 1));
  for (const width of [1280, 390]) {
    const { page } = await open('positional-rope', width);
    const words = await overlappingWords(page, 'positional-encoding', 'svg text');
    assert.ok(words.count >= 16 + 10 + 2, `${width}: the 16 labels, 10 ticks and 2 axis titles (${words.count})`);
    assert.deepEqual(words.pairs, [], `${width} px`);
    const axes = await page.evaluate(() => {
      const root = document.querySelector('positional-encoding').shadowRoot;
      const svg = root.querySelector('svg');
      const ticks = (axis) =>
        [...svg.querySelectorAll(`text.tick.${axis}`)].map((t) => [
          t.textContent,
          Number(t.getAttribute(axis === 'x' ? 'x' : 'y')),
        ]);
      const box = (el) => {
        const r = el.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, text: el.textContent || el.tagName };
      };
      return {
        titles: [...svg.querySelectorAll('text.axis-title')].map((t) => t.textContent),
        pair: root.querySelector('figure .pair')?.textContent ?? '',
        x: ticks('x'),
        y: ticks('y'),
        words: [...svg.querySelectorAll('text.tick, text.axis-title')].map(box),
        // the arrows' shafts and heads, the labels' leaders, the labels
        marks: [...svg.querySelectorAll('line.q, line.k, polygon, line.leader, text.label')].map(box),
        frame: box(svg.querySelector('rect.frame')),
        box: svg.getBoundingClientRect().right,
        host: document.querySelector('positional-encoding').getBoundingClientRect().right,
      };
    });
    await page.close();
    assert.deepEqual(axes.titles, ['x: feature 2i →', '↑ y: feature 2i + 1']);
    assert.equal(axes.pair, 'The pair shown: i = 0, features 0 (x) and 1 (y).');
    assert.ok(axes.box <= axes.host + 0.5, `${width}: the wheel fits (${axes.box} > ${axes.host})`);
    assert.equal(axes.marks.length, 16 + 16 + 16 + 16, 'the premise: 16 shafts, heads, leaders and labels');
    for (const w of axes.words) {
      for (const m of axes.marks) {
        const x = Math.min(w.right, m.right) - Math.max(w.left, m.left);
        const y = Math.min(w.bottom, m.bottom) - Math.max(w.top, m.top);
        assert.ok(!(x > 0.5 && y > 0.5), `${width}: "${w.text}" under ${m.text}`);
      }
      // outside the frame: wholly below it or left of it
      const f = axes.frame;
      assert.ok(w.top >= f.bottom - 0.5 || w.right <= f.left + 0.5 || w.bottom <= f.top + 0.5, `${width}: "${w.text}"`);
    }
    assert.deepEqual(
      axes.x.map(([t]) => t),
      ['−1', '−0.5', '0', '0.5', '1'],
    );
    // 90 px is the longest vector's length: a tick at v sits at 90·v/longest (y up: −).
    for (const [text, at] of axes.x) {
      const v = printedNumber(text);
      assert.ok(Math.abs(at - (90 * v) / longest) < 1e-3, `x tick ${text} at ${at}`);
    }
    for (const [text, at] of axes.y) {
      const v = printedNumber(text);
      assert.ok(Math.abs(at - 4 + (90 * v) / longest) < 1e-3, `y tick ${text} at ${at}`);
    }
  }
});

test('no readout suggests what did not happen: flash\'s rescale reads "—" until a second block (m_old = −∞), then e^(m_old − m); steps\' padding and window numbers say when M is not theirs', async () => {
  let { page } = await open('flash', 1280);
  const data = await page.evaluate(() => document.querySelector('attention-flash').data);
  const state = (step) =>
    page.evaluate(async (t) => {
      const el = document.querySelector('attention-flash');
      el.step = t;
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const m = el.shadowRoot.querySelector('attention-matrix[data-name="state"]').shadowRoot;
      return {
        rescale: [...m.querySelectorAll('td[data-col="1"]')].map((td) => td.textContent),
        max: [...m.querySelectorAll('td[data-col="0"]')].map((td) => td.textContent),
        caption: m.querySelector('.caption')?.textContent ?? '',
      };
    }, step);
  const start = await state(0);
  assert.deepEqual(start.rescale, ['—', '—']);
  assert.match(start.caption, /rescale —: no block read yet, nothing to rescale/);
  const first = await state(1);
  assert.deepEqual(first.rescale, ['—', '—']);
  assert.match(first.caption, /first block, nothing to rescale \(m_old = −∞/);
  // Block 2 (keys 2 and 3, blocks of 2): e^(m_old − m), m the running max of q·kᵀ/√d, float64.
  const scale = 1 / Math.sqrt(data.q[0].length);
  const s = data.q.map((qi) => data.k.map((kj) => qi.reduce((a, x, t) => a + x * kj[t], 0) * scale));
  const second = await state(2);
  s.forEach((row, i) => {
    const [mOld, m] = [Math.max(...row.slice(0, 2)), Math.max(...row.slice(0, 4))];
    assert.equal(second.rescale[i], Math.exp(mOld - m).toFixed(4), `row ${i}`);
  });
  await page.close();

  ({ page } = await open('steps', 1280));
  const controls = () =>
    page.evaluate(() => {
      const root = document.querySelector('attention-steps').shadowRoot;
      return {
        shown: [...root.querySelectorAll('.controls label')]
          .filter((l) => l.checkVisibility())
          .map((l) => l.firstChild.textContent.trim()),
        text: root.querySelector('.controls').textContent,
        preset: root.querySelector('.controls select').value,
        note: root.querySelector('[data-role=mask-note]').textContent,
      };
    });
  // Example 2's M is all zeros, from no preset: the select says "none", no preset's number is
  // shown, and the note says the mask is none.
  let c = await controls();
  assert.equal(c.preset, 'none');
  assert.deepEqual(c.shown, ['Mask preset']);
  assert.doesNotMatch(c.text, /not applied/);
  assert.equal(c.note, 'mask: none (M = 0 everywhere): every query may attend to every key.');
  // Padding chosen: its number shows, the window's does not.
  await page.locator('attention-steps').locator('select').selectOption('key-length');
  const keys = page.locator('attention-steps').locator('input[aria-label^="padding: keys kept"]');
  await keys.fill('1');
  await keys.dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('attention-steps').stages.M.data[1] === -Infinity);
  c = await controls();
  assert.equal(c.preset, 'key-length');
  assert.deepEqual(c.shown, ['Mask preset', 'padding: keys kept']);
  // A cell edited by hand: M is no preset's, so neither number shows.
  await page
    .locator('attention-steps')
    .locator('attention-matrix[data-name="M"]')
    .locator('td[data-row="0"][data-col="1"]')
    .focus();
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('attention-steps').stages.M.data[1] === 0);
  c = await controls();
  assert.equal(c.preset, '');
  assert.deepEqual(c.shown, ['Mask preset']);
  await page.close();
});

// Matrix `name` in element `tag`: per cell [row, col, value, hatched?, background colour], and
// the text of its masked-cells key ('' when none).
const maskedCells = (page, tag, name) =>
  page.evaluate(
    ([tag, name]) => {
      const m = document
        .querySelector(tag)
        .shadowRoot.querySelector(`attention-matrix[data-name="${name}"]`).shadowRoot;
      return {
        cells: [...m.querySelectorAll('td')].map((td) => {
          const style = getComputedStyle(td);
          return [
            Number(td.dataset.row),
            Number(td.dataset.col),
            Number(td.dataset.value),
            style.backgroundImage.startsWith('repeating-linear-gradient'),
            style.backgroundColor,
          ];
        }),
        key: m.querySelector('.masked-key')?.textContent ?? '',
      };
    },
    [tag, name],
  );

test('masked cells do not look like small weights: pruning hatches a dropped key’s column (its own cell excepted), steps the pairs a causal M blocks; both say so in a key', async () => {
  let { page } = await open('pruning', 1280);
  const keep = await page.evaluate(() => document.querySelector('token-pruning').keep);
  assert.ok(keep.includes(0) && keep.includes(1), 'the premise: a token is dropped');
  const pruning = await maskedCells(page, 'token-pruning', 'weights');
  await page.close();
  assert.equal(pruning.key, 'hatched grey = dropped key: weight 0 (blocked, so not coloured by the scale)');
  for (const [i, j, value, hatched, colour] of pruning.cells) {
    const dropped = i !== j && keep[j] === 0;
    assert.equal(hatched, dropped, `Ã[${i}][${j}] hatched`);
    if (dropped) assert.equal(value, 0);
    // a kept cell keeps its colour-map background; a hatched one has none of its own
    assert.equal(colour === 'rgba(0, 0, 0, 0)', dropped, `Ã[${i}][${j}]: ${colour}`);
  }

  ({ page } = await open('steps', 1280));
  await page.locator('attention-steps').locator('select').selectOption('causal-top-left');
  await page.waitForFunction(() => document.querySelector('attention-steps').stages.M.data[1] === -Infinity);
  for (const [name, key] of [
    ['weights', 'hatched grey = masked (M = −∞): weight 0 (blocked, so not coloured by the scale)'],
    ['masked', 'hatched grey = masked: M = −∞ (blocked, so not coloured by the scale)'],
  ]) {
    const steps = await maskedCells(page, 'attention-steps', name);
    assert.equal(steps.key, key);
    // causal, top-left: query i sees keys j ≤ i
    for (const [i, j, value, hatched] of steps.cells) {
      assert.equal(hatched, j > i, `${name}[${i}][${j}]`);
      if (j > i) assert.equal(value, name === 'weights' ? 0 : -Infinity);
    }
  }
  await page.close();
});

test('nothing cut at 390 px: each of the sinusoidal formulas whole on one line inside the element; the sentiment sentence shown whole in its field', async () => {
  let { page } = await open('positional-sinusoidal', 390);
  const formulas = await page.evaluate(() => {
    const el = document.querySelector('positional-encoding');
    const edge = el.getBoundingClientRect().right;
    return [...el.shadowRoot.querySelectorAll('.note .formula')].map((f) => [
      f.textContent,
      f.getClientRects().length,
      f.getBoundingClientRect().right <= edge + 0.5,
    ]);
  });
  await page.close();
  assert.deepEqual(formulas, [
    ['PE[p, 2i] = sin(p·ωᵢ)', 1, true],
    ['PE[p, 2i+1] = cos(p·ωᵢ)', 1, true],
    ['ωᵢ = base^(−2i/d_model)', 1, true],
    ['PE_p · PE_p′ = Σᵢ cos((p − p′)·ωᵢ)', 1, true],
  ]);

  ({ page } = await open('sentiment', 390));
  const field = await page.evaluate(() => {
    const el = document.querySelector('attention-sentiment');
    const f = el.shadowRoot.querySelector('[part=input]');
    return {
      value: f.value,
      fits: f.scrollWidth <= f.clientWidth + 1 && f.scrollHeight <= f.clientHeight + 1,
      inside: f.getBoundingClientRect().right <= el.getBoundingClientRect().right + 0.5,
    };
  });
  await page.close();
  assert.ok(field.value.length > 40, `the premise: a sentence longer than the field is wide (${field.value})`);
  assert.ok(field.fits && field.inside, JSON.stringify(field));
});

test("sentiment states its maps' 0-to-largest scale once, before both tables, for both", async () => {
  const { page } = await open('sentiment', 1280);
  const r = await page.evaluate(() => {
    const stage = [...document.querySelector('attention-sentiment').shadowRoot.querySelectorAll('ol.pipeline > li')][4];
    const legends = [...stage.querySelectorAll('.legend')];
    const tables = [...stage.querySelectorAll('table')];
    const before = (a, b) => Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    return {
      count: legends.length,
      tables: tables.length,
      first: legends.length > 0 && tables.every((t) => before(legends[0], t)),
      title: legends[0]?.querySelector('.title').textContent ?? '',
    };
  });
  await page.close();
  assert.equal(r.tables, 2, 'the [CLS] table and the head map');
  assert.equal(r.count, 1);
  assert.ok(r.first, 'the legend comes before both tables');
  assert.match(r.title, /^both tables below: cell shade = attention weight, on a scale from 0 to \d\.\d\d/);
});

test('on paper no instruction to interact in training (what its “Keep training” button does, without the button), the model views, the explainer or the lines view; on screen the hints are still there', async () => {
  const live = /\b(hover|click|tap|press|drag|keep training)\b/i;
  for (const [name, tag, hint] of [
    ['training', 'attention-training', /The “Keep training” button trains on past the target\./],
    ['model-model', 'attention-model', /Hover a map to read a cell/],
    ['explainer', 'attention-explainer', /Token to follow \(click, or arrow keys\)/],
    ['heatmap-lines', 'attention-heatmap', /Click, tap or focus another token to select it/],
  ]) {
    const { page } = await open(name, 1280);
    assert.match(await visibleText(page, tag), hint, `${name} on screen`);
    await page.emulateMedia({ media: 'print' });
    const paper = await visibleText(page, tag);
    await page.close();
    assert.doesNotMatch(
      paper,
      live,
      `${name} on paper: ${paper.match(new RegExp(`.{0,60}${live.source}.{0,40}`, 'i'))?.[0]}`,
    );
    if (name === 'training') assert.match(paper, /Reached the target, \d+% held-out accuracy, at step \d+: paused\./);
  }
});

test("flash's running output is “out”, never an O that reads as 0; the m/ℓ history's columns say what they are; its memory sentence says what its bytes are compared with", async () => {
  const { page } = await open('flash', 1280);
  await page.evaluate(() => {
    document.querySelector('attention-flash').step = 1;
  });
  await page.waitForFunction(() =>
    document.querySelector('attention-flash').shadowRoot.querySelector('attention-matrix[data-name="block-scores"]'),
  );
  const text = await visibleText(page, 'attention-flash');
  const r = await page.evaluate(() => {
    const el = document.querySelector('attention-flash');
    const root = el.shadowRoot;
    return {
      data: el.data,
      formula: root.querySelector('.formula').textContent,
      history: root.querySelector('attention-matrix[data-name="history"]').getAttribute('col-title'),
      historyText: root.querySelector('attention-matrix[data-name="history"]').shadowRoot.textContent,
      memory: root.querySelector('.memory').textContent,
    };
  });
  await page.close();
  assert.doesNotMatch(text, /(^|[^\p{L}\p{N}_])O([^\p{L}\p{N}_]|$)/u, text.match(/.{0,40}\bO\b.{0,40}/)?.[0]);
  assert.match(r.formula, /out ← out·e\^\(m_old−m\) \+ Σ e\^\(s−m\)·v/);
  assert.match(r.formula, /output = out \/ ℓ/);
  assert.equal(r.history, 'per query row: m (running max), ℓ (running sum)');
  assert.match(r.historyText, /step ↓ +per query row: m \(running max\), ℓ \(running sum\) →/);
  // The bytes: the score matrix lq × lk floats; the fused path per row m, ℓ, out (dv) and one
  // block of scores (2 keys), which do not grow with lk.
  const [lq, lk, dv, block] = [r.data.q.length, r.data.k.length, r.data.v[0].length, 2];
  const naive = lq * lk * 4,
    kept = lq * (2 + dv + block) * 4;
  assert.equal(naive, kept, 'the premise: at this size the two are equal');
  // Each factor named: rows, numbers per row (each term's meaning), bytes per float32.
  assert.ok(r.memory.startsWith('Memory (4 B = one float32 number): '), r.memory);
  assert.ok(r.memory.includes(`, ${lq} query rows × ${lk} keys × 4 B = ${naive} bytes;`), r.memory);
  assert.ok(
    r.memory.includes(
      `per query row, m and ℓ (2 numbers), out (${dv} numbers, the width of v) and one block of scores (${block} numbers, the keys in a block): ${lq} query rows × (2 + ${dv} + ${block}) numbers × 4 B = ${kept} bytes.`,
    ),
    r.memory,
  );
  assert.ok(
    r.memory.includes(
      `Here that is the same as the score matrix: per query row the matrix holds one score per key (${lk}), the fused path 2 + ${dv} + ${block} = ${2 + dv + block} numbers whatever the number of keys, so it keeps less once there are more than ${2 + dv + block} keys.`,
    ),
    r.memory,
  );
});

test("training's canvases write every word across (none rotated), at 11 px or more as shown, at 1280 and 390 px; its pause says what “Keep training” does", async () => {
  for (const width of [1280, 390]) {
    const { page } = await open('training', width);
    // Every fillText from now on: its text, the font's px, the transform's scale and rotation.
    await page.context().addInitScript(() => {
      const calls = (globalThis.__fillTexts = []);
      const fill = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
        const t = this.getTransform();
        calls.push({ canvas: this.canvas, text, px: Number(this.font.match(/([\d.]+)px/)[1]), a: t.a, b: t.b });
        return fill.call(this, text, ...rest);
      };
    });
    await page.reload();
    await settled(page);
    const r = await page.evaluate(() => {
      const el = document.querySelector('attention-training');
      const canvases = [...el.shadowRoot.querySelectorAll('canvas')];
      return {
        canvases: canvases.length,
        stats: el.shadowRoot.querySelector('.stats').textContent,
        words: globalThis.__fillTexts
          .filter((c) => canvases.includes(c.canvas))
          .map(({ canvas, text, px, a, b }) => ({
            text,
            rotated: Math.abs(b) > 1e-9,
            shown: (px * Math.hypot(a, b) * canvas.getBoundingClientRect().width) / canvas.width,
          })),
      };
    });
    await page.close();
    assert.ok(r.canvases >= 3, 'the premise: the loss curve and two layers of maps');
    assert.ok(
      r.words.some((w) => w.text === '↑ training loss (nats)'),
      `${width}: the loss axis's title`,
    );
    assert.ok(
      r.words.some((w) => w.text === 'head 1'),
      `${width}: the maps drawn`,
    );
    for (const w of r.words) {
      assert.equal(w.rotated, false, `${width}: "${w.text}" rotated`);
      assert.ok(w.shown >= 11 - 1e-6, `${width}: "${w.text}" at ${w.shown.toFixed(2)} px`);
    }
    assert.match(
      r.stats,
      /Reached the target, 100% held-out accuracy, at step \d+: paused\. The “Keep training” button trains on past the target\./,
    );
  }
});

test("sentiment: [CLS]'s own vector is the vectors table's first row and said not to be a table row (the token rows are the table's); at 390 px the [CLS] table turns (a row per key) and shows whole, the head map scrolls with a hint", async () => {
  for (const width of [1280, 390]) {
    const { page } = await open('sentiment', width);
    const r = await page.evaluate(() => {
      const el = document.querySelector('attention-sentiment');
      const root = el.shadowRoot;
      const p = el.prediction;
      const ids = p.tokens.map((t) => t.id);
      const { cls, tokens } = el.classifier.vectors(ids.slice(1));
      const vectors = root.querySelector('table.vectors');
      const clsTable = root.querySelector('[role=region][aria-label^="What the [CLS] query"] table');
      const mapRegion = root.querySelector('[role=region][aria-label^="Attention matrix of head"]');
      const layer = p.attention.length - 1;
      return {
        indices: root.querySelector('ol.pipeline > li:nth-child(3) .stage-note')?.textContent ?? '',
        caption: vectors.closest('.scroll-wrap').querySelector('.table-caption').textContent,
        bodies: [...vectors.tBodies].map((b) =>
          [...b.rows].map((tr) => [tr.cells[0].textContent, ...[...tr.cells].slice(1).map((c) => c.textContent)]),
        ),
        cls: Array.from(cls.slice(0, 4)),
        rows: tokens.map((v) => Array.from(v.slice(0, 4))),
        orient: clsTable.dataset.orient,
        clsCells: [...clsTable.tBodies[0].rows].map((tr) => [...tr.cells].slice(1).map((td) => Number(td.title))),
        clsHeader: clsTable.tHead.rows[0].cells[0].textContent,
        clsFits: clsTable.getBoundingClientRect().right <= el.getBoundingClientRect().right + 0.5,
        heads: p.attention[layer].map((rows) => rows[0]),
        mapScrolls: mapRegion.scrollWidth > mapRegion.clientWidth + 1,
        mapHint: mapRegion.previousElementSibling.checkVisibility() ? mapRegion.previousElementSibling.textContent : '',
        mapEdge: getComputedStyle(mapRegion).borderRightStyle,
        // The words above the [CLS] table as a reader sees them (either orientation).
        clsWords: clsTable.closest('.scroll-wrap')?.innerText ?? '',
      };
    });
    await page.close();
    const fixed = (v) => v.map((x) => x.toFixed(3).replace('-', '−'));
    assert.equal(r.bodies.length, 2, `${width}: [CLS] in a body of its own`);
    assert.deepEqual(r.bodies[0], [['[CLS] (own vector)', ...fixed(r.cls)]]);
    assert.equal(r.bodies[1].length, r.rows.length);
    r.bodies[1].forEach((row, i) => assert.deepEqual(row.slice(1), fixed(r.rows[i]), `token row ${i}`));
    assert.match(
      r.caption,
      /^The first row: the classifier's own learned \[CLS\] vector \(not a row of the embedding table\)\. The others: the row each token's index picks of the 6,719 × 64 embedding table\./,
    );
    assert.match(
      r.indices,
      /its index picks no row of the embedding table: the classifier reads its own learned \[CLS\] vector \(the first row in stage 4\)/,
    );
    assert.doesNotMatch(r.indices + r.caption, /Each index picks a row/);
    // The [CLS] table: [head][key] at 1280, turned [key][head] at 390, shown whole.
    const cells =
      r.orient === 'keys-as-rows' ? r.clsCells[0].map((_, h) => r.clsCells.map((row) => row[h])) : r.clsCells;
    assert.equal(r.orient, width === 390 ? 'keys-as-rows' : 'keys-as-columns');
    assert.equal(r.clsHeader, width === 390 ? 'key ↓ head →' : 'head ↓ key →');
    assert.ok(r.clsFits, `${width}: the [CLS] table shown whole`);
    // Its caption names the [CLS] query without a table row (the turned table's first row is a key).
    assert.match(
      r.clsWords,
      /What the \[CLS\] query \(row 0 of each head's map\) attends to in layer 1: a cell is one head's weight on one key/,
    );
    assert.doesNotMatch(r.clsWords, /\(the first row\)/);
    cells.forEach((row, h) =>
      row.forEach((w, j) => assert.ok(Math.abs(w - r.heads[h][j]) < 1e-6, `head ${h} key ${j}`)),
    );
    // The head map: whole at 1280; at 390 it scrolls, says so above and has a dashed right edge.
    assert.equal(r.mapScrolls, width === 390);
    if (width === 390) {
      assert.match(r.mapHint, /^↔ Attention matrix of head 0 in layer 1: wider than this page; scroll sideways/);
      assert.equal(r.mapEdge, 'dashed');
    }
  }
});

test("sinusoidal: PE's caption says why its right side is striped (higher features turn slower: sines near 0, cosines near 1), from the first feature where it holds", async () => {
  const { page } = await open('positional-sinusoidal', 1280);
  const r = await page.evaluate(() => {
    const el = document.querySelector('positional-encoding');
    const figure = el.shadowRoot.querySelector('figure');
    return {
      state: el.toJSON?.() ?? null,
      caption: figure.querySelector('.caption')?.textContent ?? figure.textContent,
      label: figure.querySelector('figcaption').textContent,
    };
  });
  await page.close();
  const [positions, d] = r.label
    .match(/\[(\d+) × (\d+)\]/)
    .slice(1)
    .map(Number);
  // float64: PE[p, 2i] = sin(p·10000^(−2i/d)); the first pair k after which every sine stays within ±0.5
  const sine = (p, i) => Math.sin(p * 10000 ** ((-2 * i) / d));
  const slow = (i) => Array.from({ length: positions }, (_, p) => Math.abs(sine(p, i)) <= 0.5).every(Boolean);
  let k = d / 2;
  while (k > 0 && slow(k - 1)) k--;
  assert.ok(k > 0 && k < d / 2, `the premise: the right side is striped (from pair ${k} of ${d / 2})`);
  // and the bounds those columns keep, in float64: the largest |sine|, the smallest cosine
  let maxSine = 0,
    minCosine = 1;
  for (let p = 0; p < positions; p++)
    for (let i = k; i < d / 2; i++) {
      maxSine = Math.max(maxSine, Math.abs(sine(p, i)));
      minCosine = Math.min(minCosine, Math.cos(p * 10000 ** ((-2 * i) / d)));
    }
  assert.match(
    r.caption,
    new RegExp(
      `Higher features turn at lower frequencies \\(ωᵢ = base\\^\\(−2i/d_model\\) shrinks as i grows\\): from feature ${2 * k} on, over these ${positions} positions the sines \\(even features\\) stay within ±${maxSine.toFixed(2)} of 0 \\(pale\\) and the cosines \\(odd features\\) at ${minCosine.toFixed(2)} or more \\(red\\), hence the stripes\\.`,
    ),
  );
});
