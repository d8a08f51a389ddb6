// Mask rules (boolean, additive, broadcast), causal alignment, key lengths, fully masked
// rows, and NaN/Inf in blocked keys and values, on both paths.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();

// Runs both paths and compares output (and weights) with the reference.
function check(q, k, v, options, refOptions, label) {
  const ref = referenceAttention(q, k, v, refOptions);
  assertClose(attn.attention(q, k, v, options).output, ref.output, { label: `${label} fused` });
  const stepwise = attn.attention(q, k, v, { ...options, returnWeights: true });
  assertClose(stepwise.output, ref.output, { label: `${label} stepwise` });
  assertClose(stepwise.weights, ref.weights, { label: `${label} weights`, atol: 1e-6 });
  return stepwise;
}

function randomBooleanMask(random, shape, pTrue = 0.6) {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Uint8Array(n);
  for (let i = 0; i < n; i++) data[i] = random(0, 1) < pTrue ? 1 : 0;
  return { data, shape };
}

test('boolean masks (true = may attend) in every broadcast form', () => {
  const random = rng(10);
  const q = randomTensor(random, [2, 3, 9, 8]),
    k = randomTensor(random, [2, 3, 13, 8]),
    v = randomTensor(random, [2, 3, 13, 5]);
  for (const shape of [[9, 13], [13], [1, 13], [9, 1], [2, 1, 1, 13], [3, 9, 13], [2, 3, 9, 13], [2, 1, 9, 1]]) {
    const mask = randomBooleanMask(random, shape);
    check(q, k, v, { mask }, { mask: { ...mask, boolean: true } }, `bool mask ${JSON.stringify(shape)}`);
  }
});

test('additive float masks add to the scaled scores; -Infinity blocks', () => {
  const random = rng(11);
  const q = randomTensor(random, [2, 7, 4]),
    k = randomTensor(random, [2, 11, 4]),
    v = randomTensor(random, [2, 11, 3]);
  for (const shape of [[7, 11], [2, 1, 11], [11]]) {
    const mask = randomTensor(random, shape, -2, 2);
    for (let i = 0; i < mask.data.length; i += 3) mask.data[i] = -Infinity;
    check(q, k, v, { mask }, { mask }, `additive ${JSON.stringify(shape)}`);
  }
});

test('nested-array masks: booleans are boolean, numbers are additive', () => {
  const q = [
      [1, 0],
      [0, 1],
    ],
    k = [
      [1, 0],
      [0, 1],
      [1, 1],
    ],
    v = [
      [1, 2],
      [3, 4],
      [5, 6],
    ];
  const asTensor = (x, shape) => ({ data: Float32Array.from(x.flat()), shape });
  const [tq, tk, tv] = [asTensor(q, [2, 2]), asTensor(k, [3, 2]), asTensor(v, [3, 2])];
  const boolMask = [
    [true, false, true],
    [false, true, true],
  ];
  const refBool = referenceAttention(tq, tk, tv, {
    mask: { data: Uint8Array.from(boolMask.flat()), shape: [2, 3], boolean: true },
  });
  const floatMask = [
    [0, -1, 0.5],
    [-Infinity, 0, 2],
  ];
  const refFloat = referenceAttention(tq, tk, tv, { mask: asTensor(floatMask, [2, 3]) });
  for (const returnWeights of [false, true]) {
    assertClose(attn.attention(q, k, v, { mask: boolMask, returnWeights }).output, refBool.output, {
      label: 'nested bool',
    });
    const r = attn.attention(q, k, v, { mask: floatMask, returnWeights });
    assertClose(r.output, refFloat.output, { label: 'nested float' });
    if (returnWeights) assert.equal(r.weights.data[3], 0, 'blocked by -Infinity');
  }
});

test('causal top-left and bottom-right with Lq < Lk, Lq = Lk, Lq > Lk', () => {
  const random = rng(12);
  for (const [seqQ, seqK] of [
    [3, 7],
    [5, 5],
    [9, 4],
    [1, 9],
    [12, 70],
    [70, 12],
    [64, 65],
  ]) {
    const q = randomTensor(random, [2, seqQ, 8]),
      k = randomTensor(random, [2, seqK, 8]),
      v = randomTensor(random, [2, seqK, 6]);
    for (const causalAlign of ['top-left', 'bottom-right']) {
      const r = check(
        q,
        k,
        v,
        { causal: true, causalAlign },
        { causal: true, causalAlign },
        `causal ${causalAlign} ${seqQ}x${seqK}`,
      );
      const offset = causalAlign === 'bottom-right' ? seqK - seqQ : 0;
      for (let i = 0; i < seqQ; i++) {
        for (let j = 0; j < seqK; j++) {
          if (j > i + offset) assert.equal(r.weights.data[i * seqK + j], 0, `future key ${j} of row ${i}`);
        }
      }
    }
  }
});

