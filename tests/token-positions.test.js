// Repeated token names told apart on an axis (issue 45), as the sentiment and training views
// use model-views.js's positionedLabels: a name that occurs more than once carries its
// position counted from 0 ("was·3", [CLS] counted), one that occurs once stays as it is; and the note
// that explains the mark names a real one.
import test from 'node:test';
import assert from 'node:assert/strict';
import { positionedLabels } from '../web/elements/model-views.js';
import { positionNote } from '../web/elements/token-positions.js';

test("positionedLabels on the views' tokens: [CLS] counted (was·3), digits (1·1), case kept", () => {
  // <attention-sentiment>'s tokens for "The food was great but the service was slow."
  const names = ['[CLS]', 'the', 'food', 'was', 'great', 'but', 'the', 'service', 'was', 'slow', '.'];
  assert.deepEqual(positionedLabels(names), [
    '[CLS]',
    'the·1',
    'food',
    'was·3',
    'great',
    'but',
    'the·6',
    'service',
    'was·8',
    'slow',
    '.',
  ]);
  // <attention-training>'s reverse example: the digit 1 twice.
  assert.deepEqual(positionedLabels(['3', '1', '4', '1', '5', '9', '2', '6']), [
    '3',
    '1·1',
    '4',
    '1·3',
    '5',
    '9',
    '2',
    '6',
  ]);
  // Case matters (The and the are different tokens), and nothing repeated changes nothing.
  assert.deepEqual(positionedLabels(['The', 'cat', 'the', 'mat']), ['The', 'cat', 'the', 'mat']);
  assert.deepEqual(positionedLabels([]), []);
  // Three of a kind: each with its own position.
  assert.deepEqual(positionedLabels(['a', 'a', 'b', 'a']), ['a·0', 'a·1', 'b', 'a·3']);
});

test('positionNote: explains the first mark, or says nothing when no name repeats', () => {
  assert.equal(
    positionNote(['[CLS]', 'the', 'food', 'was', 'great', 'but', 'the']),
    'A repeated token carries its position, counted from 0: the·1 is the “the” at position 1.',
  );
  assert.equal(positionNote(['I', 'am']), '');
});
