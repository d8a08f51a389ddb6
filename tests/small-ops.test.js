// softmax, logSoftmax, rmsNorm and layerNorm (axis, returnStats) against float64 references,
// closed forms, non-finite rows, every axis of a 4-D tensor, errors and estimateMemory.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();

// x as [outer, axisLen, inner] around `axis`.
function split(shape, axis) {
  const size = (dims) => dims.reduce((a, b) => a * b, 1);
  return [size(shape.slice(0, axis)), shape[axis], size(shape.slice(axis + 1))];
}

// Float64 reference, the textbook way: m = max (NaN-propagating), s = Σ exp(x - m).
function refSoftmax(x, axis, log) {
  const [outer, n, inner] = split(x.shape, axis);
  const out = new Float64Array(x.data.length);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      const at = (a) => (o * n + a) * inner + i;
      let m = -Infinity;
      for (let a = 0; a < n; a++) m = Number.isNaN(x.data[at(a)]) || Number.isNaN(m) ? NaN : Math.max(m, x.data[at(a)]);
      let s = 0;
      for (let a = 0; a < n; a++) s += Math.exp(x.data[at(a)] - m);
      for (let a = 0; a < n; a++) out[at(a)] = log ? x.data[at(a)] - m - Math.log(s) : Math.exp(x.data[at(a)] - m) / s;
    }
  return { data: out, shape: x.shape };
}

// Normalisation over the axes from `axis` on: rows of dim values.
function refNorm(x, axis, { gamma, beta, eps = 1e-5, rms = false }) {
  const [rows] = split(x.shape, axis);
  const dim = x.data.length / rows;
  const out = new Float64Array(x.data.length),
    mean = new Float64Array(rows),
    inv = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    const row = Array.from(x.data.subarray(r * dim, (r + 1) * dim));
    const mu = rms ? 0 : row.reduce((a, b) => a + b, 0) / dim;
    const v = row.reduce((a, b) => a + (b - mu) ** 2, 0) / dim;
    mean[r] = mu;
    inv[r] = 1 / Math.sqrt(v + eps);
    row.forEach((value, c) => {
      out[r * dim + c] = (value - mu) * inv[r] * (gamma ? gamma.data[c] : 1) + (beta ? beta.data[c] : 0);
    });
  }
  return { out: { data: out, shape: x.shape }, mean, inv };
}

// The call leaves no wasm memory behind, and a later call still works.
function noLeak(body) {
  const before = attn.memory().inUseBytes;
  body();
  assert.equal(attn.memory().inUseBytes, before, 'heap bytes in use are back where they were');
  assertClose(
    attn.softmax([[0, Math.log(3)]]),
    { data: [0.25, 0.75], shape: [1, 2] },
    { atol: 1e-7, label: 'still working' },
  );
}

test('softmax and logSoftmax: closed forms and exactness at huge magnitudes', () => {
  const e = [1, 2, 3].map(Math.exp),
    s = e[0] + e[1] + e[2];
  assertClose(
    attn.softmax([1, 2, 3]),
    { data: e.map((v) => v / s), shape: [3] },
    { atol: 1e-7, rtol: 1e-6, label: 'softmax [1, 2, 3]' },
  );
  assertClose(
    attn.logSoftmax([1, 2, 3]),
    { data: [1, 2, 3].map((v) => v - Math.log(s)), shape: [3] },
    { atol: 1e-6, rtol: 1e-6, label: 'logSoftmax [1, 2, 3]' },
  );
  // 1e30 apart: log(sum) is exactly 0, so the result is x - max (no overflow, no log(0)).
  const big = attn.logSoftmax([
    [1e30, 0, -1e30],
    [-1e30, 1e30, 1e30],
  ]);
  assert.deepEqual(
    Array.from(big.data),
    [0, -Math.fround(1e30), Math.fround(-2e30), Math.fround(-2e30), -Math.log(2), -Math.log(2)].map(Math.fround),
  );
  assert.deepEqual(Array.from(attn.softmax([[3e38, 3e38, -3e38]]).data), [0.5, 0.5, 0]);
  // Shift invariance, and uniform rows give uniform weights, across the SIMD tail sizes.
  const random = rng(91);
  for (const n of [1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65]) {
    const x = randomTensor(random, [3, n], -5, 5);
    const shifted = { data: x.data.map((v) => v + 1000), shape: x.shape };
    assertClose(attn.softmax(shifted), attn.softmax(x), { atol: 2e-5, label: `shift n=${n}` });
    assertClose(
      attn.softmax({ data: new Float32Array(2 * n).fill(7), shape: [2, n] }),
      { data: new Float64Array(2 * n).fill(1 / n), shape: [2, n] },
      { atol: 1e-7, label: `uniform n=${n}` },
    );
  }
});

