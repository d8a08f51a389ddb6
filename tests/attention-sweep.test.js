// The package against the float64 reference over sizes around the SIMD width, on both
// paths: fused (no weights requested) and step-by-step (weights requested).
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();
const LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 63, 64, 65];
const HEAD_DIMS = [1, 3, 4, 5, 8, 64, 65];

function check(q, k, v, options, label) {
  const ref = referenceAttention(q, k, v, options);
  const fused = attn.attention(q, k, v, options);
  assertClose(fused.output, ref.output, { label: `${label} fused output` });
  const stepwise = attn.attention(q, k, v, { ...options, returnWeights: true });
  assertClose(stepwise.output, ref.output, { label: `${label} stepwise output` });
  assertClose(stepwise.weights, ref.weights, { label: `${label} weights`, atol: 1e-6 });
}

test('self- and cross-attention match the float64 reference over lengths × head dims', () => {
  const random = rng(1);
  let cases = 0;
  for (const seqQ of LENGTHS) {
    for (const headDim of HEAD_DIMS) {
      const seqK = LENGTHS[(seqQ * 7 + headDim) % LENGTHS.length]; // varied, not only square
      const valueDim = HEAD_DIMS[(seqQ + headDim) % HEAD_DIMS.length];
      const q = randomTensor(random, [seqQ, headDim]);
      const k = randomTensor(random, [seqK, headDim]);
      const v = randomTensor(random, [seqK, valueDim]);
      check(q, k, v, {}, `Lq=${seqQ} Lk=${seqK} dk=${headDim} dv=${valueDim}`);
      check(q, q, randomTensor(random, [seqQ, valueDim]), {}, `self L=${seqQ} dk=${headDim}`);
      cases += 2;
    }
  }
  if (cases !== LENGTHS.length * HEAD_DIMS.length * 2) throw new Error('sweep did not run');
});

test('every key length 1..65 with every value width 1..9 and 63..65', () => {
  const random = rng(2);
  for (const seqK of [...LENGTHS, 17, 31, 33, 127, 129]) {
    for (const valueDim of [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 63, 64, 65]) {
      const q = randomTensor(random, [5, 8]);
      check(
        q,
        randomTensor(random, [seqK, 8]),
        randomTensor(random, [seqK, valueDim]),
        {},
        `Lk=${seqK} dv=${valueDim}`,
      );
    }
  }
});

test('batched and multi-head shapes, with broadcast leading dims', () => {
  const random = rng(3);
  const cases = [
    [
      [2, 3, 5, 8],
      [2, 3, 7, 8],
      [2, 3, 7, 4],
    ],
    [
      [2, 3, 5, 8],
      [2, 1, 7, 8],
      [2, 1, 7, 4],
    ], // k, v shared by the 3 heads
    [
      [4, 6, 8],
      [6, 8],
      [6, 3],
    ], // unbatched k, v
    [
      [1, 5, 8],
      [3, 6, 8],
      [3, 6, 8],
    ], // q broadcast over the batch
    [
      [2, 1, 9, 4],
      [1, 3, 9, 4],
      [2, 3, 9, 2],
    ], // each side broadcasts an axis
  ];
  for (const [qs, ks, vs] of cases) {
    const q = randomTensor(random, qs),
      k = randomTensor(random, ks),
      v = randomTensor(random, vs);
    check(q, k, v, {}, `q${JSON.stringify(qs)} k${JSON.stringify(ks)} v${JSON.stringify(vs)}`);
    check(q, k, v, { causal: true }, `causal q${JSON.stringify(qs)}`);
  }
});

