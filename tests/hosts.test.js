// The package inside hosts nobody here wrote, used as their users use them, in headless
// Chromium: a reveal.js deck (keys typed into an element stay in it; keys it does not take
// still drive the deck) and a page on another origin that imports the package from a
// CDN-like origin (threads and the training Worker start there too).
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, copyFileSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));

// build/hosts: the host pages, the package as node_modules/attention-wasm, and reveal.js.
function hostFolder() {
  const dir = `${root}build/hosts`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(`${dir}/node_modules`, { recursive: true });
  symlinkSync(root, `${dir}/node_modules/attention-wasm`, 'dir');
  // Its runtime dependency beside it, as npm installs it (the text classifier's tokenizer).
  symlinkSync(`${root}node_modules/@huggingface`, `${dir}/node_modules/@huggingface`, 'dir');
  symlinkSync(`${root}node_modules/reveal.js`, `${dir}/reveal`, 'dir');
  for (const p of ['marked', 'dompurify']) symlinkSync(`${root}node_modules/${p}`, `${dir}/${p}`, 'dir');
  for (const page of [
    'deck.html',
    'deck-models.html',
    'deck-compact.html',
    'cdn.html',
    'moves.html',
    'scheme.html',
    'png.html',
    'slide.html',
    'markdown.html',
    'nocors.html',
    'static-grid.html',
    'centred.html',
    'muted.html',
    'unpkg.html',
  ])
    copyFileSync(`${root}tests/helpers/hosts/${page}`, `${dir}/${page}`);
  symlinkSync(`${root}node_modules/axe-core`, `${dir}/axe-core`, 'dir');
  return dir;
}

let browser;
const servers = [];
let hostUrl;
test.before(async () => {
  const { server, url } = await startServer({ port: 0, root: hostFolder(), served: null });
  servers.push(server);
  hostUrl = url;
  browser = await launchChromium(['--disable-quic', '--disable-sync']);
});
test.after(async () => {
  await browser?.close();
  for (const server of servers) server.close();
});

