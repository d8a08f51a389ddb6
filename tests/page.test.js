// The page in real headless Chromium (Debian's /usr/bin/chromium driven by playwright-core),
// served over http: it loads, runs the four worked examples, and shows the right numbers.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';
import { referenceAttention } from './helpers/reference.js';
import { assertClose } from './helpers/assert.js';

// Inputs typed from ../shared/worked-examples.md (independent of web/examples-data.js).
const W_Q = [
  [-0.35, 0.51, 0.5],
  [0.36, -0.47, -0.29],
  [-0.51, -0.14, -0.56],
];
const W_K = [
  [-0.49, -0.68, 0.18],
  [-0.44, -0.46, 0.18],
  [0.07, -0.1, 0.44],
];
const W_V = [
  [-0.41, 0.39, -0.65],
  [-0.4, -0.07, -0.34],
  [-0.55, -0.13, -0.29],
];
const W_O = [
  [-0.36, -0.08, 0.32],
  [0.27, 0.05, 0.15],
  [-0.05, -0.28, 0.05],
];
const X1 = [[-0.1, 0.1, 0.3]];
const X2 = [
  [-0.1, 0.1, 0.3],
  [0.4, -1.1, -0.3],
];
const C = [
  [-0.6, 0.3, -0.4],
  [0.5, 0.9, -0.5],
];
const f32 = (rows) => rows.map((r) => r.map(Math.fround));
const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, x, p) => s + x * b[p][j], 0)));
const asTensor = (rows) => ({ data: Float64Array.from(rows.flat()), shape: [rows.length, rows[0].length] });
const toRows = (t) =>
  Array.from({ length: t.shape[0] }, (_, i) => Array.from(t.data.slice(i * t.shape[1], (i + 1) * t.shape[1])));

// Float64 pipeline of one example: inputs rounded to float32 as the page passes them.
function expectedExample(X, queriesFrom, mask) {
  const Q = matmul(f32(queriesFrom), f32(W_Q)),
    K = matmul(f32(X), f32(W_K)),
    V = matmul(f32(X), f32(W_V));
  const options = mask ? { mask: { data: Float64Array.from(mask.flat()), shape: [2, 2] } } : {};
  const ref = referenceAttention(asTensor(Q), asTensor(K), asTensor(V), options);
  return {
    Q,
    K,
    V,
    scaled: toRows(ref.scaledScores),
    weights: toRows(ref.weights),
    A: toRows(ref.output),
    Y: matmul(toRows(ref.output), f32(W_O)),
  };
}

const EXAMPLES = {
  ex1: {
    expected: expectedExample(X1, X1),
    slides: {
      Q: [[-0.08, -0.14, -0.24]],
      K: [[0.02, -0.01, 0.13]],
      V: [[-0.16, -0.08, -0.05]],
      scaled: [[-0.0198]],
      weights: [[1]],
    },
  },
  ex2: {
    expected: expectedExample(X2, X2),
    slides: {
      scaled: [
        [-0.019, 0.002],
        [0.043, -0.046],
      ],
      weights: [
        [0.49, 0.51],
        [0.52, 0.48],
      ],
      A: [
        [0.14, 0.09, 0.07],
        [0.12, 0.08, 0.06],
      ],
      Y: [
        [-0.029, -0.028, 0.065],
        [-0.025, -0.025, 0.058],
      ],
    },
  },
  ex3: {
    expected: expectedExample(X2, X2, [
      [0, -Infinity],
      [0, 0],
    ]),
    slides: {
      weights: [
        [1, 0],
        [0.52, 0.48],
      ],
      A: [
        [-0.16, -0.08, -0.05],
        [0.12, 0.08, 0.06],
      ],
      Y: [
        [0.03, 0.02, -0.06],
        [-0.02, -0.02, 0.05],
      ],
    },
  },
  ex4: {
    expected: expectedExample(X2, C),
    slides: {
      Q: [
        [0.52, -0.39, -0.16],
        [0.4, -0.09, 0.27],
      ],
      weights: [
        [0.49, 0.51],
        [0.51, 0.49],
      ],
      A: [
        [0.15, 0.1, 0.07],
        [0.13, 0.09, 0.07],
      ],
      Y: [
        [-0.0305, -0.0296, 0.0677],
        [-0.0281, -0.0277, 0.063],
      ],
    },
  },
};

