// applyRope from caller cos/sin tables (ONNX RotaryEmbedding, opset 23) against a float64
// transcription of onnx/reference/ops/op_rotary_embedding.py, with position ids, gathered
// tables, partial rotary dims, 3-D and 4-D inputs; errors and estimateMemory.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();

// The ONNX reference, index by index: x is viewed as [batch, L, heads, headDim]
// (4-D input [batch, heads, L, headDim] transposed; 3-D [batch, L, heads·headDim] reshaped).
function refRope(x, { cos, sin, positions, interleaved = false, rotaryDim = 0, numHeads }) {
  const fourD = x.shape.length === 4;
  const [batch, heads, L, headDim] = fourD ? x.shape : [x.shape[0], numHeads, x.shape[1], x.shape[2] / numHeads];
  const R = rotaryDim || headDim,
    half = R / 2;
  const out = Float64Array.from(x.data);
  for (let b = 0; b < batch; b++)
    for (let l = 0; l < L; l++) {
      const row = positions ? positions[b][l] : null;
      const c = (i) => (positions ? cos.data[row * half + i] : cos.data[(b * L + l) * half + i]);
      const s = (i) => (positions ? sin.data[row * half + i] : sin.data[(b * L + l) * half + i]);
      for (let h = 0; h < heads; h++) {
        const base = fourD ? ((b * heads + h) * L + l) * headDim : ((b * L + l) * heads + h) * headDim;
        for (let i = 0; i < half; i++) {
          const [ia, ib] = interleaved ? [2 * i, 2 * i + 1] : [i, i + half];
          const x1 = x.data[base + ia],
            x2 = x.data[base + ib];
          out[base + ia] = c(i) * x1 - s(i) * x2; // real
          out[base + ib] = s(i) * x1 + c(i) * x2; // imag
        }
      }
    }
  return { data: out, shape: x.shape };
}

// cos/sin caches as Llama builds them: angle(p, i) = p · base^(-2i/R).
function caches(maxPosition, R, base = 10000) {
  const half = R / 2;
  const cos = new Float32Array(maxPosition * half),
    sin = new Float32Array(maxPosition * half);
  for (let p = 0; p < maxPosition; p++)
    for (let i = 0; i < half; i++) {
      cos[p * half + i] = Math.cos(p * base ** ((-2 * i) / R));
      sin[p * half + i] = Math.sin(p * base ** ((-2 * i) / R));
    }
  return { cos: { data: cos, shape: [maxPosition, half] }, sin: { data: sin, shape: [maxPosition, half] } };
}

test('4-D and 3-D x, position ids, both pairings, full and partial rotary dims: the ONNX reference', () => {
  const random = rng(101);
  for (const [batch, heads, L, headDim] of [
    [1, 1, 1, 2],
    [2, 3, 5, 8],
    [2, 2, 4, 6],
    [1, 4, 7, 16],
    [3, 1, 2, 10],
  ]) {
    for (const rotaryDim of [0, 2, headDim - (headDim % 4 === 0 ? 4 : 2) || 2, headDim]) {
      const R = rotaryDim || headDim,
        maxPosition = 9;
      const { cos, sin } = {
        cos: randomTensor(random, [maxPosition, R / 2]),
        sin: randomTensor(random, [maxPosition, R / 2]),
      };
      const positions = Array.from({ length: batch }, () =>
        Array.from({ length: L }, () => Math.floor(random(0, maxPosition))),
      );
      for (const interleaved of [false, true]) {
        const x4 = randomTensor(random, [batch, heads, L, headDim]);
        const options = { cos, sin, positions, interleaved, rotaryDim };
        assertClose(attn.applyRope(x4, options), refRope(x4, options), {
          atol: 1e-6,
          label: `4-D ${[batch, heads, L, headDim]} R=${rotaryDim} interleaved=${interleaved}`,
        });
        const x3 = randomTensor(random, [batch, L, heads * headDim]);
        const options3 = { ...options, numHeads: heads };
        assertClose(attn.applyRope(x3, options3), refRope(x3, options3), {
          atol: 1e-6,
          label: `3-D R=${rotaryDim} interleaved=${interleaved}`,
        });
        // The features past rotaryDim pass through bit for bit.
        const y = attn.applyRope(x4, options);
        for (let r = 0; r < batch * heads * L; r++)
          for (let f = R; f < headDim; f++) assert.equal(y.data[r * headDim + f], x4.data[r * headDim + f]);
      }
    }
  }
});