async function openPage(path, ready) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  // Failed requests count, except the favicon the browser asks for by itself.
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${hostUrl}${path}`);
  await page.waitForFunction(ready, null, { timeout: 30_000 });
  return { page, errors };
}

// Two animation frames: what the last change scheduled has been drawn.
function twoFrames(page) {
  return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

// Waits until the page's #model (an <attention-model>) has drawn its head view's lines.
function modelDrawn(page) {
  return page.waitForFunction(
    () =>
      document
        .getElementById('model')
        .shadowRoot.querySelector('attention-heatmap')
        ?.shadowRoot.querySelector('svg line'),
    null,
    { timeout: 30_000 },
  );
}

test(
  'reveal.js deck: keys an element consumes stay in it, others still drive the deck',
  { timeout: 60_000 },
  async () => {
    const { page, errors } = await openPage(
      'deck.html',
      () => window.deckReady && document.getElementById('matrix').cellAt?.(0, 0),
    );
    const slide = () => page.evaluate(() => [deck.getIndices().h, deck.isPaused()]);
    try {
      // Editable matrix: an arrow moves between cells, typing "0.5" + Enter edits; the deck stays.
      await page.evaluate(() => document.getElementById('matrix').cellAt(0, 0).focus());
      await page.keyboard.press('ArrowRight');
      assert.equal(
        await page.evaluate(() => document.getElementById('matrix').shadowRoot.activeElement?.dataset.col),
        '1',
        'ArrowRight moved to the next cell',
      );
      await page.keyboard.type('0.5');
      await page.keyboard.press('Enter');
      assert.deepEqual(await slide(), [0, false], 'ArrowRight and "." did not reach the deck');
      assert.equal(
        await page.evaluate(() => document.getElementById('matrix').value.data[1]),
        0.5,
        'the cell became 0.5',
      );
      // A key the element does not take reaches the deck: with nothing focused, ArrowRight
      // moves on, as it would without the element.
      await page.evaluate(() => document.activeElement?.blur());
      await page.keyboard.press('ArrowRight');
      assert.deepEqual(await slide(), [1, false]);

      // <attention-sentiment>: a review typed with spaces and arrows stays in its text field.
      await page.waitForFunction(() => document.getElementById('sentiment').shadowRoot.querySelector('textarea'));
      await page.evaluate(() => {
        const input = document.getElementById('sentiment').shadowRoot.querySelector('textarea');
        input.value = '';
        input.focus();
      });
      await page.keyboard.type('a good film. n p');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Space');
      assert.deepEqual(await slide(), [1, false], 'keys typed into the review did not move or pause the deck');
      assert.equal(
        await page.evaluate(() => document.getElementById('sentiment').shadowRoot.querySelector('textarea').value),
        'a good film. n p ',
      );

      // <attention-flash>: ArrowRight steps the kernel, not the deck; 'n' (not the element's) is the deck's.
      await page.evaluate(() => {
        document.activeElement?.blur();
        deck.slide(2);
      });
      await page.waitForFunction(() => document.getElementById('flash').blocks > 0);
      await page.evaluate(() => document.getElementById('flash').focus());
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.evaluate(() => document.getElementById('flash').step), 1, 'the kernel stepped');
      assert.deepEqual(await slide(), [2, false], 'the deck did not');
      await page.keyboard.press('n');
      assert.deepEqual(await slide(), [3, false], "'n', which the element ignores, reached the deck");
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  'reveal.js deck (its black theme, 42 px text): <attention-model layout="compact"> and <attention-explainer layout="compact"> fit the 960 × 700 slide in each view, their type sized from the page\'s root, not the slide\'s',
  { timeout: 90_000 },
  async () => {
    const { page, errors } = await openPage('deck-compact.html', () => window.deckReady);
    try {
      await page.evaluate(() => deck.slide(1));
      await modelDrawn(page);
      const sizes = {};
      for (const view of ['head', 'model', 'neuron']) {
        await page.evaluate((view) => document.getElementById('model').setAttribute('view', view), view);
        await page.waitForFunction(
          (view) => {
            const root = document.getElementById('model').shadowRoot;
            const drawn = { head: 'attention-heatmap', model: '.model-grid-view', neuron: 'table.neuron' }[view];
            return root.querySelector(`.main ${drawn}`) ?? root.querySelector(drawn);
          },
          view,
          { timeout: 10_000 },
        );
        await twoFrames(page);
        sizes[view] = await page.evaluate(() => {
          const el = document.getElementById('model');
          return { height: el.offsetHeight, font: parseFloat(getComputedStyle(el).fontSize) };
        });
      }
      // The slide's own text is 42 px; the compact type is 0.9 of the page's root (16 px).
      for (const [view, { height, font }] of Object.entries(sizes)) {
        assert.ok(height <= 700, `compact ${view} view ${height} px tall on a 700 px slide: ${JSON.stringify(sizes)}`);
        assert.ok(Math.abs(font - 14.4) < 0.01, `compact ${view} view's type ${font} px (the slide's 42 px leaked in)`);
      }
      await page.evaluate(() => deck.slide(2));
      await page.waitForFunction(() => document.getElementById('explainer').result, null, { timeout: 30_000 });
      await twoFrames(page);
      const explainer = await page.evaluate(() => document.getElementById('explainer').offsetHeight);
      assert.ok(explainer <= 700, `compact explainer ${explainer} px tall on a 700 px slide`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  "a host with muted grey text (create-vite's templates: #6b6375 on white, #9ca3af on #16171d): the elements' dimmed text still reaches WCAG AA (axe-core finds no contrast violation inside them), light and dark",
  { timeout: 90_000 },
  async () => {
    for (const colorScheme of ['light', 'dark']) {
      const page = await browser.newPage({ colorScheme });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      try {
        await page.goto(`${hostUrl}muted.html`);
        await page.waitForFunction(
          () =>
            ['steps', 'flash', 'matrix', 'pruning', 'pe'].every((id) =>
              document.getElementById(id).shadowRoot?.querySelector('attention-matrix, table, svg, canvas'),
            ),
          null,
          { timeout: 30_000 },
        );
        await page.addScriptTag({ path: `${root}node_modules/axe-core/axe.min.js` });
        const found = await page.evaluate(async () => {
          const result = await window.axe.run(document, { runOnly: ['color-contrast'] });
          return result.violations.flatMap((v) =>
            v.nodes.map((n) => `${n.target.join(' >> ')}: ${(n.failureSummary ?? '').split('\n')[1]?.trim()}`),
          );
        });
        // The premise: the page's own text passes; only the elements' dimmed text could fail.
        assert.deepEqual(
          found,
          [],
          `${colorScheme}: ${found.length} contrast failures, e.g.\n${found.slice(0, 5).join('\n')}`,
        );
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    }
  },
);

// The element in `id`'s shadow root (or a nested one) matching `selector`, focused; its tag.
function focusInside(page, id, selector) {
  return page.evaluate(
    ([id, selector]) => {
      const find = (root) =>
        root.querySelector(selector) ??
        [...root.querySelectorAll('*')].reduce((hit, el) => hit ?? (el.shadowRoot && find(el.shadowRoot)), null);
      const target = find(document.getElementById(id).shadowRoot);
      target.focus();
      return `${target.tagName.toLowerCase()}${target.type ? `[${target.type}]` : ''}`;
    },
    [id, selector],
  );
}

test(
  'reveal.js deck (its black theme): <attention-steps>, <attention-explainer> and <attention-model src="tiny-gpt2"> keep the keys typed into them, draw at the deck\'s scale, and a model on a slide not yet shown draws when entered',
  { timeout: 90_000 },
  async () => {
    const { page, errors } = await openPage('deck-models.html', () => window.deckReady);
    const slide = () => page.evaluate(() => deck.getIndices().h);
    const press = async (...keys) => {
      for (const key of keys) await page.keyboard.press(key);
    };
    // Two frames: a redraw the last key scheduled has happened (a redraw replaces the
    // explainer's controls, so a control focused before it is gone).
    const settle = () => twoFrames(page);
    try {
      // Far ahead, the model's slide is not laid out yet (reveal's viewDistance).
      assert.equal(
        await page.evaluate(() => getComputedStyle(document.getElementById('model').closest('section')).display),
        'none',
      );
      await press('ArrowRight');
      assert.equal(await slide(), 1, 'ArrowRight with nothing focused moves the deck');
      await page.waitForFunction(() => document.getElementById('steps').stages);
      // layout="compact" fits reveal's 960 × 700 slide under the theme's 42 px text, as on a
      // plain page (the slide.html test below): its type is sized from the page's root.
      const steps = await page.evaluate(() => document.getElementById('steps').offsetHeight);
      assert.ok(steps <= 700, `compact steps ${steps} px tall on a 700 px slide`);
      // (a preset's number shows while M is that preset's: the window's, chosen first)
      await page.evaluate(() => {
        const select = document.getElementById('steps').shadowRoot.querySelector('select');
        select.value = 'causal-window';
        select.dispatchEvent(new Event('change'));
      });
      assert.equal(await focusInside(page, 'steps', 'label:not([hidden]) > input[type=number]'), 'input[number]');
      await press('ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', '1', 'Space', 'n', 'p');
      assert.equal(await focusInside(page, 'steps', 'select'), 'select[select-one]');
      await press('ArrowDown', 'ArrowLeft', 'ArrowRight');
      assert.equal(await focusInside(page, 'steps', 'td[tabindex="0"]'), 'td');
      await press('ArrowRight', 'ArrowDown', 'ArrowLeft');
      assert.equal(await slide(), 1, "keys in the steps' fields, select and matrix stayed there");

      await page.evaluate(() => document.activeElement.blur());
      await press('ArrowRight');
      assert.equal(await slide(), 2);
      await page.waitForFunction(() => document.getElementById('explainer').result, null, { timeout: 30_000 });
      await settle();
      // layout="compact" stage="10": the sampling stage alone, within the slide.
      const explainer = await page.evaluate(() => document.getElementById('explainer').offsetHeight);
      assert.ok(explainer <= 700, `compact explainer ${explainer} px tall on a 700 px slide`);
      assert.equal(await focusInside(page, 'explainer', 'input[type=range]'), 'input[range]');
      await press('ArrowRight', 'ArrowRight', 'ArrowUp', 'End', 'ArrowLeft');
      assert.equal(await page.evaluate(() => document.getElementById('explainer').getAttribute('temperature')), '1.95');
      await settle();
      assert.equal(await focusInside(page, 'explainer', '[role=radio][tabindex="0"]'), 'button[button]');
      // Two quick arrows pick the token two before the last (8 → 6); each redraw keeps the
      // focus on the picked radio, so the second lands too.
      await press('ArrowLeft', 'ArrowLeft');
      await page.waitForFunction(() => document.getElementById('explainer').result.position === 6);
      await settle();
      assert.equal(await focusInside(page, 'explainer', 'input[type=text]'), 'input[text]');
      await press('End', 'Space', 'n', 'p', 'ArrowLeft', 'ArrowRight', 'Space');
      assert.equal(await slide(), 2, 'slider, token and text keys stayed in the explainer');

      await page.evaluate(() => {
        document.activeElement.blur();
        deck.slide(7);
      });
      await modelDrawn(page);
      // Drawn at the deck's scale: the box on screen is the laid-out box times reveal's scale,
      // and the head view's token labels have their height (it laid out while shown, not at 0 × 0).
      const box = await page.evaluate(() => {
        const el = document.getElementById('model');
        const label = el.shadowRoot.querySelector('attention-heatmap').shadowRoot.querySelector('svg text');
        return {
          ratio: el.getBoundingClientRect().width / el.offsetWidth,
          scale: deck.getScale(),
          label: label.getBoundingClientRect().height,
        };
      });
      assert.ok(Math.abs(box.ratio - box.scale) < 0.01, JSON.stringify(box));
      assert.ok(box.label > 8 * box.scale, JSON.stringify(box));
      assert.equal(await focusInside(page, 'model', 'input[type=text]'), 'input[text]');
      await press('End', 'Space', 'n', 'ArrowLeft', 'ArrowRight');
      assert.equal(await slide(), 7, "keys typed into the model's text stayed there");
      await page.evaluate(() => document.activeElement.blur());
      await press('ArrowLeft');
      assert.equal(await slide(), 6);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  '<attention-heatmap> grids written in the markup before the module script runs: upgraded without an error, every head and the average drawn',
  { timeout: 60_000 },
  async () => {
    // attention-model.js once defined <attention-heatmap> while its module was evaluated,
    // before index.js defined <attention-matrix>: a grid heatmap already in the markup was
    // upgraded then, and its `new AttentionMatrix()` threw "Illegal constructor".
    // Ready once example 2 (computed by the library) has drawn its grid.
    const { page, errors } = await openPage('static-grid.html', () =>
      document.getElementById('example').shadowRoot?.querySelector('attention-matrix'),
    );
    try {
      const grids = await page.evaluate(() =>
        ['grid', 'example'].map((id) =>
          [...document.getElementById(id).shadowRoot.querySelectorAll('attention-matrix')].map((m) => [
            m.getAttribute('label'),
            m.value && [...m.value.data],
          ]),
        ),
      );
      const average = [
        [0.55, 0.45, 0],
        [0.55, 0.45, 0],
        [0.45, 0.25, 0.3],
      ];
      assert.deepEqual(
        grids[0].map(([label]) => label),
        ['head 0', 'head 1', 'average of heads'],
      );
      // float32 cells: compared to the weights and their float64 average within float32 rounding
      const near = (got, want) =>
        want.flat().forEach((w, i) => assert.ok(Math.abs(got[i] - w) < 1e-7, `${got[i]} against ${w}`));
      near(grids[0][0][1], [
        [1, 0, 0],
        [0.5, 0.5, 0],
        [0.2, 0.3, 0.5],
      ]);
      near(grids[0][2][1], average);
      assert.equal(grids[1].length, 1);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  "a host that centres its text (create-vite's templates, reveal.js): the elements keep their own alignment, unless the element itself is styled",
  { timeout: 60_000 },
  async () => {
    // The alignment each text box inside an element computes, by element id.
    const { page, errors } = await openPage('centred.html', () =>
      ['steps', 'heatmap', 'flash', 'styled'].every((id) =>
        document.getElementById(id).shadowRoot?.querySelector('attention-matrix'),
      ),
    );
    try {
      const aligns = await page.evaluate(() => {
        const out = {};
        for (const id of ['steps', 'heatmap', 'flash', 'styled']) {
          const seen = new Set();
          const walk = (root) => {
            for (const el of root.querySelectorAll('*')) {
              // (th and buttons, and what they hold, centre by the browser's own style, whatever the
              // host; a screen reader's 1 px words are not drawn)
              if (
                el.firstChild?.nodeType === Node.TEXT_NODE &&
                el.textContent.trim() &&
                !el.closest('th, button') &&
                el.getBoundingClientRect().width > 1
              )
                seen.add(
                  getComputedStyle(el).textAlign === 'center'
                    ? `center: ${el.localName}.${el.className}`
                    : getComputedStyle(el).textAlign,
                );
              if (el.shadowRoot) walk(el.shadowRoot);
            }
          };
          walk(document.getElementById(id).shadowRoot);
          out[id] = [...seen].sort();
        }
        return out;
      });
      // Before: half the steps' stage titles centred, half not (the wide ones centred).
      for (const id of ['steps', 'heatmap', 'flash'])
        assert.ok(!aligns[id].some((a) => a.startsWith('center')), `${id}: ${aligns[id].join(', ')}`);
      assert.ok(
        aligns.styled.some((a) => a.startsWith('center')),
        `styled: ${aligns.styled.join(', ')}`,
      );
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  'another origin: the package from a CDN-like origin runs, with threads and the training Worker',
  { timeout: 90_000 },
  async () => {
    const { server, url: cdn } = await startServer({
      port: 0,
      served: ['bindings', 'dist', 'web'],
      cdn: true,
      docs: false,
    });
    servers.push(server);
    assert.notEqual(new URL(cdn).origin, new URL(hostUrl).origin);
    const { page, errors } = await openPage(`cdn.html?cdn=${encodeURIComponent(cdn)}`, () => window.result);
    try {
      const result = await page.evaluate(() => window.result);
      assert.deepEqual(
        result,
        { ...result, isolated: true, threads: 2, reason: null, identical: true },
        JSON.stringify(result),
      );
      // The training element starts its Worker (a blob: bootstrap) and reports progress.
      await page.evaluate(() => document.getElementById('training').train());
      await page.waitForFunction(() => document.getElementById('training').history.length >= 2, null, {
        timeout: 60_000,
      });
      const history = await page.evaluate(() => document.getElementById('training').history);
      assert.ok(
        history.every((h) => Number.isFinite(h.loss) && h.loss > 0),
        JSON.stringify(history),
      );
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

// An unpkg-style origin: the package at /attention-wasm@0.2.0/ (its files only, no
// node_modules inside), its dependency at /@huggingface/, as the CDN serves every package;
// or (`folder` 'attention-wasm') the package in a folder of its own name at an origin's root.
function unpkgFolder(folder = 'attention-wasm@0.2.0') {
  const dir = `${root}build/hosts-unpkg`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(`${dir}/${folder}`, { recursive: true });
  for (const name of ['bindings', 'dist', 'web', 'package.json'])
    symlinkSync(`${root}${name}`, `${dir}/${folder}/${name}`);
  symlinkSync(`${root}node_modules/@huggingface`, `${dir}/@huggingface`, 'dir');
  return dir;
}

for (const folder of ['attention-wasm@0.2.0', 'attention-wasm'])
  test(
    `an unpkg-style origin (/${folder}/): the tokenizer library is found beside the package at the first try, no 404`,
    { timeout: 60_000 },
    async () => {
      const { server, url: cdn } = await startServer({ port: 0, root: unpkgFolder(folder), served: null, cdn: true });
      servers.push(server);
      const { page, errors } = await openPage(
        `unpkg.html?cdn=${encodeURIComponent(cdn)}&dir=${encodeURIComponent(folder)}`,
        () => {
          const model = document.getElementById('model');
          return model.error || model.shadowRoot?.querySelector('[role=toolbar]');
        },
      );
      try {
        assert.equal(await page.evaluate(() => document.getElementById('model').error?.message ?? null), null);
        // Before: the path of a checkout was tried first, /<folder>/node_modules/@huggingface/…: a 404.
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    },
  );

test(
  'another origin without CORS: a failed fetch of the wasm, a model folder or the shipped model says the likely cause and what to try',
  { timeout: 60_000 },
  async () => {
    // The package's files on a second origin that sends no Access-Control-Allow-Origin.
    const { server, url: other } = await startServer({
      port: 0,
      served: ['bindings', 'dist', 'web'],
      isolated: false,
      docs: false,
    });
    servers.push(server);
    const { page, errors } = await openPage(
      `nocors.html?other=${encodeURIComponent(other)}`,
      () => window.result && document.querySelector('attention-model').error,
    );
    try {
      const result = await page.evaluate(() => window.result);
      const origin = new URL(other).origin.replaceAll('.', '\\.');
      const hint = `Failed to fetch \\(${origin} is another origin than this page's, ${new URL(hostUrl).origin.replaceAll('.', '\\.')}: if that server is up, it must allow this page to read the file with the header Access-Control-Allow-Origin \\(CORS\\).* or serve the file from this page's origin`;
      assert.match(
        result.wasmUrl,
        new RegExp(
          `^RangeError: init: could not fetch options\\.wasmUrl \\(${origin}/dist/attention\\.wasm\\): ${hint}`,
        ),
      );
      assert.match(
        result.loadModel,
        new RegExp(
          `^RangeError: loadModel: could not fetch ${origin}/web/elements/models/tiny-gpt2/config\\.json: ${hint}`,
        ),
      );
      assert.match(
        result.shipped,
        new RegExp(`^Error: cannot fetch ${origin}/web/elements/models/tiny-gpt2/config\\.json: ${hint}`),
      );
      // The element's error line carries it too.
      assert.match(
        await page.evaluate(() => document.querySelector('attention-model').error.message),
        new RegExp(hint),
      );
      // A file missing on the page's own origin is not blamed on CORS.
      assert.doesNotMatch(result.sameOrigin, /CORS|another origin/);
      // The only console errors are the browser's own CORS reports of the refused fetches
      // (and the 404 of the missing folder just above).
      assert.deepEqual(
        errors.filter((e) => !/blocked by CORS policy/.test(e) && !/^404 .*\/no-such-model\/config\.json$/.test(e)),
        [],
      );
    } finally {
      await page.close();
    }
  },
);

// A React or Vue app built by `vite build` (Vite 8, no config file) from
// tests/helpers/hosts/<name>-main.js, served and run.
async function frameworkApp(name, packages) {
  const app = `${root}build/${name}-app`;
  rmSync(app, { recursive: true, force: true });
  mkdirSync(`${app}/node_modules`, { recursive: true });
  symlinkSync(root, `${app}/node_modules/attention-wasm`, 'dir');
  for (const p of packages) symlinkSync(`${root}node_modules/${p}`, `${app}/node_modules/${p}`, 'dir');
  writeFileSync(`${app}/package.json`, '{ "name": "app", "private": true, "type": "module" }\n');
  copyFileSync(`${root}tests/helpers/hosts/${name}-main.js`, `${app}/main.js`);
  copyFileSync(`${root}tests/helpers/hosts/frameworks.js`, `${app}/frameworks.js`);
  writeFileSync(
    `${app}/index.html`,
    '<!doctype html><html><body><div id="root"></div><div id="twins"></div><pre id="out">loading</pre><script type="module" src="./main.js"></script></body></html>',
  );
  execFileSync(process.execPath, [`${root}node_modules/vite/bin/vite.js`, 'build'], { cwd: app, stdio: 'pipe' });
  const { server, url } = await startServer({ port: 0, root: `${app}/dist`, served: null });
  servers.push(server);
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${url}index.html`);
  await page.waitForFunction(() => document.getElementById('out').textContent !== 'loading', null, { timeout: 30_000 });
  const out = JSON.parse(await page.textContent('#out'));
  await page.close();
  return { out, errors };
}