const ARTIFACTS = new URL('./artifacts/', import.meta.url);
let server, url, browser, page;
const consoleErrors = [];

before(async () => {
  ({ server, url } = await startServer({ port: 0 }));
  browser = await launchChromium(['--disable-quic', '--disable-sync']);
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await page.goto(`${url}web/`);
  await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  await page.waitForFunction(() => ['ex1', 'ex2', 'ex3', 'ex4'].every((id) => document.getElementById(id)?.stages));
});

after(async () => {
  await browser?.close();
  server?.close();
});

// Reads a matrix the page shows: its shape and its cells' exact values.
// A matrix of the demos (figure.matrix[data-name]) or, for '<example id>-<stage>' such as
// 'ex2-weights', a stage of that example's <attention-steps>.
async function shown(name) {
  if (await page.$(`figure.matrix[data-name="${name}"]`)) {
    return page.$eval(`figure.matrix[data-name="${name}"]`, (fig) => ({
      shape: fig.dataset.shape.split(',').map(Number),
      rows: Array.from(fig.querySelectorAll('tr'), (tr) => Array.from(tr.cells, (td) => Number(td.dataset.value))),
    }));
  }
  const [id, stage] = name.split('-');
  return page.evaluate(
    ([id, stage]) => {
      const m = document.getElementById(id).shadowRoot.querySelector(`attention-matrix[data-name="${stage}"]`);
      const cells = Array.from(m.shadowRoot.querySelectorAll('td'), (td) => Number(td.dataset.value));
      const [rows, cols] = m.value.shape;
      return {
        shape: [rows, cols],
        rows: Array.from({ length: rows }, (_, i) => cells.slice(i * cols, (i + 1) * cols)),
      };
    },
    [id, stage],
  );
}

test('the page loads the wasm module with no errors', async () => {
  assert.equal(await page.getAttribute('body', 'data-ready'), 'true', await page.textContent('#status'));
  assert.match(
    await page.textContent('#status'),
    /attention-wasm \d+\.\d+\.\d+ loaded \(wasm-relaxed-simd\)/,
    'Chromium validates relaxed SIMD: the page loads that build',
  );
  assert.deepEqual(consoleErrors, []);
  // npm start serves COOP/COEP/CORP: the page may use SharedArrayBuffer (wasm threads).
  assert.equal(await page.evaluate(() => globalThis.crossOriginIsolated), true);
});

test('the four worked examples show exact values and agree with the slides to their rounding', async () => {
  for (const [id, { expected, slides }] of Object.entries(EXAMPLES)) {
    for (const [stage, rows] of Object.entries(expected)) {
      const got = await shown(`${id}-${stage}`);
      assert.deepEqual(got.shape, [rows.length, rows[0].length], `${id}-${stage} shape`);
      assertClose(got.rows.flat(), rows.flat(), { atol: 2e-6, rtol: 1e-5, label: `${id} ${stage}` });
    }
    for (const [stage, rows] of Object.entries(slides)) {
      // The slides cut each intermediate to 2 decimals (sometimes truncating: -0.247 is
      // printed -0.24) and carry that forward, so they agree to within 0.01.
      const got = await shown(`${id}-${stage}`);
      assertClose(got.rows.flat(), rows.flat(), { atol: 0.01, rtol: 0, label: `${id} ${stage} vs slides` });
    }
  }
  // Example 3's mask: token 1 gives token 2 a weight of exactly 0.
  assert.equal((await shown('ex3-weights')).rows[0][1], 0);
});

