// Tokens as a reader sees them (issue 45): never a raw control character or U+FFFD. Spaces,
// newlines and tabs are marks (␣ ↵ ⇥), control bytes their code (<0x08>), byte tokens
// (Llama's <0x0A>) as they are, and GPT-2 byte-level pieces decoded from their bytes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { visibleText, hasMarks } from '../web/elements/format.js';
import { tokenLabel, positionedLabels, marksLegend, splitWordNote } from '../web/elements/model-views.js';

test('visibleText marks spaces, newlines, tabs, control characters and U+FFFD', () => {
  assert.equal(visibleText('a b\nc\td\b\u0000\u007f\ufffd'), 'a␣b↵c⇥d<0x08><0x00><0x7F><?>');
  assert.equal(visibleText('naïve ∞'), 'naïve␣∞');
  assert.equal(hasMarks('cat'), false);
  assert.equal(hasMarks(' cat'), true);
});

test('tokenLabel: covered text, byte tokens, byte-level pieces, word pieces', () => {
  const text = 'The cat\bsat';
  // The text a token covers (offsets), with its space shown.
  assert.equal(tokenLabel({ text: 'Ġcat', start: 3, end: 7 }, text), '␣cat');
  // A control character in the text is its code.
  assert.equal(tokenLabel({ text: '\b', start: 7, end: 8 }, text), '<0x08>');
  // A byte token of a SentencePiece vocabulary, whatever it covers.
  assert.equal(tokenLabel({ text: '<0x0A>', start: -1, end: -1 }, text), '<0x0A>');
  // GPT-2 byte-level pieces without offsets: Ġ is byte 0x20; "Ã©" are the bytes C3 A9 = é;
  // "âĢ" are E2 80, the start of a three-byte character: shown as bytes.
  assert.equal(tokenLabel({ text: 'Ġcaf', start: -1, end: -1 }, text), '␣caf');
  assert.equal(tokenLabel({ text: 'Ã©', start: -1, end: -1 }, text), 'é');
  assert.equal(tokenLabel({ text: 'âĢ', start: -1, end: -1 }, text), '<0xE2><0x80>');
  // Accented text without offsets is text, not bytes.
  assert.equal(tokenLabel({ text: 'café', start: -1, end: -1 }, text), 'café');
  // A lone space mark, and a WordPiece continuation.
  assert.equal(tokenLabel({ text: '▁', start: -1, end: -1 }, text), '␣');
  assert.equal(tokenLabel({ text: '##ing', start: -1, end: -1 }, text), 'ing');
});

test('tokenLabel marks the spaces a piece holds even when its offsets leave them out', () => {
  // GPT-2 and Qwen offsets cover "sat" for the piece "Ġsat", SentencePiece's cover "The" for
  // "▁The▁" (tiny-llama): the reader must still see that the token begins (ends) with a space.
  const text = 'The cat sat on the mat';
  assert.equal(tokenLabel({ text: 'Ġsat', start: 8, end: 11 }, text), '␣sat');
  assert.equal(tokenLabel({ text: '▁The▁', start: 0, end: 3 }, text), '␣The␣');
  assert.equal(tokenLabel({ text: 'sat▁on▁the▁', start: 8, end: 18 }, text), 'sat␣on␣the␣');
  // A space the offsets do cover is marked once, not twice; a piece without one gets none.
  assert.equal(tokenLabel({ text: 'Ġsat', start: 7, end: 11 }, text), '␣sat');
  assert.equal(tokenLabel({ text: 'at', start: 5, end: 7 }, text), 'at');
  // Without offsets: SentencePiece's ▁ is a space wherever it stands.
  assert.equal(tokenLabel({ text: '▁sat', start: -1, end: -1 }, text), '␣sat');
  assert.equal(tokenLabel({ text: 'on▁the', start: -1, end: -1 }, text), 'on␣the');
  // A text that holds the character itself is not a space.
  assert.equal(tokenLabel({ text: 'Ġx', start: 0, end: 2 }, 'Ġx'), 'Ġx');
});

test('positionedLabels: a repeated name carries its position, counted from 0, a unique one stays', () => {
  assert.deepEqual(positionedLabels(['The', '␣', 'cat', '␣', 'at', 'at']), [
    'The',
    '␣·1',
    'cat',
    '␣·3',
    'at·4',
    'at·5',
  ]);
  assert.deepEqual(positionedLabels(['a', 'b']), ['a', 'b']);
  assert.deepEqual(positionedLabels([]), []);
});

test('marksLegend names exactly the marks the labels use', () => {
  assert.equal(marksLegend(['cat', 'dog']), '');
  assert.equal(marksLegend(['␣cat', 'a↵']), '␣ = space, ↵ = newline');
  assert.match(marksLegend(['<0xA5>']), /^<0x08> = a byte by its code/);
  assert.equal(marksLegend(['<0xZZ>']), '');
});

test('splitWordNote names the first word the tokenizer split, and nothing when none is', () => {
  // tiny GPT-2 on "The cat sat on the mat": " cat" is three pieces, ␣, c and at.
  assert.equal(
    splitWordNote(['The', '␣', 'c', 'at', '␣sat', '␣on', '␣the', '␣m', 'at']),
    'A word can be several tokens: “␣cat” is ␣ + c + at.',
  );
  // the first word of the text (no ␣ before it) counts too
  assert.equal(splitWordNote(['Tok', 'en', '␣is']), 'A word can be several tokens: “Token” is Tok + en.');
  // whole words, and pieces holding no letter (a number, punctuation, bytes), say nothing
  assert.equal(splitWordNote(['The', '␣cat', '␣sat']), null);
  assert.equal(splitWordNote(['␣12', '34', '␣.', '!']), null);
  assert.equal(splitWordNote(['␣<0xE2>', '<0x80>']), null);
});