test('gathered tables [batch, L, R/2] without positions equal the cache with position ids', () => {
  const random = rng(102);
  const [batch, heads, L, headDim] = [2, 3, 4, 8];
  const { cos, sin } = caches(20, headDim);
  const positions = [
    [3, 4, 5, 6],
    [0, 19, 2, 7],
  ];
  const gather = (t) => ({
    data: Float32Array.from(positions.flat().flatMap((p) => Array.from(t.data.subarray(p * 4, p * 4 + 4)))),
    shape: [batch, L, 4],
  });
  for (const interleaved of [false, true]) {
    const x = randomTensor(random, [batch, heads, L, headDim]);
    const withIds = attn.applyRope(x, { cos, sin, positions, interleaved });
    assert.deepEqual(attn.applyRope(x, { cos: gather(cos), sin: gather(sin), interleaved }).data, withIds.data);
    assertClose(withIds, refRope(x, { cos: gather(cos), sin: gather(sin), interleaved }), {
      atol: 1e-6,
      label: 'gathered reference',
    });
  }
});

test('Llama-style caches agree with the computed tables, and position ids come as tensors of any integer type', () => {
  const random = rng(103);
  const [batch, heads, L, headDim] = [2, 2, 5, 8];
  const { cos, sin } = caches(64, headDim);
  const x = randomTensor(random, [batch, heads, L, headDim]);
  const ids = [
    [0, 1, 2, 3, 4],
    [10, 11, 12, 13, 14],
  ];
  for (const interleaved of [false, true]) {
    const fromTables = attn.applyRope(x, { cos, sin, positions: ids, interleaved });
    for (let b = 0; b < batch; b++) {
      const xb = {
        data: x.data.subarray(b * heads * L * headDim, (b + 1) * heads * L * headDim),
        shape: [heads, L, headDim],
      };
      const computed = attn.applyRope(xb, { positions: ids[b], interleaved });
      assertClose(fromTables.data.subarray(b * heads * L * headDim, (b + 1) * heads * L * headDim), computed.data, {
        atol: 2e-6,
        label: `batch ${b} interleaved=${interleaved}`,
      });
    }
    for (const data of [
      BigInt64Array.from(ids.flat(), BigInt),
      Int32Array.from(ids.flat()),
      Float32Array.from(ids.flat()),
      ids.flat(),
    ]) {
      assert.deepEqual(
        attn.applyRope(x, { cos, sin, positions: { data, shape: [batch, L] }, interleaved }).data,
        fromTables.data,
      );
    }
  }
  // Rotation keeps each pair's norm; position 0 (cos 1, sin 0) is the identity.
  const zero = attn.applyRope(x, {
    cos,
    sin,
    positions: [
      [0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0],
    ],
  });
  assert.deepEqual(zero.data, x.data);
});

