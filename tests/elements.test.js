// The embeddable elements (attention-wasm/elements) in headless Chromium: <attention-steps>
// shows exactly what the public API computes, stage by stage, and stays so when a reader
// edits an input or clicks the mask; <attention-matrix> is an ARIA grid a keyboard can edit.
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
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(`${url}tests/helpers/elements.html`);
  await page.waitForFunction(() => ['s2', 's4', 'own'].every((id) => document.getElementById(id).stages));
});

test.after(async () => {
  await browser?.close();
  server?.close();
});

// In the page: every stage an element shows, against the API run on the element's inputs.
async function compareWithApi(id) {
  return page.evaluate(async (id) => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' }); // the elements' build
    const el = document.getElementById(id);
    const d = el.data;
    const Q = attn.matmul(d.c ?? d.x, d.wq),
      K = attn.matmul(d.x, d.wk),
      V = attn.matmul(d.x, d.wv);
    const { trace } = attn.attention(Q, K, V, {
      mask: attn.tensor(d.mask.flat(), [d.mask.length, d.mask[0].length]),
      trace: true,
    });
    const expected = {
      Q,
      K,
      V,
      scores: trace.scores,
      scaled: trace.scaledScores,
      masked: trace.maskedScores,
      weights: trace.weights,
      A: trace.output,
    };
    if (d.wo) expected.Y = attn.matmul(trace.output, d.wo);
    const shown = (name) =>
      Array.from(
        el.shadowRoot.querySelector(`attention-matrix[data-name="${name}"]`).shadowRoot.querySelectorAll('td'),
        (td) => Number(td.dataset.value),
      );
    const mismatches = [];
    for (const [name, t] of Object.entries(expected)) {
      const cells = shown(name);
      if (cells.length !== t.data.length) mismatches.push(`${name}: ${cells.length} cells for ${t.data.length} values`);
      t.data.forEach((x, i) => {
        if (!Object.is(cells[i], x)) mismatches.push(`${name}[${i}]: shows ${cells[i]}, API ${x}`);
      });
    }
    return { mismatches, stages: Object.keys(expected) };
  }, id);
}

test('<attention-steps> shows every stage exactly as the public API computes it (self, cross, own data)', async () => {
  for (const id of ['s2', 's4', 'own']) {
    const { mismatches, stages } = await compareWithApi(id);
    assert.deepEqual(mismatches, [], id);
    assert.ok(stages.length >= 8, `${id}: ${stages}`);
  }
  assert.deepEqual(errors, []);
});

test('editing X with the keyboard recomputes every downstream stage', async () => {
  const cell = page.locator('#s2').locator('attention-matrix[data-name="X"]').locator('td[data-row="1"][data-col="2"]');
  await cell.focus();
  await page.keyboard.type('0.75');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('s2').data.x[1][2] === 0.75);
  await page.waitForFunction(
    () =>
      Number(
        document
          .getElementById('s2')
          .shadowRoot.querySelector('attention-matrix[data-name="X"]')
          .shadowRoot.querySelector('td[data-row="1"][data-col="2"]').dataset.value,
      ) === 0.75,
  );
  const { mismatches } = await compareWithApi('s2');
  assert.deepEqual(mismatches, []);
  // The edited cell keeps the focus, so a reader can go on typing.
  assert.equal(await page.evaluate(() => document.getElementById('s2').shadowRoot.activeElement?.dataset.name), 'X');
});

test('clicking a mask cell blocks that entry; a row with no visible key shows zeros and says why', async () => {
  const mask = page.locator('#s2').locator('attention-matrix[data-name="M"]');
  await mask.locator('td[data-row="0"][data-col="1"]').click();
  await page.waitForFunction(() => document.getElementById('s2').data.mask[0][1] === -Infinity);
  let { mismatches } = await compareWithApi('s2');
  assert.deepEqual(mismatches, []);
  const weights = () =>
    page.evaluate(() =>
      Array.from(
        document
          .getElementById('s2')
          .shadowRoot.querySelector('attention-matrix[data-name="weights"]')
          .shadowRoot.querySelectorAll('td'),
        (td) => Number(td.dataset.value),
      ),
    );
  assert.deepEqual((await weights()).slice(0, 2), [1, 0], 'token 1 sees only itself');
  await mask.locator('td[data-row="0"][data-col="0"]').click();
  await page.waitForFunction(() => document.getElementById('s2').data.mask[0][0] === -Infinity);
  ({ mismatches } = await compareWithApi('s2'));
  assert.deepEqual(mismatches, []);
  assert.deepEqual((await weights()).slice(0, 2), [0, 0]);
  const A = await page.evaluate(() => document.getElementById('s2').stages.A.data.slice(0, 3));
  assert.deepEqual(Object.values(A), [0, 0, 0]);
  assert.match(
    await page.evaluate(
      () => document.getElementById('s2').shadowRoot.querySelector('[data-role="no-key"]')?.textContent ?? '',
    ),
    /Row 0 sees no key: its weights and output are zeros/,
  );
  // Space on a focused mask cell unblocks it again.
  await mask.locator('td[data-row="0"][data-col="0"]').focus();
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.getElementById('s2').data.mask[0][0] === 0);
});

