// Closed forms that need no reference implementation, and the trace of every stage.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();

const both = (q, k, v, options = {}) => [
  attn.attention(q, k, v, options),
  attn.attention(q, k, v, { ...options, returnWeights: true }),
];

test('identical keys give uniform weights, so the output is the mean of the values', () => {
  const random = rng(20);
  for (const seqK of [1, 3, 8, 65]) {
    const q = randomTensor(random, [5, 6]);
    const row = randomTensor(random, [6]).data;
    const k = { data: new Float32Array(seqK * 6).map((_, i) => row[i % 6]), shape: [seqK, 6] };
    const v = randomTensor(random, [seqK, 3]);
    const mean = [0, 1, 2].map((c) => {
      let s = 0;
      for (let j = 0; j < seqK; j++) s += v.data[j * 3 + c];
      return s / seqK;
    });
    for (const r of both(q, k, v)) {
      assertClose(
        r.output,
        { data: Array.from({ length: 15 }, (_, i) => mean[i % 3]), shape: [5, 3] },
        { label: `mean Lk=${seqK}` },
      );
    }
  }
});

test('a one-hot key with a large score copies its value row', () => {
  // Query 0 matches only key 0 and query 1 only key 5, each with a scaled score of
  // 200/sqrt(4) = 100 against 0 for every other key: e^-100 is below float32 resolution.
  const d = 4,
    seqK = 9;
  const q = { data: Float32Array.from([200, 0, 0, 0, 0, 0, 200, 0]), shape: [2, d] };
  const k = { data: new Float32Array(seqK * d), shape: [seqK, d] };
  k.data[0 * d + 0] = 1; // key 0 matches query 0
  k.data[5 * d + 2] = 1; // key 5 matches query 1
  const v = { data: Float32Array.from({ length: seqK * 3 }, (_, i) => i), shape: [seqK, 3] };
  for (const r of both(q, k, v)) {
    assertClose(r.output, { data: [0, 1, 2, 15, 16, 17], shape: [2, 3] }, { atol: 1e-5, label: 'copy' });
  }
});

test('softmax is shift invariant: adding a constant to every score changes nothing', () => {
  const random = rng(21);
  const q = randomTensor(random, [7, 5]),
    k = randomTensor(random, [11, 5]),
    v = randomTensor(random, [11, 4]);
  const shifted = { data: new Float32Array(77).fill(3.5), shape: [7, 11] };
  const [plainF, plainS] = both(q, k, v);
  const [shiftF, shiftS] = both(q, k, v, { mask: shifted });
  assertClose(shiftF.output, plainF.output, { atol: 1e-6, label: 'fused shift' });
  assertClose(shiftS.weights, plainS.weights, { atol: 1e-7, label: 'weights shift' });
});

test('weights are a probability distribution: non-negative rows that sum to 1', () => {
  const random = rng(22);
  const q = randomTensor(random, [2, 33, 16], -3, 3),
    k = randomTensor(random, [2, 47, 16], -3, 3),
    v = randomTensor(random, [2, 47, 2]);
  const { weights } = attn.attention(q, k, v, { returnWeights: true, causal: true });
  for (let row = 0; row < 66; row++) {
    let sum = 0;
    for (let j = 0; j < 47; j++) {
      const w = weights.data[row * 47 + j];
      assert.ok(w >= 0 && w <= 1);
      sum += w;
    }
    assert.ok(Math.abs(sum - 1) < 1e-5, `row ${row} sums to ${sum}`);
  }
});

test('outputs are convex combinations of value rows (within their range)', () => {
  const random = rng(23);
  const q = randomTensor(random, [40, 8]),
    k = randomTensor(random, [40, 8]),
    v = randomTensor(random, [40, 1], 2, 3);
  for (const r of both(q, k, v)) assert.ok(r.output.data.every((x) => x >= 2 - 1e-6 && x <= 3 + 1e-6));
});