test('causal defaults to top-left, as in PyTorch', () => {
  const random = rng(13);
  const q = randomTensor(random, [2, 5, 4]),
    k = randomTensor(random, [2, 3, 4]),
    v = randomTensor(random, [2, 3, 4]);
  const a = attn.attention(q, k, v, { causal: true }).output;
  const b = attn.attention(q, k, v, { causal: true, causalAlign: 'top-left' }).output;
  assert.deepEqual(a.data, b.data);
});

test('fully masked rows give zeros, never NaN (both paths, every cause)', () => {
  const random = rng(14);
  const q = randomTensor(random, [4, 8]),
    k = randomTensor(random, [10, 8]),
    v = randomTensor(random, [10, 5]);
  const mask = new Uint8Array(40).fill(1);
  mask.fill(0, 10, 20); // row 1 sees nothing
  const cases = [
    [{ mask: { data: mask, shape: [4, 10] } }, [1]],
    [{ keyLengths: [0] }, [0, 1, 2, 3]],
    [{ causal: true, causalAlign: 'bottom-right' }, []],
  ];
  const qLong = randomTensor(random, [12, 8]);
  for (const [options, emptyRows] of cases) {
    const r = attn.attention(q, k, v, { ...options, returnWeights: true });
    const f = attn.attention(q, k, v, options);
    for (const row of emptyRows) {
      assert.deepEqual(Array.from(r.output.data.slice(row * 5, row * 5 + 5)), [0, 0, 0, 0, 0]);
      assert.deepEqual(Array.from(f.output.data.slice(row * 5, row * 5 + 5)), [0, 0, 0, 0, 0]);
      assert.ok(r.weights.data.slice(row * 10, row * 10 + 10).every((w) => w === 0));
    }
    assert.ok(r.output.data.every(Number.isFinite) && f.output.data.every(Number.isFinite));
  }
  // Bottom-right causal with Lq > Lk: the first Lq - Lk rows see no key.
  const r = check(
    qLong,
    k,
    v,
    { causal: true, causalAlign: 'bottom-right' },
    { causal: true, causalAlign: 'bottom-right' },
    'Lq>Lk bottom-right',
  );
  assert.ok(r.output.data.slice(0, 5).every((x) => x === 0));
});

test('key lengths pad each sequence; they match an equivalent boolean mask', () => {
  const random = rng(15);
  const q = randomTensor(random, [3, 2, 6, 8]),
    k = randomTensor(random, [3, 2, 20, 8]),
    v = randomTensor(random, [3, 2, 20, 4]);
  const keyLengths = [20, 9, 1];
  const viaLengths = check(q, k, v, { keyLengths }, { keyLengths }, 'keyLengths');
  const mask = new Uint8Array(3 * 20);
  keyLengths.forEach((n, b) => mask.fill(1, b * 20, b * 20 + n));
  const viaMask = attn.attention(q, k, v, { mask: { data: mask, shape: [3, 1, 1, 20] }, returnWeights: true });
  assertClose(viaLengths.output, viaMask.output, { atol: 0, rtol: 0, label: 'lengths vs mask' });
  check(q, k, v, { keyLengths, causal: true }, { keyLengths, causal: true }, 'keyLengths + causal');
});

