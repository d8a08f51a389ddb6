// Positional encodings against closed forms and float64 references.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();

test('sinusoidal: the formula in float64, position 0 is [0, 1, 0, 1, ...], odd dModel', () => {
  for (const [L, d, base] of [
    [9, 8, 10000],
    [5, 7, 10000],
    [4, 6, 100],
    [1, 1, 10000],
  ]) {
    const pe = attn.sinusoidalEncoding(L, d, { base });
    const expected = new Float64Array(L * d);
    for (let p = 0; p < L; p++)
      for (let c = 0; c < d; c++) {
        const angle = p / base ** ((c - (c % 2)) / d);
        expected[p * d + c] = c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
      }
    assertClose(pe, { data: expected, shape: [L, d] }, { atol: 1e-7, label: `PE ${L}x${d}` });
    assert.deepEqual(
      Array.from(pe.data.slice(0, d)),
      Array.from({ length: d }, (_, c) => (c % 2 === 0 ? 0 : 1)),
    );
  }
  assert.throws(
    () => attn.sinusoidalEncoding(4, 0),
    (e) => e instanceof RangeError && /^sinusoidalEncoding: dModel/.test(e.message),
  );
  assert.throws(
    () => attn.sinusoidalEncoding(-1, 4),
    (e) => e instanceof RangeError && /seqLen/.test(e.message),
  );
  assert.throws(() => attn.sinusoidalEncoding(4, 4, { base: 'x' }), TypeError);
});

test('learned tables are added row by row, with an offset and shape checks', () => {
  const random = rng(60);
  const x = randomTensor(random, [2, 3, 4]),
    table = randomTensor(random, [10, 4]);
  const out = attn.addPositionalEncoding(x, table, { offset: 5 });
  for (let b = 0; b < 2; b++)
    for (let i = 0; i < 3; i++)
      for (let c = 0; c < 4; c++) {
        assert.equal(
          out.data[(b * 3 + i) * 4 + c],
          Math.fround(x.data[(b * 3 + i) * 4 + c] + table.data[(5 + i) * 4 + c]),
        );
      }
  assert.throws(
    () => attn.addPositionalEncoding(x, table, { offset: 8 }),
    (e) => e instanceof RangeError && /table has 10 positions but x needs 11/.test(e.message),
  );
  assert.throws(
    () => attn.addPositionalEncoding(x, randomTensor(random, [10, 5])),
    (e) => e instanceof RangeError && /table has 5 columns but x has 4/.test(e.message),
  );
});

function refRope(x, L, dim, positions, base, interleaved) {
  const out = new Float64Array(x.data.length);
  for (let r = 0; r < x.data.length / dim; r++) {
    const pos = positions ? positions[r % L] : r % L;
    for (let i = 0; i < dim / 2; i++) {
      const angle = pos * base ** ((-2 * i) / dim);
      const [a, b] = interleaved ? [2 * i, 2 * i + 1] : [i, i + dim / 2];
      const xa = x.data[r * dim + a],
        xb = x.data[r * dim + b];
      out[r * dim + a] = xa * Math.cos(angle) - xb * Math.sin(angle);
      out[r * dim + b] = xb * Math.cos(angle) + xa * Math.sin(angle);
    }
  }
  return { data: out, shape: x.shape };
}

