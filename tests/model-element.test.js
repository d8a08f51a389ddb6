// <attention-model> in headless Chromium on the tiny Hugging Face fixtures (GPT-2, BERT with
// a [MASK], a bfloat16 Llama in the neuron view, a DistilBERT classifier): the views are drawn, every
// map equals what the public API computes for the same text, attention rows sum to 1, the
// next-token and label probabilities are the softmax of the API's logits, the keyboard
// reaches every control, axe finds nothing serious, and nothing overflows at 390 px.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
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
  await page.goto(`${url}tests/helpers/model-element.html`);
  await page.waitForFunction(
    () => ['gpt2', 'bert', 'llama', 'cls'].every((id) => document.getElementById(id).toJSON().attentions),
    null,
    { timeout: 30_000 },
  );
});

test.after(async () => {
  await browser?.close();
  server?.close();
});

test("the three views are drawn; each map equals the API, rows sum to 1; the heads' extras are the API's softmax", async () => {
  const report = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    const out = {};
    for (const id of ['gpt2', 'bert', 'llama', 'cls']) {
      const el = document.getElementById(id);
      const json = el.toJSON();
      const model = await attn.loadModel(el.getAttribute('src'));
      const api = model.forward(el.text, { attentions: true });
      const expected = api.attentions[json.layer].data;
      const [H, T] = json.attentions.shape;
      let maxRowError = 0;
      for (let r = 0; r < H * T; r++) {
        const sum = json.attentions.data.slice(r * T, (r + 1) * T).reduce((a, b) => a + b, 0);
        maxRowError = Math.max(maxRowError, Math.abs(sum - 1));
      }
      const root = el.shadowRoot;
      out[id] = {
        equal: json.attentions.data.every((x, i) => x === expected[i]),
        tokens: json.tokens.map((t) => t.label),
        names: json.tokens.map((t) => t.name),
        maxRowError,
        lines: root.querySelector('attention-heatmap')?.shadowRoot.querySelectorAll('line').length ?? 0,
        colours: new Set(
          Array.from(
            root.querySelector('attention-heatmap')?.shadowRoot.querySelectorAll('line') ?? [],
            (l) => l.style.stroke,
          ),
        ).size,
        caption: root.querySelector('.caption')?.textContent ?? '',
        toolbars:
          root.querySelectorAll('.export').length +
          (root.querySelector('attention-heatmap')?.shadowRoot.querySelectorAll('.export').length ?? 0),
        thumbs: root.querySelectorAll('button.thumb').length,
        neuronRows: root.querySelectorAll('table.neuron tbody tr').length,
        extra: Array.from(root.querySelectorAll('table.probabilities tbody tr'), (tr) => [
          tr.querySelector('th').textContent,
          Number(tr.querySelector('.value').textContent),
        ]),
        logits: api.logits ? Array.from(api.logits.data) : null,
        probabilities: api.probabilities ? Array.from(api.probabilities.data) : null,
        vocab: model.descriptor.vocabSize,
        heads: model.descriptor.numHeads,
        layers: model.descriptor.numLayers,
        status: root.querySelector('.status')?.textContent ?? '',
        pieces:
          id === 'gpt2' ? (await (await fetch(`${el.getAttribute('src')}tokenizer.json`)).json()).model.vocab : null,
        matrixDtype: model.matrixDtype,
      };
      model.dispose();
    }
    return out;
  });
  for (const [id, r] of Object.entries(report)) {
    assert.ok(r.equal, `${id}: the element's maps equal the API's`);
    assert.ok(r.maxRowError < 1e-5, `${id}: rows sum to 1 (max error ${r.maxRowError})`);
  }
  const T = report.gpt2.tokens.length;
  // The head view as bertviz's: every head's lines, a colour each (the selected query's on
  // screen), under a caption that says which side is the query and what width and opacity
  // mean; one export toolbar.
  assert.equal(report.gpt2.lines, report.gpt2.heads * T * T, 'gpt2: the head view draws T² lines per head');
  assert.equal(report.gpt2.colours, report.gpt2.heads, 'a colour per head');
  assert.ok(
    report.gpt2.caption.startsWith(
      `Head view. Layer 0, all ${report.gpt2.heads} heads, a colour each: lines join the selected query (in bold: “${report.gpt2.names[T - 1]}” until another token is clicked or focused) to each key token (right) it can see (a decoder: itself and the tokens before it); the thicker and more opaque the line, the more weight the query gives that key.`,
    ),
    report.gpt2.caption,
  );
  // The marks the token labels use are named (a lone space token is "␣"; GPT-2's likeliest
  // next tokens here include a control byte and pieces of a character).
  assert.match(
    report.gpt2.caption,
    / Tokens: ␣ = space, <0x08> = a byte by its code \(a control byte, or one byte of a character split across tokens\)/,
  );
  assert.equal(report.gpt2.toolbars, 1, 'one export toolbar');
  assert.match(
    report.llama.caption,
    /^Neuron view\. Layer 1, head 2: how the query “.*” scores each key: q · k \(head_dim 8\) scaled, then softmax/,
  );
  assert.deepEqual(report.gpt2.tokens.slice(0, 3), ['The', '␣', 'c'], 'tokens are labelled with the text they cover');
  assert.equal(
    report.bert.thumbs,
    report.bert.layers * report.bert.heads,
    'bert: the model view has layers × heads maps',
  );
  assert.equal(report.llama.neuronRows, report.llama.tokens.length, 'llama: the neuron view has a row per key');
  // The Llama on this page is the BF16 fixture: its matrices stay bfloat16 (the relaxed build's
  // widening kernels drew the maps above) and the element says so.
  assert.equal(report.llama.matrixDtype, 'bfloat16');
  assert.match(
    report.llama.status,
    / [\d,]+ parameters \(bfloat16 matrices; in memory \d+\.\d [KM]iB: the runner's weights laid out for its SIMD kernels\)$/,
  );
  assert.doesNotMatch(report.gpt2.status, /bfloat16/);
  // GPT-2's next token: the 8 bars are the 8 largest of softmax(last logits), 3 decimals.
  const V = report.gpt2.vocab;
  const last = report.gpt2.logits.slice((T - 1) * V);
  const max = Math.max(...last);
  const p = last.map((x) => Math.exp(x - max));
  const total = p.reduce((a, b) => a + b, 0);
  const top = p
    .map((x) => x / total)
    .sort((a, b) => b - a)
    .slice(0, 8);
  assert.deepEqual(
    report.gpt2.extra.map(([, v]) => v),
    top.map((x) => Number(x.toFixed(3))),
  );
  // The shipped tiny GPT-2 says what it is; its predictions are told apart: a token that is one
  // byte of a character shows that byte, the byte its vocabulary piece stands for (GPT-2's
  // byte alphabet, rebuilt here), never a bare <?>.
  assert.match(
    report.gpt2.status,
    /^tiny GPT-2, random weights: its predictions are meaningless, the attention arithmetic is exact · 2 layers × 4 heads/,
  );
  const labels = report.gpt2.extra.map(([label]) => label);
  assert.equal(new Set(labels).size, 8, labels.join(' '));
  assert.ok(!labels.some((l) => l.includes('<?>')), labels.join(' '));
  const printable = (b) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
  const alphabet = new Map();
  for (let b = 0, n = 0; b < 256; b++) alphabet.set(b, String.fromCodePoint(printable(b) ? b : 256 + n++));
  const pieceOf = new Map(Object.entries(report.gpt2.pieces).map(([piece, id]) => [id, piece]));
  const ids = Array.from(p.keys())
    .sort((a, b) => p[b] - p[a])
    .slice(0, 8);
  const bytes = labels.map((l, i) => [/^<0x([0-9A-F]{2})>$/.exec(l)?.[1], ids[i]]).filter(([b]) => b);
  assert.ok(bytes.length >= 2, `byte tokens among the predictions: ${labels.join(' ')}`);
  for (const [hex, id] of bytes)
    assert.equal(pieceOf.get(id), alphabet.get(parseInt(hex, 16)), `<0x${hex}> is id ${id}`);
  // The classifier's labels.
  assert.deepEqual(
    report.cls.extra.map(([label]) => label),
    ['NEGATIVE', 'POSITIVE'],
  );
  assert.deepEqual(
    report.cls.extra.map(([, v]) => v),
    report.cls.probabilities.map((x) => Number(x.toFixed(3))),
  );
  // BERT's [MASK] predictions are listed.
  assert.equal(report.bert.extra.length, 8);
  assert.deepEqual(errors, []);
});