test('the sliding-window mask preset: the band the window keeps, and the weights attention() gives with window: { left }', async () => {
  const steps = page.locator('#own');
  await steps.locator('select').selectOption('causal-window');
  const windowInput = steps.locator('input[aria-label="sliding window: keys before each query"]');
  await windowInput.fill('1');
  await windowInput.press('Enter');
  await windowInput.dispatchEvent('change');
  await page.waitForFunction(() => {
    const m = document.getElementById('own').data.mask;
    return m.length > 2 && m[2][0] === -Infinity && m[2][1] === 0 && m[2][2] === 0;
  });
  const { mismatches } = await compareWithApi('own');
  assert.deepEqual(mismatches, []);
  const check = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    const el = document.getElementById('own');
    const d = el.data;
    const band = d.mask.every((row, i) => row.every((x, j) => x === (j <= i && j >= i - 1 ? 0 : -Infinity)));
    const Q = attn.matmul(d.c ?? d.x, d.wq),
      K = attn.matmul(d.x, d.wk),
      V = attn.matmul(d.x, d.wv);
    const byWindow = attn.attention(Q, K, V, { causal: true, window: { left: 1 }, returnWeights: true }).weights.data;
    const shown = el.stages.weights.data;
    return { band, worst: Math.max(...Array.from(byWindow, (x, i) => Math.abs(x - shown[i]))) };
  });
  assert.ok(check.band, 'query i keeps keys i − 1 and i');
  assert.ok(check.worst <= 1e-6, `weights vs attention(window): ${check.worst}`);
  await steps.locator('select').selectOption('causal-top-left'); // as the page had it
  await page.waitForFunction(() => document.getElementById('own').data.mask[2][0] === 0);
  assert.deepEqual(errors, []);
});

test('<attention-matrix>: an ARIA grid with labels; arrows, typing and Enter edit a value, Escape cancels', async () => {
  const grid = await page.evaluate(() => {
    const table = document.getElementById('m').shadowRoot.querySelector('table');
    return {
      role: table.getAttribute('role'),
      label: table.getAttribute('aria-label'),
      cell: table.querySelector('td').getAttribute('aria-label'),
    };
  });
  assert.deepEqual(grid, { role: 'grid', label: 'a matrix, 2 by 2', cell: 'a, x: 1.0000' });
  await page.evaluate(() => {
    window.events = [];
    const m = document.getElementById('m');
    m.addEventListener('change', (e) => window.events.push(['change', e.detail]));
    m.addEventListener('input', (e) => window.events.push(['input', e.detail?.value]));
  });
  await page.locator('#m').locator('td[data-row="0"][data-col="0"]').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.type('7.5');
  await page.keyboard.press('Enter');
  const value = await page.evaluate(() => Array.from(document.getElementById('m').value.data));
  assert.deepEqual(value, [1, 2, 3, 7.5]);
  const events = await page.evaluate(() => window.events);
  assert.deepEqual(events.at(-1), ['change', { row: 1, col: 1, value: 7.5 }]);
  assert.ok(
    events.some(([type, v]) => type === 'input' && v === 7.5),
    JSON.stringify(events),
  );
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type('9');
  await page.keyboard.press('Escape');
  assert.deepEqual(
    await page.evaluate(() => Array.from(document.getElementById('m').value.data)),
    [1, 2, 3, 7.5],
    'Escape keeps the old value',
  );
  assert.equal(await page.evaluate(() => document.getElementById('m').shadowRoot.activeElement?.dataset.col), '0');
});

