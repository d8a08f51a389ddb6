// Attribute fuzzer for the custom elements, in headless Chromium: seeded random values
// (near-valid JSON of random shapes, { data, shape } with huge or fractional dims, strings
// such as "-Infinity", garbage, numbers written oddly, deep nesting) for every observed
// attribute of every element. THE RULE: no uncaught exception or console error, no freeze
// (every value answered within 1.5 s; a freeze took 24-90 s), toCode() and
// toJSON() never throw, and the element recovers on a good value afterwards. Replay with
// ATTN_ELEMENT_FUZZ_SEED=<seed>; ATTN_ELEMENT_FUZZ_ROUNDS resizes it (default 600).
import test from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';

const SEED = Number(process.env.ATTN_ELEMENT_FUZZ_SEED ?? 20261124);
const ROUNDS = Number(process.env.ATTN_ELEMENT_FUZZ_ROUNDS ?? 600);

// Runs in the page: the generator, the elements' attributes, and the checking loop.
async function fuzz({ seed, rounds }) {
  let s = seed >>> 0;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const int = (n) => Math.floor(random() * n);
  const ODD_NUMBERS = [
    '0',
    '-0',
    '1',
    '2.5',
    '1e9',
    '1e-9',
    '-1',
    'Infinity',
    '-Infinity',
    'NaN',
    '0x10',
    ' 3 ',
    '',
    '1e308',
    '9007199254740993',
    '−1',
    '∞',
  ];
  const ODD_VALUES = [
    0,
    1,
    -1,
    0.5,
    1e30,
    -1e30,
    3e38,
    '-Infinity',
    'Infinity',
    'NaN',
    '−∞',
    'x',
    null,
    true,
    [],
    {},
    1e-45,
  ];
  const dim = () => pick([0, 1, 2, 3, 5, int(40), 2 ** 31, 1e7, -1, 1.5, '2', null]);
  const rows = () => {
    const r = pick([0, 1, 2, 3, int(8), 33, 70]),
      c = pick([0, 1, 2, 3, int(8), 33]);
    const ragged = random() < 0.15;
    return Array.from({ length: r }, (_, i) =>
      Array.from({ length: ragged && i === r - 1 ? Math.max(0, c - 1) : c }, () =>
        random() < 0.1 ? pick(ODD_VALUES) : Math.round((random() * 4 - 2) * 100) / 100,
      ),
    );
  };
  const json = () => {
    const kind = int(8);
    if (kind === 0) return JSON.stringify(rows());
    if (kind === 1) return JSON.stringify([rows(), rows()]);
    if (kind === 2)
      return JSON.stringify({
        shape: Array.from({ length: int(5) }, dim),
        data: Array.from({ length: int(10) }, () => random()),
      });
    if (kind === 3) return JSON.stringify(rows()).slice(0, int(20)); // truncated JSON
    if (kind === 4) return '['.repeat(int(3000)) + ']'.repeat(int(3000)); // deep nesting
    if (kind === 5) return pick(ODD_NUMBERS);
    if (kind === 6)
      return pick([
        'none',
        'causal',
        'causal-bottom-right',
        'diagonal',
        'a,b,c',
        '["a","b"]',
        '<script>x</script>',
        '"quoted"',
        '{}',
        'null',
        'true',
      ]);
    return JSON.stringify(pick(ODD_VALUES));
  };
  const value = (name) => {
    if (
      ['precision', 'block', 'dim', 'layer', 'example', 'head', 'seed', 'lr', 'steps', 'every'].includes(name) &&
      random() < 0.6
    )
      return pick(ODD_NUMBERS);
    if (['tokens', 'query-tokens', 'key-tokens', 'row-labels', 'col-labels', 'drop'].includes(name) && random() < 0.6)
      return Array.from({ length: pick([0, 1, 3, 70, 300]) }, (_, i) =>
        pick([`t${i}`, '', ',', '"', '</script>', '∞']),
      ).join(',');
    if (['view', 'heat', 'kind', 'task', 'preset', 'layout', 'theme', 'stages'].includes(name) && random() < 0.6)
      return pick([
        'grid',
        'lines',
        'sequential',
        'diverging',
        'rope',
        'alibi',
        'laplacian',
        'copy',
        'sort',
        'compact',
        'dark',
        'light',
        'scaled,softmax',
        'nope',
        '',
      ]);
    return json();
  };
  const TAGS = [
    'attention-matrix',
    'attention-steps',
    'attention-flash',
    'attention-heatmap',
    'positional-encoding',
    'token-pruning',
  ];
  const GOOD = {
    'attention-matrix': { value: '[[1,2],[3,4]]' },
    'attention-steps': { example: '2' },
    'attention-flash': { q: '[[1,0]]', k: '[[1,0],[0,1]]', v: '[[1],[2]]' },
    'attention-heatmap': { weights: '[[0.5,0.5],[0.2,0.8]]' },
    'positional-encoding': { kind: 'rope' },
    'token-pruning': { tokens: 'a,b,c', dim: '4' },
  };
  const failures = [];
  const settle = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  for (let round = 0; round < rounds; round++) {
    const tag = TAGS[round % TAGS.length];
    const Element = customElements.get(tag);
    const el = document.createElement(tag);
    document.body.append(el);
    const attributes = {};
    for (const name of Element.observedAttributes) if (random() < 0.5) attributes[name] = value(name);
    const t0 = performance.now();
    try {
      for (const [name, v] of Object.entries(attributes)) el.setAttribute(name, v);
      await settle();
      const ms = performance.now() - t0;
      if (ms > 1500)
        failures.push({
          round,
          tag,
          attributes: JSON.stringify(attributes).slice(0, 300),
          what: `took ${ms.toFixed(0)} ms`,
        });
      el.toCode?.();
      JSON.stringify(el.toJSON?.());
      // Recovery: the attributes given, then a good value.
      for (const name of Object.keys(attributes)) el.removeAttribute(name);
      for (const [name, v] of Object.entries(GOOD[tag])) el.setAttribute(name, v);
      await new Promise((resolve) => setTimeout(resolve, 30));
      const alert = el.shadowRoot.querySelector('[role="alert"]')?.textContent;
      if (alert)
        failures.push({
          round,
          tag,
          attributes: JSON.stringify(attributes).slice(0, 300),
          what: `no recovery: ${alert}`,
        });
    } catch (error) {
      failures.push({
        round,
        tag,
        attributes: JSON.stringify(attributes).slice(0, 300),
        what: `threw ${error?.name}: ${error?.message}`,
      });
    }
    el.remove();
  }
  return failures;
}

test(
  `element attribute fuzzer: ${ROUNDS} random attribute sets (seed ${SEED}), no exception, no freeze, recovery`,
  { timeout: 600_000 },
  async (t) => {
    const { server, url } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'tests'], docs: false });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource'))
          errors.push(`console: ${m.text()}`);
      });
      await page.goto(`${url}tests/helpers/blank.html`);
      await page.evaluate(async () => {
        await import('/web/elements/index.js');
        await (await import('/web/elements/api.js')).getApi();
      });
      const started = Date.now();
      const failures = await page.evaluate(fuzz, { seed: SEED, rounds: ROUNDS });
      t.diagnostic(
        `${ROUNDS} rounds in ${((Date.now() - started) / 1000).toFixed(1)} s; replay: ATTN_ELEMENT_FUZZ_SEED=${SEED}`,
      );
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failures`);
      assert.deepEqual(errors.slice(0, 10), []);
    } finally {
      await browser.close();
      server.close();
    }
  },
);
