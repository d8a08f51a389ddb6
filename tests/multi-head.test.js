// MultiHeadAttention against the definition (float64), its symmetries, the worked examples,
// configuration errors and its wasm memory.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { refMultiHead, refMatmul } from './helpers/reference-layers.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();

function layerWithRandomWeights(random, config) {
  const layer = new attn.MultiHeadAttention(config);
  const shapes = Object.fromEntries(Object.entries(layer.getWeights()).map(([n, t]) => [n, t.shape]));
  const weights = Object.fromEntries(Object.entries(shapes).map(([n, s]) => [n, randomTensor(random, s, -0.5, 0.5)]));
  layer.setWeights(weights);
  return { layer, weights };
}

test('forward matches the definition: batched, unbatched, bias, GQA, kDim/vDim, masks, causal, key lengths', () => {
  const random = rng(50);
  const configs = [
    { dModel: 8, numHeads: 2 },
    { dModel: 12, numHeads: 3, bias: false },
    { dModel: 16, numHeads: 4, numKvHeads: 2 },
    { dModel: 16, numHeads: 4, numKvHeads: 1, kDim: 5, vDim: 7 },
    { dModel: 64, numHeads: 8 },
  ];
  for (const config of configs) {
    const { layer, weights } = layerWithRandomWeights(random, config);
    const kv = (config.numKvHeads ?? config.numHeads) * (config.dModel / config.numHeads);
    const shapes = layer.getWeights();
    assert.deepEqual(shapes.wk.shape, [config.kDim ?? config.dModel, kv]);
    const B = 2,
      Lq = 5,
      Lk = 9;
    const query = randomTensor(random, [B, Lq, config.dModel]);
    const key = randomTensor(random, [B, Lk, config.kDim ?? config.dModel]);
    const value = randomTensor(random, [B, Lk, config.vDim ?? config.dModel]);
    const boolMask = {
      data: Uint8Array.from({ length: Lq * Lk }, () => (random(0, 1) < 0.7 ? 1 : 0)),
      shape: [Lq, Lk],
    };
    const cases = [
      {},
      { causal: true },
      { causal: true, causalAlign: 'bottom-right' },
      { keyLengths: [9, 4] },
      { mask: boolMask },
      { mask: randomTensor(random, [B, 1, Lq, Lk], -1, 1) },
    ];
    for (const options of cases) {
      const label = `${JSON.stringify(config)} ${JSON.stringify(Object.keys(options))}`;
      const refMask = options.mask ? { ...options.mask, boolean: options.mask.data instanceof Uint8Array } : undefined;
      const ref = refMultiHead(query, key, value, weights, config.numHeads, config.numKvHeads ?? config.numHeads, {
        ...options,
        mask: refMask,
      });
      const fast = layer.forward(query, key, value, options);
      assertClose(fast.output, ref.output, { atol: 2e-5, label: `${label} output` });
      const withWeights = layer.forward(query, key, value, { ...options, returnWeights: true });
      assertClose(withWeights.output, ref.output, { atol: 2e-5, label: `${label} stepwise output` });
      assertClose(withWeights.weights, ref.weights, { atol: 1e-6, label: `${label} weights` });
    }
    // Unbatched input gives the unbatched output of the same numbers.
    const single = { data: query.data.slice(0, Lq * config.dModel), shape: [Lq, config.dModel] };
    const singleK = { data: key.data.slice(0, Lk * key.shape[2]), shape: [Lk, key.shape[2]] };
    const singleV = { data: value.data.slice(0, Lk * value.shape[2]), shape: [Lk, value.shape[2]] };
    const unbatched = layer.forward(single, singleK, singleV);
    assert.deepEqual(unbatched.output.shape, [Lq, config.dModel]);
    assertClose(
      unbatched.output,
      { data: layer.forward(query, key, value).output.data.slice(0, Lq * config.dModel), shape: [Lq, config.dModel] },
      { atol: 1e-6, label: 'unbatched' },
    );
    layer.dispose();
  }
});