test(
  'examples/embed.html renders every element from an installed npm pack tarball, offline, accessible (axe-core) and 390 px wide',
  { timeout: 180_000 },
  async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, mkdirSync, copyFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const root = new URL('..', import.meta.url).pathname;
    const dir = mkdtempSync(`${tmpdir()}/attention-embed-`);
    try {
      const tarball = execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], {
        cwd: root,
        encoding: 'utf8',
      })
        .trim()
        .split('\n')
        .pop();
      mkdirSync(`${dir}/node_modules/attention-wasm`, { recursive: true });
      execFileSync('tar', [
        '-xzf',
        `${dir}/${tarball}`,
        '-C',
        `${dir}/node_modules/attention-wasm`,
        '--strip-components=1',
      ]);
      // Its runtime dependency beside it, as npm installs it (the tokenizer library).
      const { symlinkSync } = await import('node:fs');
      symlinkSync(`${root}node_modules/@huggingface`, `${dir}/node_modules/@huggingface`, 'dir');
      copyFileSync(`${root}examples/embed.html`, `${dir}/embed.html`);
      copyFileSync(`${root}examples/article.html`, `${dir}/article.html`);
      const local = await startServer({ port: 0, root: dir, served: null });
      const embed = await browser.newPage();
      const problems = [];
      embed.on('pageerror', (e) => problems.push(e.message));
      // Failed loads are caught by status below (the favicon the browser asks for by itself aside).
      embed.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      embed.on('request', (r) => {
        if (!r.url().startsWith(local.url) && !r.url().startsWith('data:'))
          problems.push(`request outside: ${r.url()}`);
      });
      embed.on('response', (r) => {
        if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} ${r.url()}`);
      });
      try {
        await embed.goto(`${local.url}embed.html`);
        await embed.waitForFunction(() => [...document.querySelectorAll('attention-steps')].every((s) => s.stages));
        const rendered = await embed.evaluate(() => ({
          steps: [...document.querySelectorAll('attention-steps')].map(
            (s) => s.shadowRoot.querySelectorAll('attention-matrix').length,
          ),
          matrix: document.querySelector('attention-matrix').shadowRoot.querySelectorAll('td').length,
          slides: document.querySelector('attention-steps').shadowRoot.querySelectorAll('.slides').length,
        }));
        assert.ok(
          rendered.steps.every((n) => n >= 12),
          JSON.stringify(rendered),
        );
        assert.ok(
          await embed.evaluate(
            () => document.querySelector('attention-flash').shadowRoot.querySelectorAll('attention-matrix').length >= 4,
          ),
        );
        await embed.waitForFunction(() =>
          document.querySelector('attention-heatmap').shadowRoot.querySelector('attention-matrix'),
        );
        assert.equal(rendered.matrix, 4);
        assert.ok(rendered.slides >= 3, "the slides' rounded values are shown");
        // The shipped model (src="tiny-gpt2", and the explainer's default) from the tarball.
        await embed.waitForFunction(
          () =>
            document.querySelector('attention-model').toJSON().attentions &&
            document.querySelector('attention-explainer').shadowRoot.querySelectorAll('section').length >= 10,
          null,
          { timeout: 60_000 },
        );
        const models = await embed.evaluate(() => ({
          status: document.querySelector('attention-model').shadowRoot.textContent,
          named: document
            .querySelector('attention-explainer')
            .shadowRoot.textContent.includes('tiny GPT-2, random weights'),
        }));
        assert.match(
          models.status,
          /tiny GPT-2, random weights.* · 2 layers × 4 heads/,
          '<attention-model src="tiny-gpt2"> loaded',
        );
        assert.equal(models.named, true, 'the explainer names the shipped model as what it is');
        assert.deepEqual(problems, []);
        // Accessibility: axe-core finds no serious or critical violation (shadow roots included).
        await embed.addScriptTag({ path: `${root}node_modules/axe-core/axe.min.js` });
        for (const colorScheme of ['light', 'dark']) {
          // the elements follow prefers-color-scheme
          await embed.emulateMedia({ colorScheme });
          const violations = await embed.evaluate(async () =>
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
        // The article page: two elements in running text.
        const article = await browser.newPage();
        article.on('pageerror', (e) => problems.push(e.message));
        await article.goto(`${local.url}article.html`);
        await article.waitForFunction(
          () =>
            document.querySelector('attention-steps').stages &&
            document.querySelector('attention-heatmap').shadowRoot.querySelector('svg'),
        );
        await article.close();
        assert.deepEqual(problems, []);
        // At a phone's width nothing scrolls the page sideways (wide matrices scroll in their box).
        await embed.setViewportSize({ width: 390, height: 844 });
        await embed.waitForTimeout(100);
        const width = await embed.evaluate(() => [
          document.documentElement.scrollWidth,
          document.documentElement.clientWidth,
        ]);
        assert.ok(width[0] <= width[1], `page ${width[0]} px wide in a ${width[1]} px viewport`);
      } finally {
        await embed.close();
        local.server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('<attention-flash> stepped to the end equals attention(q, k, v); each step keeps the invariants', async () => {
  await page.waitForFunction(() => document.getElementById('flash').reference);
  const result = await page.evaluate(async () => {
    const el = document.getElementById('flash');
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' }); // the elements' build
    const d = el.data;
    const expected = attn.attention(d.q, d.k, d.v, { returnWeights: true });
    const steps = [];
    el.focus();
    for (let t = 0; t <= el.blocks; t++) {
      steps.push({ step: el.step, state: el.state.map((r) => ({ m: r.m, l: r.l })) });
      el.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    }
    const shown = (name) =>
      Array.from(
        el.shadowRoot.querySelector(`attention-matrix[data-name="${name}"]`).shadowRoot.querySelectorAll('td'),
        (td) => Number(td.dataset.value),
      );
    // Every row's running max is the max of its scores so far: recompute from weights' logits.
    return {
      blocks: el.blocks,
      last: el.step,
      steps,
      result: shown('result'),
      reference: shown('reference'),
      expected: Array.from(expected.output.data),
      verdict: el.shadowRoot.querySelector('.verdict').textContent,
      memory: el.shadowRoot.querySelector('.memory').dataset,
    };
  });
  assert.equal(result.blocks, 3, 'six keys in blocks of two');
  assert.equal(result.last, 3, 'the arrow key walked to the end');
  assert.deepEqual(result.reference, result.expected, 'the library result shown is attention(q, k, v)');
  result.result.forEach((x, i) => assert.ok(Math.abs(x - result.expected[i]) < 1e-6, `${x} vs ${result.expected[i]}`));
  // The running max never decreases and the running sum grows: each block only adds.
  for (let t = 1; t < result.steps.length; t++) {
    result.steps[t].state.forEach((r, i) => {
      const before = result.steps[t - 1].state[i];
      assert.ok(r.m >= before.m, `row ${i}: the max never falls`);
    });
  }
  assert.match(result.verdict, /Same result: the largest difference is/);
  assert.deepEqual(
    { naive: Number(result.memory.naive), kept: Number(result.memory.kept) },
    { naive: 2 * 6 * 4, kept: 2 * (2 + 2) * 4 + 2 * 2 * 4 },
  );
});

test('<attention-heatmap>: a grid per head and their average, linked hover both ways, and a lines view', async () => {
  const result = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' }); // the elements' build
    const mha = new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 4 });
    const x = attn.tensor(
      Float32Array.from({ length: 24 }, (_, i) => Math.sin(i)),
      [3, 8],
    );
    const { weights } = mha.forward(x, x, x, { returnWeights: true });
    mha.dispose();
    const multi = document.getElementById('multi');
    multi.weights = weights;
    const values = (name) =>
      Array.from(multi.shadowRoot.querySelector(`attention-matrix[data-name="${name}"]`).value.data);
    return {
      names: [...multi.shadowRoot.querySelectorAll('attention-matrix')].map((m) => m.dataset.name),
      w: Array.from(weights.data),
      h1: values('head-1'),
      h2: values('head-2'),
      avg: values('average'),
    };
  });
  assert.deepEqual(result.names, ['head-1', 'head-2', 'average']);
  assert.deepEqual(result.h1.concat(result.h2), result.w.map(Math.fround));
  result.avg.forEach((a, i) => assert.ok(Math.abs(a - (result.w[i] + result.w[9 + i]) / 2) < 1e-6));
  // Hovering a weight in the heatmap highlights the pair in the linked steps element...
  await page.waitForFunction(() => document.getElementById('heat').shadowRoot.querySelector('attention-matrix'));
  await page.locator('#heat').locator('td[data-row="1"][data-col="0"]').hover();
  const linked = () =>
    page.evaluate(() =>
      ['weights', 'scores'].map((name) =>
        [
          ...document
            .getElementById('s2')
            .shadowRoot.querySelector(`attention-matrix[data-name="${name}"]`)
            .shadowRoot.querySelectorAll('td.linked'),
        ].map((td) => `${td.dataset.row},${td.dataset.col}`),
      ),
    );
  assert.deepEqual(await linked(), [['1,0'], ['1,0']]);
  // ...and a weight in the steps element highlights it in the heatmap.
  await page
    .locator('#s2')
    .locator('attention-matrix[data-name="weights"]')
    .locator('td[data-row="0"][data-col="1"]')
    .hover();
  assert.deepEqual(
    await page.evaluate(() =>
      [
        ...document
          .getElementById('heat')
          .shadowRoot.querySelector('attention-matrix')
          .shadowRoot.querySelectorAll('td.linked'),
      ].map((td) => `${td.dataset.row},${td.dataset.col}`),
    ),
    ['0,1'],
  );
  // The lines view: one line per pair, its opacity rising with its weight from 0.55 (so that a
  // weight near 0.5 shows at 3:1 and a faint line keeps its hue), 0 for a weight of 0.
  await page.locator('#heat').locator('button[aria-pressed]').click();
  const lines = await page.evaluate(() =>
    [...document.getElementById('heat').shadowRoot.querySelectorAll('svg line')].map((l) => [
      Number(l.style.opacity),
      Number(l.dataset.weight),
    ]),
  );
  assert.equal(lines.length, 4);
  for (const [opacity, weight] of lines) {
    assert.ok(Math.abs(opacity - (weight > 0 ? 0.55 + 0.45 * weight : 0)) < 1e-6, `${opacity} for ${weight}`);
  }
  assert.equal(await page.evaluate(() => document.getElementById('heat').view), 'lines');
});

test("export: JSON round-trips every tensor shown, PNG decodes at the element's size, the copied code reproduces the view", async () => {
  const out = await page.evaluate(async () => {
    const results = {};
    for (const id of ['s4', 'flash', 'heat', 'm']) {
      const el = document.getElementById(id);
      const json = JSON.parse(JSON.stringify(el.toJSON()));
      const blob = await el.toPNG();
      const bitmap = await createImageBitmap(blob);
      const box = el.getBoundingClientRect();
      results[id] = {
        type: blob.type,
        size: [bitmap.width, bitmap.height],
        box: [Math.round(box.width * devicePixelRatio), Math.round(box.height * devicePixelRatio)],
        json,
        code: el.toCode(),
      };
    }
    // The steps element's JSON against its stages, number by number.
    const steps = document.getElementById('s4');
    results.stagesMatch = Object.entries(steps.stages)
      .filter(([, t]) => t)
      .every(([name, t]) => {
        const j = results.s4.json.stages[name];
        return (
          JSON.stringify(j.shape) === JSON.stringify(t.shape) &&
          j.data.every((x, i) => Object.is(Math.fround(Number(x)), t.data[i]))
        );
      });
    // Run the copied code (its import rewritten to this page's module) and compare.
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' }); // the elements' build
    const body = results.s4.code
      .replace("import { init } from 'attention-wasm';", '')
      .replace(/const attn = await init\(.*\n/, '')
      .replace(/console\.log\(.*\);\n$/, 'return { weights: trace.weights, Y };');
    const run = new Function('attn', `return (async () => {${body}})();`);
    const { weights, Y } = await run(attn);
    results.codeMatches =
      Array.from(Y.data).every((x, i) => Object.is(x, steps.stages.Y.data[i])) &&
      Array.from(weights.data).every((x, i) => Object.is(x, steps.stages.weights.data[i]));
    return results;
  });
  for (const id of ['s4', 'flash', 'heat', 'm']) {
    assert.equal(out[id].type, 'image/png', id);
    assert.deepEqual(out[id].size, out[id].box, `${id}: the PNG has the element's size`);
    assert.equal(
      out[id].json.element,
      { s4: 'attention-steps', flash: 'attention-flash', heat: 'attention-heatmap', m: 'attention-matrix' }[id],
    );
    assert.match(out[id].code, /attention-wasm/);
  }
  assert.ok(out.stagesMatch, 'JSON holds every stage exactly');
  assert.ok(out.codeMatches, 'the copied code computes the same weights and Y');
  assert.equal(out.flash.json.steps.length, 4);
  assert.equal(out.heat.json.heads.length, 1);
});

