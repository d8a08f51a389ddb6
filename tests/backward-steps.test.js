// The backward steps one by one (linearBackward, layerNormBackward, feedForwardBackward,
// softmaxCrossEntropy) against central finite differences of float64 forwards written from
// the definitions (tests/helpers/reference-layers.js): for a fixed upstream gradient dy the
// loss L(θ) = Σ dy ⊙ f(θ) has ∂L/∂θ equal to the step's gradient, and its float64 central
// difference (h = 1e-6) is exact to ~1e-9. Sizes sweep the SIMD width; typed errors; no leak.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { refMatmul, refLayerNorm, refFeedForward } from './helpers/reference-layers.js';
import { rng, randomTensor } from './helpers/assert.js';

const attn = await init({ simd: 'baseline' });
const H = 1e-6;

// ∂/∂θ_i of Σ dy ⊙ forward(θ), by central differences in float64, for every element of θ.
function numericGradient(theta, dy, forward) {
  const x = Float64Array.from(theta.data);
  const g = new Float64Array(x.length);
  const loss = () => forward({ data: x, shape: theta.shape }).data.reduce((s, v, i) => s + v * dy.data[i], 0);
  for (let i = 0; i < x.length; i++) {
    const keep = x[i];
    x[i] = keep + H;
    const plus = loss();
    x[i] = keep - H;
    const minus = loss();
    x[i] = keep;
    g[i] = (plus - minus) / (2 * H);
  }
  return g;
}

// |got − want| <= 1e-3·max(|got|, |want|) + 2e-5 elementwise; reports the worst relative error.
function assertGradient(got, want, label) {
  assert.equal(got.length, want.length, `${label}: length`);
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    const diff = Math.abs(got[i] - want[i]);
    const bound = 1e-3 * Math.max(Math.abs(got[i]), Math.abs(want[i])) + 2e-5;
    if (diff > bound)
      assert.fail(
        `${label}[${i}]: got ${got[i]}, finite differences give ${want[i]} (|diff| ${diff.toExponential(2)})`,
      );
    worst = Math.max(worst, diff / (Math.abs(want[i]) + 1e-6));
  }
  return worst;
}

test('linearBackward: dx, dw, db match finite differences of x·w + b (rows 1..5, in/out around the SIMD width)', () => {
  const random = rng(11);
  let cases = 0;
  for (const lead of [[1], [3], [2, 5]]) {
    for (const inDim of [1, 3, 4, 5, 9]) {
      for (const out of [1, 4, 7, 8, 9, 17]) {
        const x = randomTensor(random, [...lead, inDim]),
          w = randomTensor(random, [inDim, out]),
          b = randomTensor(random, [out]);
        const dy = randomTensor(random, [...lead, out]);
        const got = attn.linearBackward(x, w, dy);
        assert.deepEqual(got.dx.shape, x.shape);
        assertGradient(
          got.dx.data,
          numericGradient(x, dy, (t) => refMatmul(t, w, b)),
          `dx ${lead}x${inDim}x${out}`,
        );
        assertGradient(
          got.dw.data,
          numericGradient(w, dy, (t) => refMatmul(x, t, b)),
          `dw ${lead}x${inDim}x${out}`,
        );
        assertGradient(
          got.db.data,
          numericGradient(b, dy, (t) => refMatmul(x, w, t)),
          `db ${lead}x${inDim}x${out}`,
        );
        cases++;
      }
    }
  }
  assert.equal(cases, 90);
});