test('averageWeights and trace return per-head stages that fit together', () => {
  const random = rng(51);
  const { layer, weights } = layerWithRandomWeights(random, { dModel: 8, numHeads: 2, numKvHeads: 1 });
  const x = randomTensor(random, [2, 4, 8]);
  const avg = layer.forward(x, x, x, { averageWeights: true });
  assert.deepEqual(avg.weights.shape, [2, 4, 4]);
  const { trace, weights: perHead } = layer.forward(x, x, x, { trace: true });
  assert.deepEqual(perHead.shape, [2, 2, 4, 4]);
  for (let i = 0; i < 2 * 16; i++) {
    const b = Math.floor(i / 16),
      r = i % 16;
    const mean = (perHead.data[b * 2 * 16 + r] + perHead.data[(b * 2 + 1) * 16 + r]) / 2;
    assert.ok(Math.abs(avg.weights.data[i] - mean) < 1e-7);
  }
  assert.deepEqual(trace.q.shape, [2, 2, 4, 4]);
  assert.deepEqual(trace.k.shape, [2, 1, 4, 4]);
  assert.deepEqual(trace.concat.shape, [2, 4, 8]);
  // Q of head 1 = columns 4..7 of x·W_Q + b_Q.
  const Q = refMatmul(x, weights.wq, weights.bq);
  for (let b = 0; b < 2; b++)
    for (let i = 0; i < 4; i++)
      for (let c = 0; c < 4; c++) {
        assert.ok(Math.abs(trace.q.data[((b * 2 + 1) * 4 + i) * 4 + c] - Q.data[(b * 4 + i) * 8 + 4 + c]) < 1e-5);
      }
  assertClose(trace.output, refMatmul(trace.concat, weights.wo, weights.bo), {
    atol: 1e-5,
    label: 'output = concat·W_O',
  });
  layer.dispose();
});

test("one head with the slides' weights reproduces the four worked examples", () => {
  const t = (rows) => ({ data: Float32Array.from(rows.flat()), shape: [rows.length, rows[0].length] });
  const layer = new attn.MultiHeadAttention({ dModel: 3, numHeads: 1, bias: false });
  const W = {
    wq: t([
      [-0.35, 0.51, 0.5],
      [0.36, -0.47, -0.29],
      [-0.51, -0.14, -0.56],
    ]),
    wk: t([
      [-0.49, -0.68, 0.18],
      [-0.44, -0.46, 0.18],
      [0.07, -0.1, 0.44],
    ]),
    wv: t([
      [-0.41, 0.39, -0.65],
      [-0.4, -0.07, -0.34],
      [-0.55, -0.13, -0.29],
    ]),
    wo: t([
      [-0.36, -0.08, 0.32],
      [0.27, 0.05, 0.15],
      [-0.05, -0.28, 0.05],
    ]),
  };
  layer.setWeights(W);
  const X2 = t([
    [-0.1, 0.1, 0.3],
    [0.4, -1.1, -0.3],
  ]);
  const C = t([
    [-0.6, 0.3, -0.4],
    [0.5, 0.9, -0.5],
  ]);
  const batch = (x) => ({ data: x.data, shape: [1, ...x.shape] });
  const X1 = t([[-0.1, 0.1, 0.3]]);
  const cases = [
    ['ex1', X1, X1, {}, null], // the slides print V where Y belongs; compared exactly only
    [
      'ex2',
      X2,
      X2,
      {},
      [
        [-0.029, -0.028, 0.065],
        [-0.025, -0.025, 0.058],
      ],
    ],
    [
      'ex3',
      X2,
      X2,
      { causal: true },
      [
        [0.03, 0.02, -0.06],
        [-0.02, -0.02, 0.05],
      ],
    ],
    [
      'ex4',
      C,
      X2,
      {},
      [
        [-0.0305, -0.0296, 0.0677],
        [-0.0281, -0.0277, 0.063],
      ],
    ],
  ];
  for (const [name, q, kv, options, slidesY] of cases) {
    const ref = refMultiHead(batch(q), batch(kv), batch(kv), W, 1, 1, options);
    const y = layer.forward(q, kv, kv, options).output;
    assertClose(y, { data: ref.output.data, shape: q.shape }, { atol: 1e-6, label: `${name} exact` });
    if (slidesY)
      assertClose(y, { data: slidesY.flat(), shape: [2, 3] }, { atol: 0.01, rtol: 0, label: `${name} vs slides` });
  }
  layer.dispose();
});