test('permuting keys and values together leaves the output unchanged; permuting queries permutes it', () => {
  const random = rng(24);
  const q = randomTensor(random, [6, 8]),
    k = randomTensor(random, [10, 8]),
    v = randomTensor(random, [10, 3]);
  const perm = [3, 7, 0, 9, 1, 5, 2, 8, 6, 4];
  const permute = (t, order, cols) => ({
    data: Float32Array.from(order.flatMap((r) => Array.from(t.data.slice(r * cols, r * cols + cols)))),
    shape: [order.length, cols],
  });
  const base = attn.attention(q, k, v).output;
  assertClose(attn.attention(q, permute(k, perm, 8), permute(v, perm, 3)).output, base, {
    atol: 1e-6,
    label: 'key-value permutation',
  });
  const qPerm = [5, 0, 4, 1, 3, 2];
  assertClose(attn.attention(permute(q, qPerm, 8), k, v).output, permute(base, qPerm, 3), {
    atol: 1e-6,
    label: 'query permutation',
  });
});

test('trace returns every stage, each consistent with the one before', () => {
  const random = rng(25);
  const q = randomTensor(random, [2, 3, 4]),
    k = randomTensor(random, [2, 5, 4]),
    v = randomTensor(random, [2, 5, 2]);
  const r = attn.attention(q, k, v, { trace: true, causal: true, scale: 0.7 });
  const { scores, scaledScores, maskedScores, weights, output } = r.trace;
  for (const stage of [scores, scaledScores, maskedScores, weights]) assert.deepEqual(stage.shape, [2, 3, 5]);
  assert.deepEqual(output.shape, [2, 3, 2]);
  assert.equal(r.weights, weights);
  assert.equal(r.output, output);
  // raw = q·kᵀ, computed here directly
  for (let b = 0; b < 2; b++)
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 5; j++) {
        let s = 0;
        for (let c = 0; c < 4; c++) s += q.data[b * 12 + i * 4 + c] * k.data[b * 20 + j * 4 + c];
        const at = b * 15 + i * 5 + j;
        assert.ok(Math.abs(scores.data[at] - s) < 1e-6);
        assert.ok(Math.abs(scaledScores.data[at] - 0.7 * s) < 1e-6);
        assert.equal(maskedScores.data[at], j > i ? -Infinity : scaledScores.data[at]);
      }
});

test('the softmax exponential is accurate against Math.exp over logit gaps of ±80 (both paths)', () => {
  // Two keys with scores 0 and t, values e_0 and e_1: the output row is the weights.
  const gaps = [];
  for (let t = -80; t <= 80; t += 0.37) gaps.push(Math.fround(t));
  const q = { data: Float32Array.from(gaps), shape: [gaps.length, 1] };
  const k = { data: Float32Array.from([0, 1]), shape: [2, 1] };
  const v = { data: Float32Array.from([1, 0, 0, 1]), shape: [2, 2] };
  let worst = 0;
  for (const returnWeights of [false, true]) {
    const { output } = attn.attention(q, k, v, { scale: 1, returnWeights });
    gaps.forEach((t, i) => {
      const w1 = 1 / (1 + Math.exp(-t)),
        w0 = 1 / (1 + Math.exp(t));
      for (const [got, want] of [
        [output.data[2 * i], w0],
        [output.data[2 * i + 1], w1],
      ]) {
        const rel = Math.abs(got - want) / want;
        worst = Math.max(worst, rel);
        // float32 rounding of t·log2(e) alone costs up to |t|·2^-24·ln 2 relative: allow
        // 1e-6 + |t|·1e-7 (a 2e-5 bound would hide a poor polynomial; this one does not).
        assert.ok(
          rel < 1e-6 + Math.abs(t) * 1e-7,
          `gap ${t}: weight ${got} vs ${want} (relative error ${rel.toExponential(2)})`,
        );
      }
    });
  }
  assert.ok(worst > 0, 'compared something');
});