function assertSameAsTwins(result) {
  assert.equal(result.length, 9);
  for (const { tag, framework, twin } of result) {
    assert.ok(twin && !/error|not JSON|must be/i.test(twin), `${tag} rendered by setAttribute: ${twin?.slice(0, 200)}`);
    assert.equal(framework, twin, tag);
  }
  // The README's own markup shows the matrix it says.
  assert.match(result[0].framework, /weights \[2 × 2\].*0\.490.*0\.510.*0\.520.*0\.480/);
}

test(
  'React 19: every element given its attributes as strings (set as properties) shows what setAttribute shows',
  { timeout: 120_000 },
  async () => {
    const { out, errors } = await frameworkApp('react', ['react', 'react-dom', 'scheduler']);
    assert.deepEqual(errors, []);
    assertSameAsTwins(out);
  },
);

test(
  'Vue 3: the same, and a reactive array given to .weights reads back and exports as JSON',
  { timeout: 120_000 },
  async () => {
    const { out, errors } = await frameworkApp('vue', ['vue']);
    assert.deepEqual(errors, []);
    assertSameAsTwins(out.result);
    assert.deepEqual(out.readBack.weights, [
      [
        [0.5, 0.5],
        [0.25, 0.75],
      ],
    ]);
    assert.deepEqual(JSON.parse(out.readBack.json).heads, [
      [
        [0.5, 0.5],
        [0.25, 0.75],
      ],
    ]);
  },
);