const permuteRows = (t, order) => {
  const [L, d] = t.shape.slice(-2);
  const B = t.data.length / (L * d);
  const out = new Float32Array(t.data.length);
  for (let b = 0; b < B; b++)
    order.forEach((src, i) => out.set(t.data.subarray((b * L + src) * d, (b * L + src + 1) * d), (b * L + i) * d));
  return { data: out, shape: t.shape };
};

test('self-attention is permutation equivariant; causal masks and positional encodings break it', () => {
  const random = rng(52);
  const layer = new attn.MultiHeadAttention({ dModel: 16, numHeads: 4, seed: 3 });
  const x = randomTensor(random, [7, 16]);
  const perm = [4, 0, 6, 2, 1, 5, 3];
  const px = permuteRows(x, perm);
  assertClose(layer.forward(px).output, permuteRows(layer.forward(x).output, perm), {
    atol: 1e-6,
    label: 'f(P·X) = P·f(X)',
  });
  // Keys and values permuted together: the output does not change.
  assertClose(layer.forward(x, px, px).output, layer.forward(x).output, { atol: 1e-6, label: 'key-value permutation' });
  const differs = (a, b) => a.data.some((v, i) => Math.abs(v - b.data[i]) > 1e-3);
  assert.ok(
    differs(
      layer.forward(px, px, px, { causal: true }).output,
      permuteRows(layer.forward(x, x, x, { causal: true }).output, perm),
    ),
    'causal breaks equivariance',
  );
  const pe = attn.sinusoidalEncoding(7, 16);
  const withPe = (t) => attn.addPositionalEncoding(t, pe);
  assert.ok(
    differs(layer.forward(withPe(px)).output, permuteRows(layer.forward(withPe(x)).output, perm)),
    'positions break equivariance',
  );
  // ... and both break the invariance to re-ordering key-value pairs.
  assert.ok(
    differs(layer.forward(x, px, px, { causal: true }).output, layer.forward(x, x, x, { causal: true }).output),
    'causal breaks key-value invariance',
  );
  assert.ok(
    differs(layer.forward(x, withPe(px), withPe(px)).output, layer.forward(x, withPe(x), withPe(x)).output),
    'positions break key-value invariance',
  );
  layer.dispose();
});

test('seeded initialisation is deterministic Xavier-uniform with zero biases', () => {
  const a = new attn.MultiHeadAttention({ dModel: 32, numHeads: 4, seed: 9 });
  const b = new attn.MultiHeadAttention({ dModel: 32, numHeads: 4, seed: 9 });
  const c = new attn.MultiHeadAttention({ dModel: 32, numHeads: 4, seed: 10 });
  const wa = a.getWeights(),
    wb = b.getWeights(),
    wc = c.getWeights();
  assert.deepEqual(wa.wq.data, wb.wq.data);
  assert.notDeepEqual(wa.wq.data, wc.wq.data);
  const bound = Math.sqrt(6 / 64);
  const values = Array.from(wa.wq.data);
  assert.ok(values.every((v) => Math.abs(v) <= bound));
  assert.ok(Math.max(...values) > 0.9 * bound && Math.min(...values) < -0.9 * bound, 'fills the range');
  const variance = values.reduce((s, v) => s + v * v, 0) / values.length;
  assert.ok(Math.abs(variance - (bound * bound) / 3) < (0.15 * bound * bound) / 3, `variance ${variance}`);
  assert.ok(wa.bq.data.every((v) => v === 0));
  for (const m of [a, b, c]) m.dispose();
});