test('layerNormBackward: dx, dgamma, dbeta match finite differences (with and without gamma, eps, rows of 1..9)', () => {
  const random = rng(12);
  for (const d of [1, 2, 3, 4, 5, 8, 9, 33]) {
    for (const rows of [1, 3]) {
      for (const withGamma of [false, true]) {
        const x = randomTensor(random, [rows, d], -2, 3),
          dy = randomTensor(random, [rows, d]);
        const gamma = withGamma ? randomTensor(random, [d], 0.5, 2) : undefined;
        const beta = randomTensor(random, [d]);
        const eps = withGamma ? 1e-3 : 1e-5;
        const got = attn.layerNormBackward(x, dy, { gamma, beta, eps });
        const label = `d=${d} rows=${rows} gamma=${withGamma}`;
        assertGradient(
          got.dx.data,
          numericGradient(x, dy, (t) => refLayerNorm(t, gamma, beta, eps)),
          `dx ${label}`,
        );
        const ones = { data: new Float64Array(d).fill(1), shape: [d] };
        assertGradient(
          got.dgamma.data,
          numericGradient(gamma ?? ones, dy, (t) => refLayerNorm(x, t, beta, eps)),
          `dgamma ${label}`,
        );
        assertGradient(
          got.dbeta.data,
          numericGradient(beta, dy, (t) => refLayerNorm(x, gamma, t, eps)),
          `dbeta ${label}`,
        );
      }
    }
  }
  // Closed form for a constant row: x̂ = 0, so the variance term drops out and
  // dx = (dy − mean(dy)) / √eps, dgamma = 0, dbeta = dy.
  const dy = [1, -3, 0.5, 7],
    mean = 1.375;
  const flat = attn.layerNormBackward([[2, 2, 2, 2]], [dy], { eps: 1e-4 });
  flat.dx.data.forEach((v, i) => assert.ok(Math.abs(v - (dy[i] - mean) * 100) < 1e-3, `constant row: dx[${i}] ${v}`));
  assert.deepEqual(Array.from(flat.dgamma.data), [0, 0, 0, 0]);
  assert.deepEqual(Array.from(flat.dbeta.data), dy);
});

test('feedForwardBackward: every gradient matches finite differences, ReLU and exact GELU', () => {
  const random = rng(13);
  for (const activation of ['relu', 'gelu']) {
    for (const [rows, dModel, dFF] of [
      [1, 1, 1],
      [3, 4, 7],
      [2, 5, 9],
      [4, 8, 16],
    ]) {
      const x = randomTensor(random, [rows, dModel], -2, 2),
        dy = randomTensor(random, [rows, dModel]);
      const w1 = randomTensor(random, [dModel, dFF]),
        b1 = randomTensor(random, [dFF]);
      const w2 = randomTensor(random, [dFF, dModel]),
        b2 = randomTensor(random, [dModel]);
      const weights = { w1, b1, w2, b2, activation };
      const got = attn.feedForwardBackward(x, dy, weights);
      const label = `${activation} ${rows}x${dModel}x${dFF}`;
      assertGradient(
        got.dx.data,
        numericGradient(x, dy, (t) => refFeedForward(t, weights)),
        `dx ${label}`,
      );
      assertGradient(
        got.dw1.data,
        numericGradient(w1, dy, (t) => refFeedForward(x, { ...weights, w1: t })),
        `dw1 ${label}`,
      );
      assertGradient(
        got.db1.data,
        numericGradient(b1, dy, (t) => refFeedForward(x, { ...weights, b1: t })),
        `db1 ${label}`,
      );
      assertGradient(
        got.dw2.data,
        numericGradient(w2, dy, (t) => refFeedForward(x, { ...weights, w2: t })),
        `dw2 ${label}`,
      );
      assertGradient(
        got.db2.data,
        numericGradient(b2, dy, (t) => refFeedForward(x, { ...weights, b2: t })),
        `db2 ${label}`,
      );
    }
  }
});

// Mean cross-entropy over rows with target >= 0, float64.
function refCrossEntropy(logits, targets) {
  const C = logits.shape.at(-1);
  let sum = 0,
    count = 0;
  for (let r = 0; r < targets.length; r++) {
    if (targets[r] < 0) continue;
    const row = Array.from(logits.data.slice(r * C, (r + 1) * C));
    const max = Math.max(...row);
    const lse = max + Math.log(row.reduce((s, v) => s + Math.exp(v - max), 0));
    sum += lse - row[targets[r]];
    count++;
  }
  return count > 0 ? sum / count : 0;
}