test('softmax and logSoftmax over every axis of 4-D tensors match the float64 reference', () => {
  const random = rng(92);
  for (const shape of [
    [2, 3, 5, 9],
    [5, 4, 3, 2],
    [1, 7, 1, 65],
    [3, 1, 6, 4],
    [2, 9, 8, 5],
  ]) {
    const x = randomTensor(random, shape, -8, 8);
    for (let axis = -4; axis < 4; axis++) {
      const positive = axis < 0 ? axis + 4 : axis;
      assertClose(attn.softmax(x, { axis }), refSoftmax(x, positive, false), {
        atol: 1e-7,
        rtol: 2e-6,
        label: `softmax ${shape} axis ${axis}`,
      });
      assertClose(attn.logSoftmax(x, { axis }), refSoftmax(x, positive, true), {
        atol: 5e-6,
        rtol: 2e-6,
        label: `logSoftmax ${shape} axis ${axis}`,
      });
    }
  }
  // Default axis: the last.
  const x = randomTensor(random, [4, 6]);
  assert.deepEqual(attn.softmax(x).data, attn.softmax(x, { axis: 1 }).data);
  assert.deepEqual(attn.logSoftmax(x).data, attn.logSoftmax(x, { axis: -1 }).data);
});

test('non-finite rows: all -Infinity gives NaN (as PyTorch), a NaN or +Infinity poisons only its line, -Infinity entries weigh 0', () => {
  // Along the last axis (contiguous rows, 4-lane body and scalar tail).
  for (const n of [2, 5, 9]) {
    const rows = [
      Array(n).fill(-Infinity),
      Array.from({ length: n }, (_, i) => (i === n - 1 ? NaN : i)),
      Array.from({ length: n }, (_, i) => (i === 0 ? Infinity : i)),
      Array.from({ length: n }, (_, i) => (i % 2 ? -Infinity : 1)),
    ];
    for (const log of [false, true]) {
      const x = { data: Float32Array.from(rows.flat()), shape: [4, n] };
      const y = (log ? attn.logSoftmax : attn.softmax)(x);
      assertClose(y, refSoftmax(x, 1, log), { atol: 1e-6, label: `non-finite n=${n} log=${log}` });
      assert.ok(y.data.subarray(0, 3 * n).every(Number.isNaN), 'the first three rows are NaN');
      const kept = Math.ceil(n / 2);
      for (let i = 0; i < n; i++)
        assert.equal(
          y.data[3 * n + i],
          i % 2 ? (log ? -Infinity : 0) : Math.fround(log ? -Math.log(kept) : 1 / kept) + 0,
        );
    }
  }
  // Along axis 0 (strided columns: four-lane blocks and scalar leftovers): only the bad columns.
  for (const inner of [2, 4, 6, 9]) {
    const x = randomTensor(rng(inner), [3, inner]);
    x.data[0 * inner + 1] = NaN;
    x.data[1 * inner + (inner - 1)] = Infinity;
    for (let r = 0; r < 3; r++) x.data[r * inner] = -Infinity;
    for (const log of [false, true]) {
      const y = (log ? attn.logSoftmax : attn.softmax)(x, { axis: 0 });
      assertClose(y, refSoftmax(x, 0, log), { atol: 1e-6, label: `strided inner=${inner} log=${log}` });
      for (let c = 0; c < inner; c++) {
        const bad = c === 0 || c === 1 || c === inner - 1;
        for (let r = 0; r < 3; r++) assert.equal(Number.isNaN(y.data[r * inner + c]), bad, `column ${c} row ${r}`);
      }
    }
  }
});