test('the positions demo: shuffling keeps outputs without positions and changes them with', async () => {
  const same = () => page.$$eval('#positions [data-role="perm"] tbody tr', (trs) => trs.map((tr) => tr.dataset.same));
  assert.deepEqual(await same(), ['true', 'true', 'true', 'true', 'true', 'true']);
  const deviation = Number(await page.getAttribute('#positions [data-role="deviation"]', 'data-value'));
  assert.ok(deviation < 1e-5, `the measured max deviation without positions is ${deviation}`);
  await page.check('#positions input[name="withPe"]');
  assert.ok(
    Number(await page.getAttribute('#positions [data-role="deviation"]', 'data-value')) > 1e-3,
    'with positions the outputs move',
  );
  const withPe = await same();
  assert.ok(withPe.filter((x) => x === 'false').length >= 4, `with positions: ${withPe}`);
  const size = await page.$eval('#positions canvas', (c) => [c.width, c.height]);
  assert.ok(size[0] > 0 && size[1] > 0);
});

// The matrices an element shows: name → { shape, rows }.
async function elementMatrices(selector) {
  return page.evaluate(
    (selector) =>
      Object.fromEntries(
        [...document.querySelector(selector).shadowRoot.querySelectorAll('attention-matrix')].map((m) => {
          const [rows, cols] = m.value.shape;
          const cells = Array.from(m.shadowRoot.querySelectorAll('td'), (td) => Number(td.dataset.value));
          return [
            m.dataset.name,
            {
              shape: [rows, cols],
              rows: Array.from({ length: rows }, (_, i) => cells.slice(i * cols, (i + 1) * cols)),
            },
          ];
        }),
      ),
    selector,
  );
}

test('the multi-head demo shows one weight matrix per head and their average, rows summing to 1', async () => {
  for (const heads of ['1', '4', '2']) {
    await page.selectOption('#heads select[name="heads"]', heads);
    const matrices = await elementMatrices('#heads-heatmap');
    const names = Object.keys(matrices);
    assert.deepEqual(
      names,
      heads === '1' ? ['head-1'] : [...Array.from({ length: Number(heads) }, (_, h) => `head-${h + 1}`), 'average'],
    );
    for (const w of Object.values(matrices)) {
      assert.deepEqual(w.shape, [6, 6]);
      w.rows.forEach((row) => assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5));
    }
  }
  await page.check('#heads input[name="causal"]');
  const w = (await elementMatrices('#heads-heatmap'))['head-1'];
  w.rows.forEach((row, i) =>
    row.forEach((x, j) => {
      if (j > i) assert.equal(x, 0);
    }),
  );
});

test('the DynamicViT demo: a dropped token gets no weight but its own', async () => {
  await page.locator('#pruning').locator('input').nth(2).uncheck();
  await page.waitForFunction(
    () => document.getElementById('pruning').keep[2] === 0 && document.getElementById('pruning').result,
  );
  await page.waitForFunction(
    () => document.getElementById('pruning').shadowRoot.querySelector('input:nth-of-type(1)') !== null,
  );
  const { weights: w, G: g } = await elementMatrices('#pruning');
  w.rows.forEach((row, i) => {
    if (i !== 2) assert.equal(row[2], 0, `row ${i} ignores the dropped token`);
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5);
  });
  assert.ok(w.rows[2][2] > 0, 'the dropped token attends to itself');
  assert.deepEqual(
    g.rows.map((row) => row[2]),
    [0, 0, 1, 0, 0, 0],
  );
});