test('errors name applyRope and leave the heap as it was', () => {
  const random = rng(104);
  const x = randomTensor(random, [1, 2, 3, 4]);
  const { cos, sin } = caches(5, 4);
  const ok = { cos, sin, positions: [[0, 1, 2]] };
  const cases = [
    [{ cos }, TypeError, /^applyRope: options\.sin is required with options\.cos/],
    [{ ...ok, base: 100 }, TypeError, /^applyRope: options\.base computes the tables/],
    [
      { ...ok, positions: [[0, 1, 5]] },
      RangeError,
      /^applyRope: options\.positions\[0\]\[2\] is 5; positions are integers in \[0, 5\)/,
    ],
    [{ ...ok, positions: [[0, 1.5, 2]] }, RangeError, /^applyRope: options\.positions\[0\]\[1\] is 1\.5/],
    [{ ...ok, positions: [[0, -1, 2]] }, RangeError, /^applyRope: options\.positions\[0\]\[1\] is -1/],
    [
      { ...ok, positions: [0, 1, 2] },
      RangeError,
      /^applyRope: options\.positions has shape \[3\] but must be \[batch, L\] = \[1, 3\]/,
    ],
    [{ ...ok, positions: 'x' }, TypeError, /^applyRope: options\.positions must be a tensor/],
    [{ ...ok, rotaryDim: 3 }, RangeError, /^applyRope: options\.rotaryDim is 3; RoPE rotates pairs/],
    [{ ...ok, rotaryDim: 6 }, RangeError, /^applyRope: options\.rotaryDim is 6 but the heads have 4 features/],
    [{ ...ok, rotaryDim: 2 }, RangeError, /^applyRope: options\.cos has 2 columns but rotaryDim\/2 is 1/],
    [{ ...ok, numHeads: 3 }, RangeError, /^applyRope: options\.numHeads is 3 but x \[1, 2, 3, 4\] has 2 heads/],
    [
      { ...ok, sin: caches(6, 4).sin },
      RangeError,
      /^applyRope: options\.cos has shape \[5, 2\] but options\.sin \[6, 2\]/,
    ],
    [
      { cos, sin },
      RangeError,
      /^applyRope: options\.cos must have shape \[batch, L, rotaryDim\/2\] = \[1, 3, 2\] without options\.positions/,
    ],
    [{ rotaryDim: 2 }, TypeError, /^applyRope: options\.rotaryDim needs options\.cos and options\.sin/],
    [{ ...ok, interleaved: 1 }, TypeError, /^applyRope: options\.interleaved must be a boolean/],
  ];
  const before = attn.memory().inUseBytes;
  for (const [options, kind, message] of cases)
    assert.throws(
      () => attn.applyRope(x, options),
      (e) => e instanceof kind && message.test(e.message),
      String(message),
    );
  const x3 = randomTensor(random, [1, 3, 8]);
  assert.throws(
    () => attn.applyRope(x3, ok),
    (e) => e instanceof TypeError && /^applyRope: options\.numHeads is required for a 3-D x/.test(e.message),
  );
  assert.throws(
    () => attn.applyRope(x3, { ...ok, numHeads: 3 }),
    (e) => e instanceof RangeError && /hidden size 8, which does not divide into options\.numHeads = 3/.test(e.message),
  );
  assert.throws(
    () => attn.applyRope(randomTensor(random, [3, 4]), ok),
    (e) =>
      e instanceof RangeError &&
      /^applyRope: x must have shape \[batch, heads, L, headDim\] or \[batch, L, hidden\]/.test(e.message),
  );
  assert.equal(attn.memory().inUseBytes, before, 'no heap left behind');
  assertClose(attn.applyRope(x, ok), refRope(x, ok), { atol: 1e-6, label: 'still working' });
});

test("estimateMemory('applyRope', ...) lists x, the tables and the position ids; empty inputs", () => {
  const x = { data: new Float32Array(2 * 3 * 4 * 8), shape: [2, 3, 4, 8] };
  const { cos, sin } = caches(10, 8);
  const plan = attn.estimateMemory('applyRope', x, {
    cos,
    sin,
    positions: [
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ],
  });
  assert.deepEqual(
    plan.blocks.map((b) => [b.name, b.shape, b.bytes]),
    [
      ['x', [2, 3, 4, 8], 768],
      ['options.cos', [10, 4], 160],
      ['options.sin', [10, 4], 160],
      ['options.positions', [2, 4], 32],
    ],
  );
  assert.equal(plan.fits, true);
  assert.throws(
    () =>
      attn.estimateMemory('applyRope', x, {
        cos,
        sin,
        positions: [
          [0, 1, 2, 3],
          [4, 5, 6, 10],
        ],
      }),
    (e) => e instanceof RangeError && /^applyRope: options\.positions\[1\]\[3\] is 10/.test(e.message),
  );
  const empty = { data: new Float32Array(0), shape: [2, 3, 0, 8] };
  const out = attn.applyRope(empty, { cos, sin, positions: { data: new Int32Array(0), shape: [2, 0] } });
  assert.deepEqual(out.shape, [2, 3, 0, 8]);
  assert.equal(
    attn.estimateMemory('applyRope', empty, { cos, sin, positions: { data: new Int32Array(0), shape: [2, 0] } }).bytes,
    0,
  );
});