test('keyboard: views, a model-view map and the text; the element recomputes', async () => {
  const el = page.locator('#bert');
  await el.locator('button.thumb[aria-label="layer 1 head 2"]').focus();
  await page.keyboard.press('Enter');
  assert.equal(await el.getAttribute('view'), 'head');
  assert.equal(await el.getAttribute('layer'), '1', 'the attributes count from 0, as the thumb does');
  assert.equal(await el.getAttribute('head'), '2');
  await el.locator('button', { hasText: 'Neuron view' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('bert').shadowRoot.querySelector('table.neuron'));
  const input = el.locator('input[type=text]');
  await input.fill('the dog sat');
  await input.press('Enter');
  await page.waitForFunction(() => document.getElementById('bert').toJSON().text === 'the dog sat');
  const tokens = await page.evaluate(() =>
    document
      .getElementById('bert')
      .toJSON()
      .tokens.map((t) => t.text),
  );
  assert.deepEqual(tokens, ['[CLS]', 'the', 'dog', 'sat', '[SEP]']);
  assert.deepEqual(errors, []);
});

test('a URL checkpoint is kept in the Cache API: loading it again fetches nothing', async () => {
  const fetched = [];
  const listen = (r) => {
    if (r.url().includes('/tests/fixtures/hf/tiny-llama/')) fetched.push(r.url());
  };
  page.on('request', listen);
  const events = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    await caches.delete('attention-wasm-models');
    const first = [],
      second = [];
    (await attn.loadModel('/tests/fixtures/hf/tiny-llama/', { onProgress: (p) => first.push(p) })).dispose();
    (await attn.loadModel('/tests/fixtures/hf/tiny-llama/', { onProgress: (p) => second.push(p) })).dispose();
    const byFile = (events) =>
      [...new Map(events.filter((p) => !p.stage).map((p) => [p.file, p.cached ?? false]))].map(([f, c]) => `${f}:${c}`);
    return { first: byFile(first), second: byFile(second) };
  });
  page.off('request', listen);
  const files = [
    'config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'generation_config.json',
    'model.safetensors',
  ];
  assert.deepEqual(
    fetched.map((u) => u.split('/').pop()).sort(),
    files.sort(),
    'the first load fetched each file once',
  );
  assert.deepEqual(events.first.sort(), files.map((f) => `${f}:false`).sort(), 'the first load downloaded every file');
  assert.deepEqual(
    events.second.sort(),
    files.map((f) => `${f}:true`).sort(),
    'the second load read every file from the cache',
  );
});