// softmax(X·Xᵀ/√d) in float64: <attention-steps> given only X (identity W_Q, W_K, W_V).
function selfAttentionWeights(x) {
  const d = x[0].length;
  return x.flatMap((q) => {
    const scores = x.map((k) => q.reduce((sum, qi, i) => sum + qi * k[i], 0) / Math.sqrt(d));
    const max = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - max));
    const z = e.reduce((a, b) => a + b);
    return e.map((v) => v / z);
  });
}

test(
  'Vue 3 template with isCustomElement: bound text, temperature and X update the elements; v-if removes the model elements (their model freed after the grace) and re-adds them',
  { timeout: 120_000 },
  async () => {
    const { out, errors } = await frameworkApp('vue-template', ['vue', '@vue']);
    assert.deepEqual(errors, []);
    assert.equal(out.error, undefined, out.error);
    const close = (actual, expected, what) =>
      actual.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-6, `${what}[${i}]: ${v} vs ${expected[i]}`));
    assert.deepEqual(out.first.explainer.split('|').slice(0, 2), ['The', 'Ġ']);
    close(
      out.first.steps,
      selfAttentionWeights([
        [1, 0],
        [0, 1],
        [1, 1],
      ]),
      'first weights',
    );
    // Vue state changed: the explainer read the new text, the model element too (its field shows it).
    assert.match(out.changed.explainer, /^A\|/);
    assert.equal(out.changed.model, 'A dog ran');
    assert.equal(out.changed.modelInput, 'A dog ran');
    assert.equal(out.changed.temperature, '0.5');
    close(
      out.changed.steps,
      selfAttentionWeights([
        [1, 0],
        [0, 3],
        [1, 1],
      ]),
      'weights after X changed',
    );
    // Each v-if round: both elements' model (one shared model) disposed and its memory freed,
    // then loaded anew and shown with the current text.
    assert.equal(out.rounds.length, 2);
    for (const round of out.rounds) {
      assert.deepEqual(round.disposed, [true, true]);
      assert.ok(round.freed > 100_000, `freed ${round.freed} bytes of wasm memory`);
      assert.equal(round.back, out.changed.explainer);
      assert.equal(round.shared, true);
    }
  },
);