test('large logits (±1e4) neither overflow nor lose the winner', () => {
  const random = rng(4);
  for (const seqK of [3, 9, 64]) {
    const q = randomTensor(random, [4, 4]);
    const k = randomTensor(random, [seqK, 4]);
    const v = randomTensor(random, [seqK, 6]);
    for (const scale of [1e4, -1e4, 2e3]) {
      const options = { scale };
      const ref = referenceAttention(q, k, v, options);
      for (const returnWeights of [false, true]) {
        const out = attn.attention(q, k, v, { ...options, returnWeights });
        // Scores of 1e4 carry float32 rounding of ~1e-3 absolute: compare loosely.
        assertClose(out.output, ref.output, { atol: 5e-3, rtol: 5e-3, label: `scale ${scale} Lk=${seqK}` });
        if (!out.output.data.every(Number.isFinite)) throw new Error('non-finite output');
      }
    }
  }
});

test('default scale is 1/sqrt(dk), and scale 0 gives uniform weights', () => {
  const random = rng(5);
  const q = randomTensor(random, [3, 16]),
    k = randomTensor(random, [5, 16]),
    v = randomTensor(random, [5, 2]);
  const byDefault = attn.attention(q, k, v, { returnWeights: true });
  const explicit = referenceAttention(q, k, v, { scale: 0.25 });
  assertClose(byDefault.weights, explicit.weights, { atol: 1e-6, label: 'default scale' });
  const zero = attn.attention(q, k, v, { scale: 0, returnWeights: true });
  assertClose(zero.weights, { data: new Float64Array(15).fill(0.2), shape: [3, 5] }, { atol: 1e-7, label: 'uniform' });
});

test('one array passed as q, k and v (copied in once) gives the same as three copies', () => {
  const random = rng(6);
  for (const [L, d] of [
    [1, 1],
    [7, 5],
    [65, 64],
  ]) {
    const x = randomTensor(random, [2, L, d]);
    const copy = () => ({ data: x.data.slice(), shape: x.shape });
    for (const options of [{}, { returnWeights: true, causal: true }]) {
      assertClose(attn.attention(x, x, x, options).output, attn.attention(x, copy(), copy(), options).output, {
        atol: 0,
        rtol: 0,
        label: `L=${L} d=${d}`,
      });
    }
    const ref = referenceAttention(x, x, x);
    assertClose(attn.attention(x, x, x).output, ref.output, { label: `self L=${L}` });
  }
});

test('enableGqa: q heads share k/v heads in groups, as PyTorch SDPA enable_gqa', () => {
  const random = rng(7);
  const q = randomTensor(random, [2, 6, 5, 8]),
    k = randomTensor(random, [2, 2, 7, 8]),
    v = randomTensor(random, [2, 2, 7, 3]);
  // Reference: repeat each k/v head 3 times (repeat_interleave on the head axis).
  const repeat = (t) => {
    const [B, H, L, d] = t.shape;
    const out = new Float32Array(B * H * 3 * L * d);
    for (let b = 0; b < B; b++)
      for (let h = 0; h < H * 3; h++) {
        const src = (b * H + Math.floor(h / 3)) * L * d;
        out.set(t.data.subarray(src, src + L * d), (b * H * 3 + h) * L * d);
      }
    return { data: out, shape: [B, H * 3, L, d] };
  };
  for (const options of [{}, { causal: true }, { returnWeights: true }]) {
    const ref = referenceAttention(q, repeat(k), repeat(v), options);
    assertClose(attn.attention(q, k, v, { ...options, enableGqa: true }).output, ref.output, {
      label: `gqa ${JSON.stringify(options)}`,
    });
  }
  assert.throws(
    () => attn.attention(q, k, v),
    (e) => e instanceof RangeError && /do not broadcast/.test(e.message),
  );
  assert.throws(
    () =>
      attn.attention(q, randomTensor(random, [2, 4, 7, 8]), randomTensor(random, [2, 4, 7, 3]), { enableGqa: true }),
    (e) => e instanceof RangeError && /q's 6 heads must be a multiple of k's 4/.test(e.message),
  );
  assert.throws(
    () =>
      attn.attention(randomTensor(random, [5, 8]), randomTensor(random, [7, 8]), randomTensor(random, [7, 3]), {
        enableGqa: true,
      }),
    (e) => e instanceof RangeError && /enableGqa needs a head axis/.test(e.message),
  );
});