test('in a module Worker without an import map: the tokenizer library found beside the package; the same maps as the page', async () => {
  const result = await page.evaluate(async () => {
    const worker = new Worker('/tests/helpers/model-worker.js', { type: 'module' });
    const text = 'The cat sat on the mat.';
    const answer = await new Promise((resolve) => {
      worker.onmessage = ({ data }) => resolve(data);
      worker.postMessage({ src: '/tests/fixtures/hf/tiny-gpt2/', text });
    });
    worker.terminate();
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    const model = await attn.loadModel('/tests/fixtures/hf/tiny-gpt2/');
    const here = Array.from(model.forward(text, { attentions: true }).attentions[0].data);
    model.dispose();
    return { ...answer, here };
  });
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual(result.tokens.slice(0, 4), ['The', 'Ġ', 'c', 'at']);
  assert.deepEqual(result.attention, result.here);
});

test('seeded random text, views, layers, heads and queries: no exception or console error, exports never throw, recovery', async () => {
  const problems = await page.evaluate(async () => {
    let s = 20261124;
    const random = () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    };
    const pick = (xs) => xs[Math.floor(random() * xs.length)];
    const odd = ['0', '-1', '1', '2', '3', '99', '1.5', 'NaN', 'Infinity', '', 'x', '1e9', ' 2 '];
    const text = () =>
      Array.from({ length: pick([0, 1, 5, 40, 200]) }, () =>
        String.fromCodePoint(pick([32, 65 + Math.floor(random() * 26), 0x301, 0x4e00, 0x1f600, 0xd800, 0])),
      ).join('');
    const settle = () =>
      new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0))));
    const problems = [];
    const el = document.getElementById('llama');
    for (let round = 0; round < 60; round++) {
      try {
        for (const name of ['view', 'layer', 'head', 'query'])
          if (random() < 0.5)
            el.setAttribute(name, name === 'view' ? pick(['head', 'model', 'neuron', 'lines', '']) : pick(odd));
        if (random() < 0.6) el.setAttribute('text', text());
        await settle();
        el.toJSON();
        el.toCode();
      } catch (error) {
        problems.push(`round ${round}: ${error.message}`);
      }
    }
    for (const name of ['view', 'layer', 'head', 'query']) el.removeAttribute(name);
    el.setAttribute('text', 'Attention is all you need!');
    await settle();
    const json = el.toJSON();
    if (!json.attentions || el.error) problems.push(`no recovery: ${el.error?.message}`);
    return problems;
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(
    errors.filter((e) => !/404/.test(e)),
    [],
  );
});

