// A tokenizer.json whose regexes backtrack catastrophically (issue 32 item 2), in headless
// Chromium: the Split pre-tokenizer `^(\w+\s?)*$` froze an <attention-model> tab for
// more than 30 s on a 14-word sentence, and a Replace normalizer `(a|aa)+$` took 13.6 s. Both
// are refused when the checkpoint loads, by the API and by the element, with the place in the
// file named, and the page keeps painting (no frame gap near a second) while it happens.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/hf/tiny-gpt2/', import.meta.url));
const TEXT = 'the cat sat on the mat and the dog ran to the big red door, then stopped!';
let server, url, browser, page;

// /hostile-split/ and /hostile-replace/: the tiny GPT-2 with one hostile step in its tokenizer.json.
function hostileTokenizer(kind) {
  const tokenizer = JSON.parse(readFileSync(`${FIXTURE}tokenizer.json`, 'utf8'));
  if (kind === 'split') {
    tokenizer.pre_tokenizer = {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: '^(\\w+\\s?)*$' }, behavior: 'Isolated', invert: false },
        tokenizer.pre_tokenizer,
      ],
    };
  } else {
    tokenizer.normalizer = { type: 'Replace', pattern: { Regex: '(a|aa)+$' }, content: 'b' };
  }
  return JSON.stringify(tokenizer);
}

test.before(async () => {
  ({ server, url } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'tests'] }));
  browser = await launchChromium();
  page = await browser.newPage();
  for (const kind of ['split', 'replace']) {
    const tokenizer = hostileTokenizer(kind);
    await page.route(`**/hostile-${kind}/*`, (route) => {
      const name = new URL(route.request().url()).pathname.split('/').pop();
      if (name === 'tokenizer.json') return route.fulfill({ body: tokenizer, contentType: 'application/json' });
      if (['config.json', 'model.safetensors', 'tokenizer_config.json'].includes(name))
        return route.fulfill({ path: `${FIXTURE}${name}` });
      return route.fulfill({ status: 404, body: '' });
    });
  }
  await page.goto(`${url}tests/helpers/blank.html`);
});

test.after(async () => {
  await browser?.close();
  server?.close();
});

test('the API refuses both tokenizers by the place in the file, at once', async () => {
  const results = await page.evaluate(async () => {
    const { init } = await import('/bindings/js/browser.js');
    const attn = await init({ simd: 'baseline' });
    const out = {};
    for (const kind of ['split', 'replace']) {
      const started = performance.now();
      try {
        await attn.loadModel(`/hostile-${kind}/`, { cache: false });
        out[kind] = { message: 'loaded' };
      } catch (e) {
        out[kind] = { message: `${e.name}: ${e.message}`, ms: performance.now() - started };
      }
    }
    return out;
  });
  assert.match(
    results.split.message,
    /^RangeError: loadModel: tokenizer\.json: pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex /,
  );
  assert.match(results.replace.message, /^RangeError: loadModel: tokenizer\.json: normalizer\.pattern\.Regex /);
  assert.ok(results.split.ms < 2000 && results.replace.ms < 2000, JSON.stringify(results));
});

test('<attention-model> on the hostile checkpoint shows the named error and the page keeps painting', async () => {
  const result = await page.evaluate(async (text) => {
    await import('/web/elements/index.js');
    // The longest gap between animation frames while the element loads.
    let last = performance.now();
    let longest = 0;
    let painting = true;
    const frame = (now) => {
      longest = Math.max(longest, now - last);
      last = now;
      if (painting) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    const el = document.createElement('attention-model');
    el.setAttribute('text', text);
    el.setAttribute('src', '/hostile-split/');
    document.body.append(el);
    const started = performance.now();
    while (!el.error && performance.now() - started < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
    painting = false;
    const shown = el.shadowRoot.textContent;
    el.remove();
    return {
      error: el.error ? `${el.error.name}: ${el.error.message}` : null,
      ms: performance.now() - started,
      longest,
      shown,
    };
  }, TEXT);
  assert.match(
    result.error ?? '',
    /^RangeError: loadModel: tokenizer\.json: pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex /,
  );
  assert.match(result.shown, /pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex/);
  assert.ok(result.longest < 500, `the longest frame gap was ${result.longest.toFixed(0)} ms`);
});