test('softmaxCrossEntropy: loss, accuracy and dLogits against float64 and finite differences, ignored rows', () => {
  const random = rng(14);
  for (const C of [1, 2, 5, 9]) {
    for (const rows of [1, 4, 7]) {
      const logits = randomTensor(random, [rows, C], -3, 3);
      const targets = Array.from({ length: rows }, (_, r) => (r % 3 === 2 ? -1 : Math.floor(random(0, C))));
      const got = attn.softmaxCrossEntropy(logits, targets);
      const want = refCrossEntropy(logits, targets);
      assert.ok(
        Math.abs(got.loss - want) <= 1e-6 * Math.max(1, want),
        `C=${C} rows=${rows}: loss ${got.loss} vs ${want}`,
      );
      const counted = targets.filter((t) => t >= 0);
      assert.equal(got.count, counted.length);
      let correct = 0;
      targets.forEach((t, r) => {
        if (t < 0) return;
        const row = Array.from(logits.data.slice(r * C, (r + 1) * C));
        if (row.indexOf(Math.max(...row)) === t) correct++;
      });
      assert.equal(got.accuracy, counted.length ? correct / counted.length : 0);
      const fd = numericGradient(logits, { data: [1] }, (t) => ({ data: [refCrossEntropy(t, targets)] }));
      assertGradient(got.dLogits.data, fd, `dLogits C=${C} rows=${rows}`);
    }
  }
  // Closed form: uniform logits over C classes give log C, and every row ignored gives 0.
  assert.ok(Math.abs(attn.softmaxCrossEntropy([[0, 0, 0, 0]], [1]).loss - Math.log(4)) < 1e-7);
  const none = attn.softmaxCrossEntropy([[1, 2]], [-1]);
  assert.deepEqual([none.loss, none.count, Array.from(none.dLogits.data)], [0, 0, [0, 0]]);
});

test('backward steps: typed errors name the function and the tensor; the module keeps working; nothing leaks', () => {
  const x = [[1, 2, 3]];
  const cases = [
    [() => attn.linearBackward(x, [[1], [2]], [[1]]), RangeError, /^linearBackward: w has shape \[2, 1\]/],
    [
      () => attn.linearBackward(x, [[1], [2], [3]], [[1, 2]]),
      RangeError,
      /^linearBackward: dy must have shape \[1, 1\]/,
    ],
    [() => attn.linearBackward('x', [[1]], [[1]]), TypeError, /^linearBackward: x/],
    [() => attn.layerNormBackward(x, [[1, 2]]), RangeError, /^layerNormBackward: dy must have shape \[1, 3\]/],
    [() => attn.layerNormBackward(x, x, { gamma: [1, 2] }), RangeError, /^layerNormBackward: gamma has shape \[2\]/],
    [() => attn.layerNormBackward(x, x, { eps: -1 }), RangeError, /^layerNormBackward: eps/],
    [() => attn.layerNormBackward(x, x, { epsilon: 1 }), TypeError, /^layerNormBackward: unknown option 'epsilon'/],
    [() => attn.feedForwardBackward(x, x), TypeError, /^feedForwardBackward: options/],
    [
      () => attn.feedForwardBackward(x, x, { w1: [[1], [1], [1]], w2: [[1, 2]] }),
      RangeError,
      /^feedForwardBackward: w2 has shape \[1, 2\]/,
    ],
    [
      () => attn.feedForwardBackward(x, x, { w1: [[1], [1], [1]], w2: [[1, 2, 3]], activation: 'tanh' }),
      RangeError,
      /^feedForwardBackward: activation/,
    ],
    [
      () => attn.softmaxCrossEntropy([[1, 2]], [2]),
      RangeError,
      /^softmaxCrossEntropy: targets\[0\] must be an integer in/,
    ],
    [() => attn.softmaxCrossEntropy([[1, 2]], [0.5]), RangeError, /^softmaxCrossEntropy: targets\[0\]/],
    [
      () =>
        attn.softmaxCrossEntropy(
          [
            [1, 2],
            [3, 4],
          ],
          [0],
        ),
      RangeError,
      /^softmaxCrossEntropy: targets has 1 values but logits \[2, 2\] has 2 rows/,
    ],
  ];
  const before = attn.memory().inUseBytes;
  for (const [call, type, message] of cases)
    assert.throws(call, (e) => e instanceof type && message.test(e.message), String(message));
  for (let i = 0; i < 200; i++) {
    attn.linearBackward(x, [[1], [2], [3]], [[1]]);
    attn.layerNormBackward(x, x);
    attn.feedForwardBackward(x, x, { w1: [[1], [1], [1]], w2: [[1, 2, 3]], activation: 'gelu' });
    attn.softmaxCrossEntropy([[1, 2]], [1]);
  }
  assert.equal(attn.memory().inUseBytes, before, 'wasm memory in use after 800 calls and 13 refused ones');
  assert.deepEqual(Array.from(attn.linearBackward([[1, 2]], [[1], [1]], [[3]]).dw.data), [3, 6]);
});