test('RoPE: both pairings match the rotation formula, preserve norms, and q·k depends only on the offset', () => {
  const random = rng(61);
  for (const interleaved of [false, true]) {
    const x = randomTensor(random, [2, 6, 8]);
    assertClose(attn.applyRope(x, { interleaved }), refRope(x, 6, 8, null, 10000, interleaved), {
      atol: 1e-6,
      label: `rope interleaved=${interleaved}`,
    });
    const positions = [3, 1.5, 100, 0, 7, 2048];
    assertClose(
      attn.applyRope(x, { interleaved, positions, base: 500 }),
      refRope(x, 6, 8, positions, 500, interleaved),
      { atol: 2e-5, label: 'rope positions' },
    );
    const y = attn.applyRope(x, { interleaved });
    for (let r = 0; r < 12; r++) {
      const norm = (t) => Math.hypot(...t.data.slice(r * 8, r * 8 + 8));
      assert.ok(Math.abs(norm(x) - norm(y)) < 1e-5, 'norm preserved');
    }
    // q at position m and k at position n: the score depends on m - n only.
    const q = randomTensor(random, [1, 8]),
      k = randomTensor(random, [1, 8]);
    const score = (m, n) => {
      const qr = attn.applyRope(q, { interleaved, positions: [m] }),
        kr = attn.applyRope(k, { interleaved, positions: [n] });
      return qr.data.reduce((s, v, i) => s + v * kr.data[i], 0);
    };
    for (const [m, n, m2, n2] of [
      [5, 2, 13, 10],
      [0, 7, 20, 27],
      [3, 3, 40, 40],
    ]) {
      assert.ok(Math.abs(score(m, n) - score(m2, n2)) < 1e-5, `offset ${m - n}`);
    }
    assert.ok(Math.abs(score(5, 2) - score(5, 3)) > 1e-4, 'different offsets differ');
  }
  assert.throws(
    () => attn.applyRope(randomTensor(random, [3, 5])),
    (e) => e instanceof RangeError && /^applyRope: x has 5 features; .* even/.test(e.message),
  );
  assert.throws(
    () => attn.applyRope(randomTensor(random, [3, 4]), { positions: [1, 2] }),
    (e) => e instanceof RangeError && /positions has 2 entries but x has L = 3/.test(e.message),
  );
});

// The reference get_slopes, transcribed independently.
function getSlopes(n) {
  const powerOf2 = (m) => {
    const start = 2 ** -(2 ** -(Math.log2(m) - 3));
    return Array.from({ length: m }, (_, i) => start * start ** i);
  };
  if (Number.isInteger(Math.log2(n))) return powerOf2(n);
  const closest = 2 ** Math.floor(Math.log2(n));
  return [
    ...powerOf2(closest),
    ...getSlopes(2 * closest)
      .filter((_, i) => i % 2 === 0)
      .slice(0, n - closest),
  ];
}

test('ALiBi slopes are get_slopes exactly (8 heads: 1/2 .. 1/256; non-powers of two too)', () => {
  assert.deepEqual(attn.alibiSlopes(8), [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]);
  for (const n of [1, 2, 3, 5, 6, 7, 12, 16, 20, 24, 32, 48]) {
    const got = attn.alibiSlopes(n),
      expected = getSlopes(n);
    assert.equal(got.length, n);
    // Same algorithm; pow() itself may differ by a few ulp between libms (musl vs V8).
    got.forEach((s, i) =>
      assert.ok(Math.abs(s - expected[i]) <= 1e-14 * expected[i], `n=${n} head ${i}: ${s} vs ${expected[i]}`),
    );
  }
  // The reference itself (CPython 3.11, get_slopes(12)[11]) prints 0.08838834764831849.
  assert.equal(attn.alibiSlopes(12)[11], 0.08838834764831849);
  assert.throws(() => attn.alibiSlopes(0), RangeError);
});

test('ALiBi bias is -slope·distance and works as an additive attention mask', () => {
  const slopes = attn.alibiSlopes(4);
  const bias = attn.alibiBias(4, 3, 5);
  assert.deepEqual(bias.shape, [4, 3, 5]);
  for (let h = 0; h < 4; h++)
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 5; j++) {
        assert.equal(bias.data[(h * 3 + i) * 5 + j], Math.fround(-slopes[h] * Math.abs(i + 2 - j)));
      }
  assert.throws(
    () => attn.alibiBias(4, -1),
    (e) => e instanceof RangeError && /^alibiBias: seqQ must be a non-negative integer/.test(e.message),
  );
  assert.throws(
    () => attn.alibiBias('4', 3),
    (e) => e instanceof TypeError && /^alibiBias: numHeads must be a number/.test(e.message),
  );
  assert.throws(
    () => attn.alibiBias(0, 3),
    (e) => e instanceof RangeError && /numHeads must be a positive integer/.test(e.message),
  );
  const random = rng(62);
  const q = randomTensor(random, [4, 3, 8]),
    k = randomTensor(random, [4, 5, 8]),
    v = randomTensor(random, [4, 5, 2]);
  const out = attn.attention(q, k, v, { mask: bias, causal: true, causalAlign: 'bottom-right', returnWeights: true });
  assert.ok(out.weights.data.every(Number.isFinite));
  // With zero scores the weights follow the bias alone: head 0, last query, keys 4 and 3.
  const zero = attn.attention(randomTensor(random, [4, 3, 8], 0, 0), k, v, { mask: bias, returnWeights: true }).weights;
  assert.ok(Math.abs(zero.data[2 * 5 + 4] / zero.data[2 * 5 + 3] - Math.exp(slopes[0])) < 1e-5);
});