test('rmsNorm: reference over every axis, constant rows, weight, eps', () => {
  // A constant row c: c / sqrt(c² + eps) · w.
  const c = 3;
  const y = attn.rmsNorm([[c, c, c, c, c]], { weight: [1, 2, 3, 4, 5], eps: 0.25 });
  assertClose(
    y,
    { data: [1, 2, 3, 4, 5].map((w) => (c / Math.sqrt(c * c + 0.25)) * w), shape: [1, 5] },
    { atol: 1e-7, rtol: 1e-6, label: 'constant row' },
  );
  assert.deepEqual(Array.from(attn.rmsNorm([[0, 0, 0]]).data), [0, 0, 0]);
  // Huge values: the mean of squares is taken in double (1e60 would overflow float).
  assertClose(attn.rmsNorm([[1e30, -1e30]]), { data: [1, -1], shape: [1, 2] }, { atol: 1e-6, label: '1e30' });
  const random = rng(93);
  for (const shape of [
    [2, 3, 5, 9],
    [3, 4, 1, 65],
    [1, 2, 3, 4],
  ]) {
    const x = randomTensor(random, shape, -3, 5);
    for (let axis = -4; axis < 4; axis++) {
      const positive = axis < 0 ? axis + 4 : axis;
      const weight = randomTensor(random, shape.slice(positive));
      assertClose(attn.rmsNorm(x, { axis, weight }), refNorm(x, positive, { gamma: weight, rms: true }).out, {
        atol: 2e-6,
        rtol: 2e-6,
        label: `rmsNorm ${shape} axis ${axis}`,
      });
      assertClose(attn.rmsNorm(x, { axis, eps: 0.5 }), refNorm(x, positive, { eps: 0.5, rms: true }).out, {
        atol: 2e-6,
        rtol: 2e-6,
        label: `rmsNorm ${shape} axis ${axis} eps`,
      });
    }
  }
});

test("layerNorm: axis and returnStats give ONNX LayerNormalization's output, mean and invStdDev", () => {
  const random = rng(94);
  // The default call still returns the output tensor.
  const plain = attn.layerNorm([[1, 2, 3]]);
  assert.deepEqual(plain.shape, [1, 3]);
  assertClose(
    plain,
    { data: [-1, 0, 1].map((v) => v / Math.sqrt(2 / 3 + 1e-5)), shape: [1, 3] },
    { atol: 1e-6, label: '[1, 2, 3]' },
  );
  const stats = attn.layerNorm(
    [
      [1, 2, 3],
      [5, 5, 5],
    ],
    { returnStats: true, eps: 0 + 1e-3 },
  );
  assert.deepEqual(stats.mean.shape, [2, 1]);
  assertClose(stats.mean, { data: [2, 5], shape: [2, 1] }, { atol: 1e-7, label: 'mean' });
  assertClose(
    stats.invStdDev,
    { data: [1 / Math.sqrt(2 / 3 + 1e-3), 1 / Math.sqrt(1e-3)], shape: [2, 1] },
    { atol: 1e-5, label: 'invStdDev' },
  );
  assert.deepEqual(Array.from(stats.output.data.subarray(3)), [0, 0, 0], 'a constant row normalises to 0');
  for (const shape of [
    [2, 3, 5, 9],
    [3, 4, 1, 65],
    [2, 1, 3, 4],
  ]) {
    const x = randomTensor(random, shape, -2, 6);
    for (let axis = -4; axis < 4; axis++) {
      const positive = axis < 0 ? axis + 4 : axis;
      const gamma = randomTensor(random, shape.slice(positive)),
        beta = randomTensor(random, shape.slice(positive));
      const ref = refNorm(x, positive, { gamma, beta });
      const statsShape = [...shape.slice(0, positive), ...shape.slice(positive).map(() => 1)];
      const got = attn.layerNorm(x, { gamma, beta, axis, returnStats: true });
      assertClose(got.output, ref.out, { atol: 5e-6, rtol: 2e-6, label: `layerNorm ${shape} axis ${axis}` });
      assertClose(got.mean, { data: ref.mean, shape: statsShape }, { atol: 1e-6, label: `mean ${shape} axis ${axis}` });
      assertClose(
        got.invStdDev,
        { data: ref.inv, shape: statsShape },
        { atol: 1e-6, rtol: 2e-6, label: `invStdDev ${shape} axis ${axis}` },
      );
      assert.deepEqual(
        attn.layerNorm(x, { gamma, beta, axis }).data,
        got.output.data,
        'returnStats does not change the output',
      );
    }
  }
  // A large offset: the two-pass variance in double stays exact.
  const offset = randomTensor(random, [4, 16], 1e4, 1e4 + 1);
  assertClose(attn.layerNorm(offset), refNorm(offset, 1, {}).out, { atol: 2e-3, label: 'offset 1e4' });
});

