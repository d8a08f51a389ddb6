// The elements' attribute table (web/elements/attributes.js, issue 36 item 5): typed values,
// defaults, and the one message for a bad value, naming the element and the attribute. The
// table is DOM-free, so this runs in Node on a stand-in element; the elements' use of it is
// tested in Chromium (element-input.test.js) and checked against the typings in
// types-drift.test.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readAttribute, attributeReader, observedAttributes } from '../web/elements/attributes.js';

// Just what the table reads of an element.
const element = (attributes) => ({
  getAttribute: (name) => attributes[name] ?? null,
  hasAttribute: (name) => name in attributes,
});

test('ints: the default when absent or blank, the number when in range, a message naming element and attribute otherwise', () => {
  assert.equal(readAttribute(element({}), 'token-pruning', 'dim'), 4);
  assert.equal(readAttribute(element({ dim: ' ' }), 'token-pruning', 'dim'), 4);
  assert.equal(readAttribute(element({ dim: '7' }), 'token-pruning', 'dim'), 7);
  for (const bad of ['0', '65', '2.5', 'Infinity', 'x'])
    assert.throws(() => readAttribute(element({ dim: bad }), 'token-pruning', 'dim'), {
      name: 'RangeError',
      message: `token-pruning: dim must be a whole number from 1 to 64, got "${bad}"`,
    });
});

test('an int with words beside it, and a tighter bound the element passes (the last of the heads it holds); indices count from 0', () => {
  const heatmap = (head) => element({ head });
  assert.equal(readAttribute(heatmap('all'), 'attention-heatmap', 'head', 11), 'all');
  assert.equal(readAttribute(heatmap('0'), 'attention-heatmap', 'head', 11), 0);
  assert.equal(readAttribute(heatmap('11'), 'attention-heatmap', 'head', 11), 11);
  for (const bad of ['12', '-1', 'x'])
    assert.throws(() => readAttribute(heatmap(bad), 'attention-heatmap', 'head', 11), {
      message: `attention-heatmap: head must be a whole number from 0 to 11 or one of average, all, got "${bad}"`,
    });
  // Without a bound of its own or the element's, the rule says only the least.
  assert.equal(readAttribute(element({ layer: '0' }), 'attention-model', 'layer'), 0);
  assert.equal(readAttribute(element({}), 'attention-model', 'layer'), 0);
  assert.throws(() => readAttribute(element({ layer: '-1' }), 'attention-model', 'layer'), {
    message: 'attention-model: layer must be a whole number ≥ 0, got "-1"',
  });
  for (const [tag, name] of [
    ['attention-model', 'query'],
    ['attention-explainer', 'token'],
    ['attention-explainer', 'layer'],
    ['attention-explainer', 'head'],
    ['attention-sentiment', 'head'],
  ])
    assert.throws(() => readAttribute(element({ [name]: '-1' }), tag, name), {
      message: `${tag}: ${name} must be a whole number ≥ 0, got "-1"`,
    });
  // stage is a stage's number of the ten (1 … 10), not an index
  assert.throws(() => readAttribute(element({ stage: '0' }), 'attention-explainer', 'stage'), {
    message: 'attention-explainer: stage must be a whole number from 1 to 10, got "0"',
  });
});

test('enums, booleans and strings; a long bad value is cut in the message', () => {
  assert.equal(readAttribute(element({}), 'attention-heatmap', 'view'), 'grid');
  assert.equal(readAttribute(element({ view: 'lines' }), 'attention-heatmap', 'view'), 'lines');
  assert.throws(() => readAttribute(element({ view: 'line' }), 'attention-heatmap', 'view'), {
    message: 'attention-heatmap: view must be one of grid, lines, got "line"',
  });
  assert.equal(readAttribute(element({ editable: '' }), 'attention-matrix', 'editable'), true);
  assert.equal(readAttribute(element({ editable: 'false' }), 'attention-matrix', 'editable'), true); // present is on
  assert.equal(readAttribute(element({}), 'attention-matrix', 'editable'), false);
  assert.equal(readAttribute(element({}), 'token-pruning', 'tokens'), 'The,cat,sat,on,the,mat');
  assert.throws(() => readAttribute(element({ kind: 'x'.repeat(1000) }), 'positional-encoding', 'kind'), {
    message: `positional-encoding: kind must be one of sinusoidal, rope, alibi, laplacian, got "${'x'.repeat(40)}"`,
  });
});

test("a reader gives the default for a bad value and keeps the first bad value's message; checkAll reads every attribute present", () => {
  const el = element({ precision: '12', heat: 'hot' });
  const reader = attributeReader(el, 'attention-matrix');
  assert.equal(reader.get('precision'), 4);
  assert.equal(reader.get('heat'), null);
  assert.equal(reader.error.message, 'attention-matrix: precision must be a whole number from 0 to 8, got "12"');
  assert.equal(
    attributeReader(element({ heat: 'hot' }), 'attention-matrix').checkAll().error.message,
    'attention-matrix: heat must be one of sequential, diverging, got "hot"',
  );
  assert.equal(
    attributeReader(element({ precision: '2', heat: 'diverging' }), 'attention-matrix').checkAll().error,
    null,
  );
  // Read-once attributes are checked too, though not observed.
  assert.ok(!observedAttributes('attention-training').includes('every'));
  assert.equal(
    attributeReader(element({ every: '0' }), 'attention-training').checkAll().error.message,
    'attention-training: every must be a whole number from 1 to 500, got "0"',
  );
});