test('axe finds nothing serious; nothing overflows at 390 px; a bad source is an error message, then recovery', async () => {
  await page.addScriptTag({ path: fileURLToPath(new URL('../node_modules/axe-core/axe.min.js', import.meta.url)) });
  const violations = await page.evaluate(async () =>
    (await window.axe.run(document)).violations
      .filter((v) => ['serious', 'critical'].includes(v.impact))
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' > ')).join('; ')}`),
  );
  assert.deepEqual(violations, []);
  await page.setViewportSize({ width: 390, height: 800 });
  for (const view of ['head', 'model', 'neuron']) {
    await page.evaluate((view) => {
      for (const el of document.querySelectorAll('attention-model')) el.setAttribute('view', view);
    }, view);
    await page.waitForTimeout(100);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${view} view: ${overflow} px of sideways scroll at 390 px`);
    // At 390 px the views scroll inside the element: still nothing serious for axe (the
    // neuron table's scrolling region takes focus).
    const narrow = await page.evaluate(async () =>
      (await window.axe.run(document)).violations
        .filter((v) => ['serious', 'critical'].includes(v.impact))
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' > ')).join('; ')}`),
    );
    assert.deepEqual(narrow, [], `${view} view at 390 px`);
  }
  await page.evaluate(() => document.getElementById('gpt2').setAttribute('src', '/tests/fixtures/hf/no-such-model/'));
  await page.waitForFunction(() => document.getElementById('gpt2').error);
  const message = await page.evaluate(() => document.getElementById('gpt2').error.message);
  assert.match(message, /^loadModel: .*no-such-model.* has no config.json/);
  // The error line says what to try: the folder's URL, the shipped model offline, a Hub folder.
  const hint = await page.evaluate(() => document.getElementById('gpt2').shadowRoot.querySelector('.hint').textContent);
  assert.match(hint, /^Try: the URL of the folder that holds config.json/);
  assert.match(
    hint,
    /Offline, the tiny GPT-2 this package ships \(random weights: its predictions mean nothing, its arithmetic is exact\): src="tiny-gpt2"\./,
  );
  await page.evaluate(() => document.getElementById('gpt2').setAttribute('src', '/tests/fixtures/hf/tiny-gpt2/'));
  await page.waitForFunction(
    () => document.getElementById('gpt2').toJSON().attentions && !document.getElementById('gpt2').error,
  );
  assert.deepEqual(
    errors.filter((e) => !/404/.test(e)),
    [],
  );
});