test('bad configurations and inputs are clear errors; dispose frees memory and blocks reuse', () => {
  const M = attn.MultiHeadAttention;
  assert.throws(
    () => new M({ dModel: 10, numHeads: 3 }),
    (e) => e instanceof RangeError && /dModel \(10\) must be divisible by numHeads \(3\)/.test(e.message),
  );
  assert.throws(
    () => new M({ dModel: 8, numHeads: 4, numKvHeads: 3 }),
    (e) => e instanceof RangeError && /numKvHeads/.test(e.message),
  );
  assert.throws(
    () => new M({ dModel: 0, numHeads: 1 }),
    (e) => e instanceof RangeError && /dModel must be a positive integer/.test(e.message),
  );
  assert.throws(() => new M({ dModel: '8', numHeads: 1 }), TypeError);
  assert.throws(
    () => new M({ dModel: 8, heads: 2 }),
    (e) => e instanceof TypeError && /unknown config 'heads'/.test(e.message),
  );
  const before = attn.memory().inUseBytes;
  const layer = new M({ dModel: 8, numHeads: 2 });
  assert.ok(attn.memory().inUseBytes > before);
  assert.throws(
    () => layer.setWeights({ wq: randomTensor(rng(1), [8, 4]) }),
    (e) => e instanceof RangeError && /wq has shape \[8, 4\] but this layer needs \[8, 8\]/.test(e.message),
  );
  assert.throws(
    () => layer.forward(randomTensor(rng(1), [3, 7])),
    (e) => e instanceof RangeError && /query has 7 features but this layer expects 8/.test(e.message),
  );
  assert.throws(
    () => layer.forward(randomTensor(rng(1), [2, 3, 8]), randomTensor(rng(1), [3, 3, 8])),
    (e) => e instanceof RangeError && /key has batch 3 but query has 2/.test(e.message),
  );
  assert.throws(
    () =>
      layer.forward(randomTensor(rng(1), [3, 8]), undefined, undefined, {
        mask: { data: new Uint8Array(6), shape: [2, 3] },
      }),
    (e) => e instanceof RangeError && /mask \[2, 3\] does not broadcast/.test(e.message),
  );
  assert.throws(
    () => layer.forward(randomTensor(rng(1), [3, 8]), undefined, undefined, { casual: true }),
    (e) => e instanceof TypeError && /unknown option 'casual'/.test(e.message),
  );
  const used = attn.memory().inUseBytes;
  layer.forward(randomTensor(rng(1), [3, 8]), undefined, undefined, { trace: true });
  assert.equal(attn.memory().inUseBytes, used, 'forward frees its scratch');
  layer.dispose();
  assert.equal(attn.memory().inUseBytes, before, 'dispose frees the weights');
  assert.throws(
    () => layer.forward(randomTensor(rng(1), [3, 8])),
    /MultiHeadAttention\.forward: this object was disposed/,
  );
  assert.throws(() => layer.getWeights(), /disposed/);
  layer.dispose(); // a second dispose is harmless
});

test('padding past keyLengths may hold NaN or garbage: outputs equal the zero-padded ones', () => {
  const random = rng(53);
  const layer = new attn.MultiHeadAttention({ dModel: 16, numHeads: 4, seed: 2 });
  const x = randomTensor(random, [2, 9, 16]);
  const keyLengths = [9, 5];
  const clean = { data: x.data.slice(), shape: x.shape };
  const dirty = { data: x.data.slice(), shape: x.shape };
  for (let i = 5; i < 9; i++)
    for (let c = 0; c < 16; c++) {
      clean.data[(9 + i) * 16 + c] = 0;
      dirty.data[(9 + i) * 16 + c] = c % 2 ? NaN : 1e30;
    }
  for (const returnWeights of [false, true]) {
    const a = layer.forward(clean, clean, clean, { keyLengths, returnWeights }).output;
    const b = layer.forward(clean, dirty, dirty, { keyLengths, returnWeights }).output;
    assertClose(b, a, { atol: 0, rtol: 0, label: `keys/values padded with NaN, weights=${returnWeights}` });
    assert.ok(b.data.every(Number.isFinite));
  }
  layer.dispose();
});

test('a per-head mask applies head by head without a batch axis, as with one', async () => {
  const api = await init();
  const mha = new api.MultiHeadAttention({ dModel: 4, numHeads: 2, seed: 1 });
  const x = [
    [1, 2, 0, -1],
    [0.5, -1, 2, 1],
    [1, 1, 1, 1],
  ];
  const mask = [
    [
      [true, false, false],
      [true, true, false],
      [false, true, true],
    ],
    [
      [true, true, true],
      [false, true, false],
      [true, false, true],
    ],
  ];
  const unbatched = mha.forward(x, x, x, { mask }).output.data;
  const batched = mha.forward([x], [x], [x], { mask: [mask] }).output.data;
  assert.deepEqual(Array.from(unbatched), Array.from(batched));
  const headZeroEverywhere = mha.forward(x, x, x, { mask: [mask[0], mask[0]] }).output.data;
  assert.notDeepEqual(Array.from(unbatched), Array.from(headZeroEverywhere));
  mha.dispose();
});

