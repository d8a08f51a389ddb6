// The sentiment verdict's confidence words and the band each stands for (web/elements/confidence.js),
// hand-computed at and around every threshold: a reader of "fairly sure" is told what it means.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { confidenceWords, confidenceBand } from '../web/elements/confidence.js';

test('confidenceBand names the words and their band, at and around each threshold', () => {
  const cases = [
    [0.999, 'confident: p ≥ 0.9'],
    [0.9, 'confident: p ≥ 0.9'],
    [0.8999, 'fairly sure: 0.7 ≤ p < 0.9'],
    [0.851, 'fairly sure: 0.7 ≤ p < 0.9'],
    [0.7, 'fairly sure: 0.7 ≤ p < 0.9'],
    [0.69, 'unsure: 0.55 ≤ p < 0.7'],
    [0.55, 'unsure: 0.55 ≤ p < 0.7'],
    [0.5499, 'a coin toss: p < 0.55'],
    [0.5, 'a coin toss: p < 0.55'],
  ];
  for (const [p, words] of cases) {
    assert.equal(confidenceBand(p), words, `p = ${p}`);
    assert.ok(words.startsWith(`${confidenceWords(p)}: `), `p = ${p}: the band begins with the words`);
  }
});