test('<token-pruning>: a dropped token gets no weight but its own; weights equal attention() with keepMask', async () => {
  await page.waitForFunction(() => document.getElementById('prune').result);
  const check = () =>
    page.evaluate(async () => {
      const el = document.getElementById('prune');
      const { init } = await import('/bindings/js/browser.js');
      const attn = await init({ simd: 'baseline' }); // the elements' build
      const { weights } = attn.attention(el.result.x, el.result.x, el.result.x, {
        keepMask: el.keep,
        returnWeights: true,
      });
      const shown = Array.from(
        el.shadowRoot.querySelector('attention-matrix[data-name="weights"]').shadowRoot.querySelectorAll('td'),
        (td) => Number(td.dataset.value),
      );
      return {
        keep: el.keep,
        same: shown.every((x, i) => Object.is(x, weights.data[i])),
        weights: shown,
        L: el.tokens.length,
      };
    });
  let r = await check();
  assert.deepEqual(r.keep, [1, 0, 1, 1, 1, 1], 'drop="2" drops the second token');
  assert.ok(r.same);
  for (let i = 0; i < r.L; i++) assert.equal(r.weights[i * r.L + 1] === 0, i !== 1, `row ${i}, column 2`);
  await page.locator('#prune').locator('input').nth(4).uncheck();
  await page.waitForFunction(
    () => document.getElementById('prune').result.weights && document.getElementById('prune').keep[4] === 0,
  );
  r = await check();
  assert.ok(r.same);
  assert.equal(r.weights[0 * r.L + 4], 0);
});