test('weights stored as MatMul panels: getWeights returns exactly what setWeights wrote, whatever the width; one matrix changed alone is used', () => {
  const random = rng(57);
  // kv widths of 3 and 6 and kDim/vDim of 5 and 7: panels padded past the last column.
  const config = { dModel: 6, numHeads: 2, numKvHeads: 1, kDim: 5, vDim: 7, seed: 2 };
  const { layer, weights } = layerWithRandomWeights(random, config);
  try {
    const back = layer.getWeights();
    for (const [name, t] of Object.entries(weights)) {
      assert.deepEqual(back[name].shape, t.shape, name);
      assert.deepEqual(Array.from(back[name].data), Array.from(t.data), `${name} round trip`);
    }
    const q = randomTensor(random, [2, 4, 6]),
      k = randomTensor(random, [2, 3, 5]),
      v = randomTensor(random, [2, 3, 7]);
    const w = Object.fromEntries(Object.entries(weights).map(([n, t]) => [n, t]));
    for (const name of ['wq', 'wk', 'wv', 'wo']) {
      w[name] = randomTensor(random, weights[name].shape, -0.5, 0.5);
      layer.setWeights({ [name]: w[name] });
      assertClose(layer.forward(q, k, v).output, refMultiHead(q, k, v, w, 2, 1).output, {
        label: `after setting ${name}`,
        atol: 1e-5,
        rtol: 1e-4,
      });
    }
  } finally {
    layer.dispose();
  }
});

test('window: MultiHeadAttention and TransformerEncoderLayer give what the same band as an explicit mask gives; errors name the option', () => {
  const random = rng(77);
  const L = 37,
    left = 5,
    right = 2;
  const x = randomTensor(random, [2, L, 16]);
  const band = (causal) => ({
    data: Uint8Array.from({ length: L * L }, (_, e) => {
      const i = Math.floor(e / L),
        j = e % L;
      return j >= i - left && j <= (causal ? i : i + right) ? 1 : 0;
    }),
    shape: [L, L],
  });
  const layer = new attn.MultiHeadAttention({ dModel: 16, numHeads: 4, numKvHeads: 2, seed: 5 });
  const encoder = new attn.TransformerEncoderLayer({ dModel: 16, numHeads: 4, dFF: 32, seed: 6 });
  try {
    for (const [options, mask] of [
      [{ causal: true, window: { left } }, band(true)],
      [{ window: { left, right } }, band(false)],
    ]) {
      const label = JSON.stringify(options);
      const byWindow = layer.forward(x, x, x, { ...options, returnWeights: true });
      const byMask = layer.forward(x, x, x, { mask, returnWeights: true });
      assertClose(
        byWindow.output,
        { data: Float64Array.from(byMask.output.data), shape: byMask.output.shape },
        { atol: 1e-6, rtol: 1e-5, label: `MHA ${label}` },
      );
      assertClose(
        byWindow.weights,
        { data: Float64Array.from(byMask.weights.data), shape: byMask.weights.shape },
        { atol: 1e-6, rtol: 1e-5, label: `MHA weights ${label}` },
      );
      assertClose(
        layer.forward(x, x, x, options).output,
        { data: Float64Array.from(byMask.output.data), shape: byMask.output.shape },
        { atol: 1e-6, rtol: 1e-5, label: `MHA fused ${label}` },
      );
      const e1 = encoder.forward(x, options),
        e2 = encoder.forward(x, { mask });
      assertClose(
        e1,
        { data: Float64Array.from(e2.data), shape: e2.shape },
        { atol: 1e-5, rtol: 1e-5, label: `encoder ${label}` },
      );
    }
    assert.throws(() => layer.forward(x, x, x, { window: { left: -1 } }), {
      name: 'RangeError',
      message: /^MultiHeadAttention\.forward: options\.window\.left/,
    });
    assert.throws(() => encoder.forward(x, { window: 3 }), {
      name: 'TypeError',
      message: /options\.window must be an object/,
    });
  } finally {
    layer.dispose();
    encoder.dispose();
  }
});