function laplacian(n, edges) {
  const A = Array.from({ length: n }, () => new Float64Array(n));
  for (const [a, b] of edges)
    if (a !== b) {
      A[a][b] = 1;
      A[b][a] = 1;
    }
  const deg = A.map((row) => row.reduce((s, x) => s + x, 0));
  return A.map((row, i) =>
    Array.from(row, (x, j) =>
      i === j ? (deg[i] > 0 ? 1 : 0) : deg[i] > 0 && deg[j] > 0 ? -x / Math.sqrt(deg[i] * deg[j]) : 0,
    ),
  );
}

function checkEigen(n, edges, k, label) {
  const enc = attn.laplacianEncoding({ numNodes: n, edges }, k);
  assert.deepEqual(enc.shape, [n, k]);
  const L = laplacian(n, edges);
  for (let c = 0; c < k; c++) {
    const v = Array.from({ length: n }, (_, i) => enc.data[i * k + c]);
    const lambda = enc.eigenvalues[c];
    for (let i = 0; i < n; i++) {
      const Lv = L[i].reduce((s, x, j) => s + x * v[j], 0);
      assert.ok(Math.abs(Lv - lambda * v[i]) < 1e-5, `${label}: (L·v - λv)[${i}] for vector ${c}`);
    }
    for (let c2 = 0; c2 <= c; c2++) {
      const dot = v.reduce((s, x, i) => s + x * enc.data[i * k + c2], 0);
      assert.ok(Math.abs(dot - (c === c2 ? 1 : 0)) < 1e-5, `${label}: orthonormal ${c},${c2}`);
    }
    const largest = v.reduce((best, x, i) => (Math.abs(x) > Math.abs(v[best]) + 1e-6 ? i : best), 0);
    assert.ok(v[largest] > 0, `${label}: sign convention`);
  }
  return enc;
}

test('Laplacian eigenvectors: L·v = λ·v, orthonormal, cycle eigenvalues 1 - cos(2πk/n), isolated nodes', () => {
  for (const n of [5, 6, 8, 11]) {
    const edges = Array.from({ length: n }, (_, i) => [i, (i + 1) % n]);
    const enc = checkEigen(n, edges, n - 1, `cycle ${n}`);
    const expected = Array.from({ length: n }, (_, k) => 1 - Math.cos((2 * Math.PI * k) / n))
      .sort((a, b) => a - b)
      .slice(1);
    enc.eigenvalues.forEach((lambda, i) => assert.ok(Math.abs(lambda - expected[i]) < 1e-5, `cycle ${n} λ${i + 1}`));
  }
  checkEigen(
    7,
    [
      [0, 1],
      [1, 2],
      [2, 0],
      [3, 4],
      [1, 1],
      [0, 1],
    ],
    4,
    'two components, an isolated node, a self-loop, a repeated edge',
  );
  checkEigen(
    6,
    [
      [0, 1],
      [0, 2],
      [0, 3],
      [3, 4],
      [4, 5],
    ],
    3,
    'tree',
  );
  assert.throws(
    () => attn.laplacianEncoding({ numNodes: 4, edges: [[0, 4]] }, 1),
    (e) => e instanceof RangeError && /edges\[0\]\[1\] is 4/.test(e.message),
  );
  assert.throws(
    () => attn.laplacianEncoding({ numNodes: 4, edges: [] }, 4),
    (e) => e instanceof RangeError && /only 3 non-trivial/.test(e.message),
  );
  assert.throws(() => attn.laplacianEncoding({ numNodes: 4, edges: [[0]] }, 1), TypeError);
});