test(
  'a running <attention-training> survives a move, pauses while off the page and resumes when back',
  { timeout: 90_000 },
  async () => {
    const { page, errors } = await openPage('moves.html', () => window.elementsReady);
    const state = () =>
      page.evaluate(() => {
        const t = document.getElementById('training');
        return { state: t.state, steps: t.history.at(-1)?.step ?? 0 };
      });
    const moreSteps = async (than) =>
      page.waitForFunction((n) => (document.getElementById('training').history.at(-1)?.step ?? 0) > n, than, {
        timeout: 30_000,
      });
    try {
      await page.evaluate(() => document.getElementById('training').train());
      await moreSteps(10);
      // A move (what reveal's scroll view or a keyed reorder does): training goes on.
      await page.evaluate(() => document.getElementById('b').append(document.getElementById('training')));
      const moved = await state();
      await moreSteps(moved.steps + 10);
      assert.equal((await state()).state, 'running');
      // Off the page: it pauses (and says so) ...
      await page.evaluate(() => {
        window.parked = document.getElementById('training');
        window.parked.remove();
      });
      await page.waitForFunction(() => window.parked.state === 'paused', null, { timeout: 5_000 });
      const text = await page.evaluate(() => window.parked.shadowRoot.textContent);
      assert.match(text, /Paused: the element left the page/);
      assert.match(text, /Resume/, 'the button offers Resume');
      // ... and resumes when it is back.
      const parked = await page.evaluate(() => window.parked.history.at(-1).step);
      await page.evaluate(() => document.getElementById('a').append(window.parked));
      assert.equal((await state()).state, 'running');
      await moreSteps(parked + 10);
      await page.evaluate(() => document.getElementById('training').reset());
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  'print: a lazily loaded <attention-sentiment> far down the page answers under print media and in a reveal.js print view',
  { timeout: 60_000 },
  async () => {
    const { page, errors } = await openPage('moves.html', () => window.elementsReady);
    try {
      // The shipped classifier is on the page's own origin: it also loads when the page is
      // idle (issue 45: a full-page screenshot scrolls nothing into view), and answers in print.
      await page.emulateMedia({ media: 'print' });
      await page.waitForFunction(() => document.getElementById('far').prediction, null, { timeout: 20_000 });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
    const deck = await openPage('deck.html?print-pdf', () => window.deckReady);
    try {
      await deck.page.waitForFunction(() => document.getElementById('late').prediction, null, { timeout: 20_000 });
      assert.deepEqual(deck.errors, []);
    } finally {
      await deck.page.close();
    }
  },
);

test(
  'colours follow the page, not the OS: a dark page with or without color-scheme gets the dark palette, theme="light" forces light',
  { timeout: 60_000 },
  async () => {
    for (const os of ['light', 'dark']) {
      const { page, errors } = await openPage(
        'scheme.html',
        () =>
          window.elementsReady &&
          [...document.querySelectorAll('attention-heatmap')].every((h) => h.shadowRoot.querySelector('svg line')),
      );
      try {
        await page.emulateMedia({ colorScheme: os });
        const strokes = await page.evaluate(() =>
          [...document.querySelectorAll('attention-heatmap')].map(
            (h) =>
              `${h.parentElement.id}${h.getAttribute('theme') ? `/${h.getAttribute('theme')}` : ''}: ${getComputedStyle(h.shadowRoot.querySelector('svg line:not(.other)')).stroke}`,
          ),
        );
        assert.deepEqual(
          strokes,
          [
            'light: rgb(37, 99, 235)',
            'dark: rgb(147, 197, 253)',
            'dark/light: rgb(37, 99, 235)',
            'declared: rgb(147, 197, 253)',
          ],
          `OS ${os}`,
        );
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    }
  },
);

test(
  "PNG export on a dark page under a CSS transform: the page's background, and text scaled with the boxes",
  { timeout: 60_000 },
  async () => {
    const { page, errors } = await openPage(
      'png.html',
      () => window.elementsReady && document.getElementById('scaled').cellAt(0, 0),
    );
    try {
      const plain = await page.evaluate(() => window.pngStats('plain'));
      const scaled = await page.evaluate(() => window.pngStats('scaled'));
      assert.deepEqual(plain.corner, [0x11, 0x22, 0x33], 'the page background, not white');
      assert.deepEqual(scaled.corner, [0x11, 0x22, 0x33]);
      assert.ok(
        Math.abs(scaled.width - plain.width / 2) <= 1,
        `half as wide on the half-scale slide: ${scaled.width} vs ${plain.width}`,
      );
      // The same drawing at half the size covers about the same share of its pixels with ink
      // (a little more: thin strokes at half size cross the ink threshold more often; 1.36×
      // with the matrix's axis titles); text drawn at the unscaled size covered about twice that.
      assert.ok(
        Math.abs(scaled.ink / plain.ink - 1) < 0.5,
        `ink share ${scaled.ink.toFixed(3)} vs ${plain.ink.toFixed(3)}`,
      );
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  '<attention-steps> on a 960 × 700 slide: layout="compact" fits, stages="…" shows a chosen subset in order, json="id" reads inputs from the page',
  { timeout: 60_000 },
  async () => {
    const { page, errors } = await openPage(
      'slide.html',
      () =>
        window.elementsReady &&
        ['full', 'compact', 'subset', 'by-id'].every((id) => document.getElementById(id).stages),
    );
    try {
      const heights = await page.evaluate(() =>
        Object.fromEntries(
          ['full', 'compact', 'subset'].map((id) => [id, document.getElementById(id).getBoundingClientRect().height]),
        ),
      );
      assert.ok(heights.full > 700, `the full layout is taller than a slide (${heights.full} px)`);
      assert.ok(heights.compact <= 676, `compact fits the slide's 676 px inside its padding: ${heights.compact} px`);
      const shown = await page.evaluate(() =>
        [...document.getElementById('subset').shadowRoot.querySelectorAll('section')]
          .filter((s) => !s.hidden)
          .map((s) => s.dataset.stage),
      );
      assert.deepEqual(shown, ['scaled', 'softmax', 'output']);
      // Changing the subset keeps the inputs and recomputes nothing.
      await page.evaluate(() => document.getElementById('subset').setAttribute('stages', 'inputs'));
      assert.deepEqual(
        await page.evaluate(() =>
          [...document.getElementById('subset').shadowRoot.querySelectorAll('section')]
            .filter((s) => !s.hidden)
            .map((s) => s.dataset.stage),
        ),
        ['inputs'],
      );
      // json="ex-json": X = [[1,0],[0,1],[1,1]], causal: row 0 sees only key 0.
      const weights = await page.evaluate(() => Array.from(document.getElementById('by-id').stages.weights.data));
      assert.deepEqual(weights.slice(0, 3), [1, 0, 0]);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  'Markdown (marked) through DOMPurify: the default config drops the elements; domPurifyConfig keeps them, their attributes and nothing hostile',
  { timeout: 60_000 },
  async () => {
    const { page, errors } = await openPage(
      'markdown.html',
      () => window.markdownReady && document.getElementById('s')?.stages,
    );
    try {
      const result = await page.evaluate(() => ({
        defaults: document.querySelectorAll(
          '#defaults attention-matrix, #defaults attention-heatmap, #defaults attention-steps',
        ).length,
        matrix: Array.from(document.getElementById('m').value.data),
        editable: document.getElementById('m').editable,
        onclick: document.getElementById('m').hasAttribute('onclick'),
        heads: document.getElementById('h').weights,
        linked: [document.getElementById('h').getAttribute('for'), document.getElementById('h').getAttribute('link')],
        steps: Array.from(document.getElementById('s').stages.weights.data).slice(0, 3),
        script: window.__script ?? null,
      }));
      assert.equal(result.defaults, 0, "DOMPurify's defaults drop custom elements");
      assert.deepEqual(result.matrix, [0.49, 0.51, 0.52, 0.48].map(Math.fround));
      assert.equal(result.editable, true);
      assert.equal(result.onclick, false, 'event handlers are still removed');
      assert.deepEqual(result.heads, [
        [
          [0.5, 0.5],
          [0.2, 0.8],
        ],
      ]);
      assert.deepEqual(
        result.linked,
        [null, 'm'],
        'DOMPurify drops for= on custom elements whatever the options; link= stays',
      );
      assert.deepEqual(result.steps, [1, 0, 0], 'causal: row 0 sees key 0 only');
      assert.equal(result.script, null, 'scripts inside an element are removed');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  },
);

test(
  '"Copy code" reproduces the element\'s bits in Node: <attention-steps> example 2 in Chromium, its snippet run by node',
  { timeout: 60_000 },
  async () => {
    const { page, errors } = await openPage(
      'slide.html',
      () => window.elementsReady && document.getElementById('full').stages,
    );
    let shown, code;
    try {
      ({ shown, code } = await page.evaluate(() => {
        const el = document.getElementById('full');
        return { shown: { w: Array.from(el.stages.weights.data), y: Array.from(el.stages.Y.data) }, code: el.toCode() };
      }));
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
    assert.match(code, /init\(\{ simd: 'baseline' \}\)/, 'the snippet asks for the build the element used');
    // As a reader runs it (inside this package, so 'attention-wasm' resolves), plus one line
    // that prints its results exactly.
    const file = `${root}tests/copy-code.tmp.mjs`;
    writeFileSync(
      file,
      `${code}\nconsole.error(JSON.stringify({ w: Array.from(trace.weights.data), y: Array.from(Y.data) }));\n`,
    );
    try {
      const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const ran = JSON.parse(run.stderr.trim().split('\n').at(-1));
      assert.deepEqual(ran, shown, 'bit for bit');
    } finally {
      rmSync(file, { force: true });
    }
  },
);
