// classifyRows (bindings/js/models/classifier_head.js): a sequence classifier's head on the
// pooled rows of the last hidden states, checked against values worked by hand.
import test from 'node:test';
import assert from 'node:assert/strict';
import { classifyRows } from '../bindings/js/models/classifier_head.js';

// d = 2, B = 2 sequences of T = 3 rows: [B·T, d].
const last = new Float32Array([
  // sequence 0: rows 0, 1, 2
  0.5,
  -1,
  2,
  0,
  9,
  9,
  // sequence 1: rows 3, 4, 5 (length 2: row 5 is padding)
  1,
  1,
  0,
  Math.log(3),
  7,
  7,
]);
const batch = { B: 2, T: 3, lengths: [2, 2] };

test("classifyRows: one layer on each sequence's last real row (pool 'last'), softmax and label", () => {
  // Identity weights, bias [0, 0]: the logits are the pooled row itself.
  const layers = [
    {
      weight: new Float32Array([1, 0, 0, 1]),
      bias: new Float32Array([0, 0]),
      out: 2,
      activation: null,
      pool: 'last',
      labels: ['neg', 'pos'],
    },
  ];
  const r = classifyRows(layers, last, batch, 2);
  // Sequence 0 pools row 1 = [2, 0]; sequence 1 pools row 4 = [0, ln 3].
  assert.deepEqual(r.logits.shape, [2, 2]);
  assert.deepEqual(Array.from(r.logits.data), [2, 0, 0, Math.fround(Math.log(3))]);
  // softmax([2, 0]) = [e²/(e²+1), 1/(e²+1)]; softmax([0, ln 3]) = [1/4, 3/4].
  const e2 = Math.exp(2);
  const expected = [e2 / (e2 + 1), 1 / (e2 + 1), 0.25, 0.75];
  Array.from(r.probabilities.data).forEach((p, i) => assert.ok(Math.abs(p - expected[i]) < 1e-7, `p[${i}] ${p}`));
  assert.deepEqual(r.labels, ['neg', 'pos']);
});

test("classifyRows: two layers (tanh, then the output) on each sequence's first row (pool 'first'), no bias", () => {
  const layers = [
    // Hidden: [x0 + x1, x0 − x1], tanh.
    {
      weight: new Float32Array([1, 1, 1, -1]),
      bias: null,
      out: 2,
      activation: 'tanh',
      pool: 'first',
      labels: ['a', 'b', 'c'],
    },
    // Output: three labels from the hidden pair: [h0, h1, h0 + h1 + 1].
    {
      weight: new Float32Array([1, 0, 0, 1, 1, 1]),
      bias: new Float32Array([0, 0, 1]),
      out: 3,
      activation: null,
      pool: 'first',
      labels: ['a', 'b', 'c'],
    },
  ];
  const r = classifyRows(layers, last, batch, 2);
  // Sequence 0: row 0 = [0.5, −1] → h = [tanh(−0.5), tanh(1.5)]; sequence 1: row 3 = [1, 1] → [tanh 2, 0].
  const rows = [
    [Math.tanh(-0.5), Math.tanh(1.5)],
    [Math.tanh(2), 0],
  ].map(([h0, h1]) => [h0, h1, h0 + h1 + 1]);
  assert.deepEqual(r.logits.shape, [2, 3]);
  Array.from(r.logits.data).forEach((v, i) =>
    assert.equal(v, Math.fround(rows[Math.floor(i / 3)][i % 3]), `logit ${i}`),
  );
  // The largest logit wins: h0 + h1 + 1 in both (1.417…, 1.964…).
  assert.deepEqual(r.labels, ['c', 'c']);
  for (let b = 0; b < 2; b++) {
    const p = r.probabilities.data.subarray(3 * b, 3 * b + 3);
    assert.ok(Math.abs(p[0] + p[1] + p[2] - 1) < 1e-6, `row ${b} sums to 1`);
  }
});