test('NaN and Infinity in blocked keys and values never reach the output', () => {
  const random = rng(16);
  for (const seqK of [5, 16, 70]) {
    const q = randomTensor(random, [6, 8]),
      k = randomTensor(random, [seqK, 8]),
      v = randomTensor(random, [seqK, 7]);
    const poisoned = [1, seqK - 1];
    for (const j of poisoned) {
      k.data[j * 8 + 3] = NaN;
      v.data[j * 7 + 2] = Infinity;
      v.data[j * 7 + 4] = NaN;
    }
    const mask = new Uint8Array(6 * seqK).fill(1);
    for (let i = 0; i < 6; i++) for (const j of poisoned) mask[i * seqK + j] = 0;
    const m = { data: mask, shape: [6, seqK] };
    check(q, k, v, { mask: m }, { mask: { ...m, boolean: true } }, `poisoned Lk=${seqK}`);
    const additive = { data: Float32Array.from(mask, (x) => (x ? 0 : -Infinity)), shape: [6, seqK] };
    check(q, k, v, { mask: additive }, { mask: additive }, `poisoned additive Lk=${seqK}`);
    const lengths = attn.attention(q, k, v, { keyLengths: [seqK - 1], mask: m });
    assert.ok(lengths.output.data.every(Number.isFinite), 'key length + mask');
  }
});

test('an unmasked NaN key makes the rows that see it NaN, as an exact softmax would', () => {
  const random = rng(17);
  const q = randomTensor(random, [9, 4]),
    k = randomTensor(random, [9, 4]),
    v = randomTensor(random, [9, 2]);
  k.data[5 * 4] = NaN;
  const none = check(q, k, v, {}, {}, 'NaN key, no mask');
  assert.ok(none.output.data.every(Number.isNaN));
  const causal = check(q, k, v, { causal: true }, { causal: true }, 'NaN key, causal');
  assert.ok(causal.output.data.slice(0, 10).every(Number.isFinite), 'rows 0-4 never see key 5');
  assert.ok(causal.output.data.slice(10).every(Number.isNaN), 'rows 5-8 see key 5');
});

test('an unmasked infinite score: +Infinity makes its row NaN, -Infinity weighs 0, as an exact softmax would', () => {
  // Key 37 (in the fused kernel's second block of 32 keys, after a finite running max) has
  // k = +Infinity in coordinate 0, so row i scores sign(q[i][0])·Infinity against it.
  const random = rng(18);
  const q = randomTensor(random, [6, 4]),
    k = randomTensor(random, [40, 4]),
    v = randomTensor(random, [40, 3]);
  k.data[37 * 4] = Infinity;
  for (let i = 0; i < 6; i++) q.data[i * 4] = i % 2 ? 0.5 : -0.5;
  const result = check(q, k, v, {}, {}, 'infinite score');
  for (let i = 0; i < 6; i++) {
    const row = result.output.data.slice(i * 3, i * 3 + 3);
    if (i % 2) assert.ok(row.every(Number.isNaN), `row ${i} scores +Infinity: NaN`);
    else assert.ok(row.every(Number.isFinite), `row ${i} scores -Infinity: finite`);
  }
  const fused = attn.attention(q, k, v).output.data;
  for (let i = 0; i < 6; i++) assert.equal(Number.isNaN(fused[i * 3]), i % 2 === 1, `fused row ${i}`);
});

test('additive masks of ±FLT_MAX (torch.finfo(float32).min as "blocked") agree on both paths', () => {
  const FLT_MAX = 3.4028234663852886e38;
  const q = { data: Float32Array.from([1]), shape: [1, 1] };
  const k = { data: Float32Array.from([1, 2, 3]), shape: [3, 1] };
  const v = { data: Float32Array.from([10, 20, 40]), shape: [3, 1] };
  // Every key carries -FLT_MAX: softmax of equal scores, uniform weights (as PyTorch gives).
  const all = { data: Float32Array.from([-FLT_MAX, -FLT_MAX, -FLT_MAX]), shape: [3] };
  for (const options of [{ mask: all }, { mask: all, returnWeights: true }]) {
    assert.ok(Math.abs(attn.attention(q, k, v, options).output.data[0] - 70 / 3) < 1e-4);
  }
  // One key at -FLT_MAX among ordinary ones weighs 0; one at +FLT_MAX takes all the weight.
  const one = { data: Float32Array.from([0, -FLT_MAX, 0]), shape: [3] };
  const ref = referenceAttention(q, k, v, { mask: { ...one, boolean: false } });
  assertClose(attn.attention(q, k, v, { mask: one }).output, ref.output, { label: 'fused, one -FLT_MAX' });
  const top = { data: Float32Array.from([0, FLT_MAX, 0]), shape: [3] };
  for (const options of [{ mask: top }, { mask: top, returnWeights: true }]) {
    assert.equal(attn.attention(q, k, v, options).output.data[0], 20);
  }
});