test('errors: TypeError / RangeError named after the function, checked before any allocation', () => {
  const x = [
    [1, 2],
    [3, 4],
  ];
  const cases = [
    [() => attn.softmax(x, { axis: 3 }), RangeError, /^softmax: options\.axis is 3 but x has 2 dims/],
    [() => attn.softmax(x, { axis: -3 }), RangeError, /^softmax: options\.axis is -3/],
    [() => attn.logSoftmax(x, { axis: 0.5 }), RangeError, /^logSoftmax: options\.axis is 0\.5/],
    [() => attn.logSoftmax(x, { axis: '1' }), TypeError, /^logSoftmax: options\.axis must be an integer/],
    [() => attn.softmax(x, { dim: 1 }), TypeError, /^softmax: unknown option 'dim'/],
    [() => attn.softmax('x'), TypeError, /^softmax: x must be a tensor/],
    [
      () => attn.softmax({ data: new Float32Array(0), shape: [] }),
      RangeError,
      /^softmax: x has 0 values but shape \[\] needs 1|^softmax: options\.axis is -1 but x has 0 dims/,
    ],
    [() => attn.rmsNorm(x, { weight: [1, 2, 3] }), RangeError, /^rmsNorm: weight has shape \[3\] but must be \[2\]/],
    [
      () => attn.rmsNorm(x, { axis: 0, weight: [1, 2] }),
      RangeError,
      /^rmsNorm: weight has shape \[2\] but must be \[2, 2\]/,
    ],
    [() => attn.rmsNorm(x, { eps: -1 }), RangeError, /^rmsNorm: eps must be a finite number >= 0/],
    [() => attn.rmsNorm(x, { eps: '1' }), TypeError, /^rmsNorm: eps must be a number/],
    [() => attn.rmsNorm(x, { axis: 2 }), RangeError, /^rmsNorm: options\.axis is 2 but x has 2 dims/],
    [
      () => attn.layerNorm(x, { axis: 0, gamma: [1, 2] }),
      RangeError,
      /^layerNorm: gamma has shape \[2\] but must be \[2, 2\]/,
    ],
    [() => attn.layerNorm(x, { returnStats: 1 }), TypeError, /^layerNorm: options\.returnStats must be a boolean/],
    [() => attn.layerNorm(x, { axis: true }), TypeError, /^layerNorm: options\.axis must be an integer/],
  ];
  noLeak(() => {
    for (const [call, kind, message] of cases)
      assert.throws(call, (e) => e instanceof kind && message.test(e.message), String(message));
  });
});

test('estimateMemory knows softmax, logSoftmax, rmsNorm and layerNorm, and agrees with the calls', () => {
  const x = { data: new Float32Array(24), shape: [2, 3, 4] };
  const softmax = attn.estimateMemory('softmax', x, { axis: 1 });
  assert.deepEqual(softmax.blocks, [
    { name: 'x', shape: [2, 3, 4], bytes: 96 },
    { name: 'output', shape: [2, 3, 4], bytes: 96 },
  ]);
  assert.equal(softmax.fits, true);
  assert.equal(attn.estimateMemory('logSoftmax', x).bytes, 192);
  assert.equal(
    attn.estimateMemory('rmsNorm', x, { weight: { data: new Float32Array(12), shape: [3, 4] }, axis: 1 }).bytes,
    96 + 48,
  );
  const ln = attn.estimateMemory('layerNorm', x, { axis: -2, returnStats: true });
  assert.deepEqual(
    ln.blocks.map((b) => [b.name, b.shape]),
    [
      ['x', [2, 3, 4]],
      ['mean', [2, 1, 1]],
      ['invStdDev', [2, 1, 1]],
    ],
  );
  assert.throws(
    () => attn.estimateMemory('softmax', x, { axis: 3 }),
    (e) => e instanceof RangeError && /^softmax: options\.axis is 3 but x has 3 dims/.test(e.message),
  );
  // Empty tensors of huge dims take no wasm memory and return at once.
  const huge = { data: new Float32Array(0), shape: [0, 2 ** 30] };
  assert.equal(attn.estimateMemory('softmax', huge).bytes, 0);
  assert.deepEqual(attn.softmax(huge).shape, [0, 2 ** 30]);
  // Empty rows: layerNorm's stats of rows with no values are NaN.
  const empty = attn.layerNorm({ data: new Float32Array(0), shape: [2, 0] }, { returnStats: true });
  assert.deepEqual(empty.mean.shape, [2, 1]);
  assert.ok(empty.mean.data.every(Number.isNaN) && empty.invStdDev.data.every(Number.isNaN));
});
