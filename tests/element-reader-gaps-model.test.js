// What a reader who sees only a screenshot of <attention-heatmap>'s lines view,
// <attention-model> or <attention-explainer> could still not say (issue 45, round 5), now said
// by the views in headless Chromium: numbers on screen without hovering (a phone has no hover,
// a screenshot none), one colour scale for the strips a reader compares, the largest entries
// of long strips as numbers, the neuron view's legends beside its table and q·k as a row sum,
// readable head colours on a dark page.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openElementPage, startElementBrowser } from './helpers/element-page.js';

let url, browser, close;

test.before(async () => {
  ({ url, browser, close } = await startElementBrowser());
});

test.after(() => close?.());

const open = (name, width, scheme) => openElementPage(browser, url, name, width, scheme);
// A number as the views print it: '−0.250' → -0.25.
const number = (text) => Number(text.replace('−', '-'));
// 'name 0.123 · name 0.456' → [['name', 0.123], …]
const entries = (text) =>
  text.split(' · ').map((entry) => {
    const at = entry.lastIndexOf(' ');
    return [entry.slice(0, at), number(entry.slice(at + 1))];
  });

// Three heads of 3 × 3 weights (rows sum to 1), by hand.
const HEADS = [
  [
    [1, 0, 0],
    [0.3, 0.7, 0],
    [0.5, 0.125, 0.375],
  ],
  [
    [1, 0, 0],
    [0.9, 0.1, 0],
    [0.25, 0.25, 0.5],
  ],
  [
    [1, 0, 0],
    [0.6, 0.4, 0],
    [0.125, 0.75, 0.125],
  ],
];

// A lines view of HEADS on the page, head `head`; resolves to the readout's lines (after
// `act`, run in the page with the element).
async function linesReadout(page, head, act = '') {
  return page.evaluate(
    ([heads, head, act]) => {
      const h = document.createElement('attention-heatmap');
      h.setAttribute('view', 'lines');
      h.setAttribute('head', head);
      h.setAttribute('tokens', 'the,cat,sat');
      document.querySelector('main').append(h);
      h.weights = heads;
      if (act) new Function('h', act)(h);
      return [...h.shadowRoot.querySelectorAll('.readout .weights')].map((line) => ({
        text: line.textContent,
        bold: line.querySelector('b')?.textContent,
        swatch: line.querySelector('.swatch')?.style.background ?? null,
        visible: line.getBoundingClientRect().height > 0,
      }));
    },
    [HEADS, head, act],
  );
}

test('the lines view writes the selected token’s weights on screen without hover: the last query first, a clicked token after', async () => {
  const { page } = await open('heatmap-lines', 390);
  // One head: the last query's row, in token order, the largest in bold.
  const one = await linesReadout(page, '2');
  assert.equal(one.length, 1);
  assert.ok(one[0].visible, 'on screen');
  const [where, list] = one[0].text.split(': ');
  assert.equal(where, 'from query “sat” (position 3), head 2');
  assert.deepEqual(entries(list), [
    ['the', 0.25],
    ['cat', 0.25],
    ['sat', 0.5],
  ]);
  assert.equal(one[0].bold, 'sat 0.500');
  // A click (a tap on a phone) on the key "cat" selects it: the queries that attend to it,
  // still written once the pointer has left.
  const key = await linesReadout(
    page,
    '1',
    `const g = h.shadowRoot.querySelector('g.token[aria-label="key cat"]');
     g.dispatchEvent(new MouseEvent('click')); g.dispatchEvent(new MouseEvent('mouseleave'));`,
  );
  assert.equal(key[0].text.split(': ')[0], 'to key “cat” (position 2), head 1');
  assert.deepEqual(
    entries(key[0].text.split(': ')[1]),
    HEADS[0].map((row, i) => [['the', 'cat', 'sat'][i], row[1]]),
  );
  // Every head drawn: a line per shown head, in its colour (a hidden head has none).
  const all = await linesReadout(page, 'all', 'h.hiddenHeads = [1];');
  await page.close();
  assert.deepEqual(
    all.map((l) => l.text.split(': ')[0]),
    ['from query “sat” (position 3), head 1', 'from query “sat” (position 3), head 3'],
  );
  assert.deepEqual(
    entries(all[1].text.split(': ')[1]).map(([, x]) => x),
    HEADS[2][2],
  );
  assert.ok(all.every((l) => l.swatch && l.visible));
});

test('the model view writes numbers without hover: the outlined map’s last query and its strongest keys, back again when the pointer leaves', async () => {
  const { page } = await open('model-model', 390);
  const read = () =>
    page.evaluate(() => {
      const el = document.querySelector('attention-model');
      const readout = el.shadowRoot.querySelector('.readout');
      const json = el.toJSON(); // layer 1's maps [heads, T, T]
      return {
        text: readout.textContent,
        visible: readout.getBoundingClientRect().height > 0,
        names: json.tokens.map((t) => t.name),
        map: json.attentions.data.slice(0, json.tokens.length ** 2),
      };
    });
  const r = await read();
  const T = r.names.length;
  const row = r.map.slice((T - 1) * T);
  const top = [...row.keys()].sort((a, b) => row[b] - row[a]).slice(0, 4);
  assert.ok(r.visible);
  const [where, list] = r.text.split(', its strongest keys: ');
  assert.equal(where, `Layer 1, head 1: query “${r.names[T - 1]}” (row ${T})`);
  const shown = entries(list);
  assert.deepEqual(
    shown.map(([name]) => name),
    top.map((j) => r.names[j]),
  );
  shown.forEach(([, x], n) => assert.ok(Math.abs(x - row[top[n]]) <= 5e-4, `${x} vs ${row[top[n]]}`));
  // Hover another map, then leave: the resting line again.
  const canvas = page.locator('attention-model').locator('button.thumb[aria-label="layer 2 head 3"] canvas');
  await canvas.hover();
  assert.match((await read()).text, /^Layer 2, head 3: query/);
  await page.mouse.move(1, 899);
  assert.equal((await read()).text, r.text);
  await page.close();
});