test('the in-page benchmark runs, checks and fills its table', async () => {
  await page.selectOption('#bench select[name="sizes"]', 'quick');
  await page.click('#bench button[name="run"]');
  await page.waitForSelector('#bench[data-done]', { timeout: 120_000 });
  assert.equal(
    await page.getAttribute('#bench', 'data-done'),
    'true',
    await page.textContent('#bench [data-role="stage"]'),
  );
  const rows = await page.$$eval('#bench tbody tr', (trs) =>
    trs.map((tr) => ({
      name: tr.dataset.case,
      gflops: Number(tr.dataset.gflops),
      reused: Number(tr.dataset.gflopsReused),
      cells: tr.cells.length,
    })),
  );
  assert.deepEqual(
    rows.map((r) => r.name),
    ['N=64', 'N=256'],
  );
  assert.ok(
    rows.every(
      (r) => r.gflops > 0 && Number.isFinite(r.gflops) && r.reused > 0 && Number.isFinite(r.reused) && r.cells === 6,
    ),
  );
  assert.equal(await page.$eval('#bench progress', (p) => p.value), 1);
});

test('the playground reacts: causal hides future keys, and a screenshot is kept', async () => {
  await page.check('input[name="causal"]');
  const w = await shown('demo-weights');
  w.rows.forEach((row, i) =>
    row.forEach((x, j) => {
      if (j > i) assert.equal(x, 0, `weight ${i},${j}`);
    }),
  );
  w.rows.forEach((row) => assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5));
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL('page.png', ARTIFACTS).pathname, fullPage: true });
});

test('the page is accessible (axe-core: no serious or critical violation) and does not scroll sideways at 390 px', async () => {
  // bypassCSP: the page's CSP (rightly) refuses the injected axe script.
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 } });
  try {
    const phone = await context.newPage();
    await phone.goto(`${url}web/`);
    await phone.waitForSelector('body[data-ready]', { timeout: 30_000 });
    await phone.addScriptTag({ path: fileURLToPath(new URL('../node_modules/axe-core/axe.min.js', import.meta.url)) });
    for (const colorScheme of ['light', 'dark']) {
      await phone.emulateMedia({ colorScheme });
      const violations = await phone.evaluate(async () =>
        (await window.axe.run(document)).violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map(
            (v) =>
              `${v.id} (${v.impact}): ${v.nodes
                .slice(0, 3)
                .map((n) => n.target.join(' '))
                .join('; ')}`,
          ),
      );
      assert.deepEqual(violations, [], colorScheme);
    }
    const [scroll, client] = await phone.evaluate(() => [
      document.documentElement.scrollWidth,
      document.documentElement.clientWidth,
    ]);
    assert.ok(scroll <= client, `the page is ${scroll} px wide in a ${client} px viewport`);
  } finally {
    await context.close();
  }
});

test('the page state is in its URL: an edit, a flash step and a lines view survive a reload from the link', async () => {
  const cell = page
    .locator('#ex2')
    .locator('attention-matrix[data-name="X"]')
    .locator('td[data-row="0"][data-col="0"]');
  await cell.focus();
  await page.keyboard.type('0.5');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => location.hash.includes('state='));
  await page.locator('#flash').locator('button', { hasText: 'Next block' }).click();
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"flash":1'));
  const link = await page.evaluate(() => location.href);
  const other = await browser.newPage();
  try {
    await other.goto(link);
    await other.waitForSelector('body[data-ready]');
    await other.waitForFunction(
      () => document.getElementById('ex2').stages && document.getElementById('flash').step === 1,
    );
    const x = await other.evaluate(() => document.getElementById('ex2').data.x[0][0]);
    assert.equal(x, 0.5);
    const weights = await other.evaluate(() => Array.from(document.getElementById('ex2').stages.weights.data));
    const here = await page.evaluate(() => Array.from(document.getElementById('ex2').stages.weights.data));
    assert.deepEqual(weights, here, 'the shared link shows the same weights');
  } finally {
    await other.close();
  }
});