test('<positional-encoding>: sinusoidal, RoPE (scores depend on m − n only), ALiBi, and a Laplacian graph edited by clicks', async () => {
  await page.waitForFunction(() =>
    ['pe-sin', 'pe-rope', 'pe-alibi', 'pe-lap'].every((id) => Object.keys(document.getElementById(id).tensors).length),
  );
  const r = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' }); // the elements' build
    const same = (a, b) => a.length === b.length && Array.from(a).every((x, i) => Object.is(x, b[i]));
    const sin = document.getElementById('pe-sin').tensors;
    const rope = document.getElementById('pe-rope').tensors.scores;
    let worst = 0;
    for (let m = 0; m < 8; m++)
      for (let n = 0; n < 8; n++)
        if (m > 0 && n > 0) worst = Math.max(worst, Math.abs(rope.data[m * 8 + n] - rope.data[(m - 1) * 8 + n - 1]));
    const alibi = document.getElementById('pe-alibi').tensors.bias;
    return {
      sin: same(sin.pe.data, attn.sinusoidalEncoding(32, 32).data),
      canvases: document.getElementById('pe-sin').shadowRoot.querySelectorAll('canvas').length,
      ropeDiagonal: worst,
      ropeVaries: rope.data[0] !== rope.data[1],
      alibi: same(alibi.data, attn.alibiBias(4, 6).data),
      alibiGrids: document.getElementById('pe-alibi').shadowRoot.querySelectorAll('attention-matrix').length,
    };
  });
  assert.deepEqual(
    { ...r, ropeDiagonal: r.ropeDiagonal < 1e-5 },
    { sin: true, canvases: 2, ropeDiagonal: true, ropeVaries: true, alibi: true, alibiGrids: 4 },
  );
  // Laplacian: click node 1, then node 4: the edge 1–4 appears and the encoding follows.
  const lap = page.locator('#pe-lap');
  await lap.locator('circle[data-node="0"]').click();
  await lap.locator('circle[data-node="3"]').click();
  const graph = await page.evaluate(() => document.getElementById('pe-lap').graph);
  assert.ok(
    graph.edges.some(([a, b]) => a === 0 && b === 3),
    JSON.stringify(graph),
  );
  const matches = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' }); // the elements' build
    const el = document.getElementById('pe-lap');
    const expected = attn.laplacianEncoding(el.graph, 2);
    return (
      Array.from(el.tensors.encoding.data).every((x, i) => Object.is(x, expected.data[i])) &&
      el.shadowRoot.querySelectorAll('line').length === el.graph.edges.length
    );
  });
  assert.ok(matches);
  // Keyboard: Enter on two nodes removes the edge again.
  await lap.locator('circle[data-node="0"]').focus();
  await page.keyboard.press('Enter');
  await lap.locator('circle[data-node="3"]').focus();
  await page.keyboard.press('Enter');
  assert.ok(
    !(await page.evaluate(() => document.getElementById('pe-lap').graph.edges.some(([a, b]) => a === 0 && b === 3))),
  );
  assert.deepEqual(errors, []);
});