test('quality bars (printed, not asserted on time): paint, interactivity, transfer size, recompute time', async (t) => {
  const { gzipSync } = await import('node:zlib');
  const { readFileSync, readdirSync } = await import('node:fs');
  const fresh = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const bodies = [];
  fresh.on('response', async (r) => {
    try {
      bodies.push([r.url(), await r.body()]);
    } catch {
      /* redirects */
    }
  });
  try {
    await fresh.goto(`${url}web/`);
    await fresh.waitForFunction(() =>
      [...document.querySelectorAll('attention-steps, attention-flash, positional-encoding')].every(
        (e) => e.stages || e.reference || (e.tensors && Object.keys(e.tensors).length),
      ),
    );
    const timing = await fresh.evaluate(() => ({
      paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      interactive: performance.now(),
    }));
    // Editing a cell of example 2: commit to the recomputed, repainted pipeline.
    const recompute = await fresh.evaluate(async () => {
      const el = document.getElementById('ex2');
      const times = [];
      for (let i = 0; i < 20; i++) {
        const data = el.data;
        data.x[1][1] = -1.1 + i * 0.01;
        const start = performance.now();
        await new Promise((resolve) => {
          el.addEventListener('compute', resolve, { once: true });
          el.data = data;
        });
        el.shadowRoot.querySelector('attention-matrix[data-name="Y"]').getBoundingClientRect(); // style and layout done
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      return { median: times[10], max: times[19] };
    });
    const gz = (buffer) => gzipSync(buffer, { level: 9 }).length;
    const transfer = bodies.reduce((sum, [, body]) => sum + gz(body), 0);
    const root = new URL('..', import.meta.url);
    const files = [
      ...readdirSync(new URL('web/elements/', root))
        .filter((f) => f.endsWith('.js'))
        .map((f) => `web/elements/${f}`),
      ...readdirSync(new URL('bindings/js/', root))
        .filter((f) => f.endsWith('.js') && f !== 'node.js')
        .map((f) => `bindings/js/${f}`),
      'dist/attention-relaxed.js',
      'dist/attention-relaxed.wasm',
    ];
    const elementsBytes = files.reduce((sum, f) => sum + gz(readFileSync(new URL(f, root))), 0);
    t.diagnostic(
      `first contentful paint ${timing.paint?.toFixed(0)} ms, every element interactive ${timing.interactive.toFixed(0)} ms after navigation; page transfer ${(transfer / 1024).toFixed(0)} KB gzipped (${bodies.length} responses); elements module + API + relaxed wasm ${(elementsBytes / 1024).toFixed(0)} KB gzipped; editing a cell of example 2 recomputes, re-renders and lays out the pipeline in ${recompute.median.toFixed(1)} ms median (max ${recompute.max.toFixed(1)} ms of 20)`,
    );
    assert.ok(transfer > 0 && elementsBytes > 0 && timing.interactive > 0);
  } finally {
    await fresh.close();
  }
});

test('screenshots of every section and element at desktop and phone widths (git-ignored, for people)', async () => {
  const dir = new URL('./artifacts/screenshots/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  for (const [width, height, label] of [
    [1200, 900, 'desktop'],
    [390, 844, 'phone'],
  ]) {
    const shot = await browser.newPage({ viewport: { width, height } });
    try {
      await shot.goto(`${url}web/`);
      await shot.waitForSelector('body[data-ready]');
      await shot.waitForFunction(
        () => document.getElementById('ex4')?.stages && document.getElementById('flash')?.reference,
      );
      const targets = await shot.evaluate(() =>
        [
          ...document.querySelectorAll(
            'section.example, attention-flash, positional-encoding, token-pruning, #playground, #positions, #heads',
          ),
        ].map((e, i) => {
          e.dataset.shot = String(i);
          return `${e.id || e.tagName.toLowerCase()}`;
        }),
      );
      for (let i = 0; i < targets.length; i++) {
        // (60 s: under a full CI run on 2 cores, waiting for an element to be stable once took
        // past the default 30 s; alone it takes under a second)
        await shot.locator(`[data-shot="${i}"]`).screenshot({
          path: fileURLToPath(new URL(`${label}-${String(i).padStart(2, '0')}-${targets[i]}.png`, dir)),
          timeout: 60_000,
        });
      }
      assert.ok(targets.length >= 10, targets.join(', '));
    } finally {
      await shot.close();
    }
  }
});
