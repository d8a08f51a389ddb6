// options.out: the forward passes write their output into a caller's Float32Array. The values
// must be those of the float64 references (and bit-identical to a call without `out`), the
// result's data must be that very array, every value must be written, and a wrong `out` must
// be a typed error naming the function before anything is allocated.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { assertClose, rng, randomTensor } from './helpers/assert.js';
import { referenceAttention } from './helpers/reference.js';
import { refMultiHead, refMatmul } from './helpers/reference-layers.js';

const attn = await init();
const nanFilled = (count) => new Float32Array(count).fill(NaN);
const sameBits = (a, b, label) => {
  assert.equal(a.length, b.length, `${label}: length`);
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length),
    y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++)
    if (x[i] !== y[i]) assert.fail(`${label}: value ${i} differs (${a[i]} vs ${b[i]})`);
};

test('attention writes into options.out: the float64 reference, bit for bit the fresh result, over shapes, masks, GQA and both paths', () => {
  const random = rng(91);
  const cases = [
    { q: [5, 4], k: [7, 4], v: [7, 3], options: {} },
    { q: [2, 3, 9, 8], k: [2, 3, 9, 8], v: [2, 3, 9, 5], options: { causal: true } },
    {
      q: [2, 1, 6, 4],
      k: [1, 3, 6, 4],
      v: [3, 6, 2],
      options: { keyLengths: [4, 6], causal: true, causalAlign: 'bottom-right' },
    },
    { q: [4, 6, 4], k: [2, 8, 4], v: [2, 8, 4], options: { enableGqa: true, scale: 0.3 } },
    {
      q: [3, 33, 16],
      k: [3, 70, 16],
      v: [3, 70, 16],
      options: {
        mask: { data: new Uint8Array(33 * 70).map((_, i) => (i * 7) % 5 !== 0), shape: [33, 70], boolean: true },
      },
    },
    { q: [6, 5], k: [6, 5], v: [6, 5], options: { returnWeights: true } },
    { q: [2, 4, 3], k: [2, 4, 3], v: [2, 4, 3], options: { trace: true, causal: true } },
  ];
  for (const [index, c] of cases.entries()) {
    const q = randomTensor(random, c.q),
      k = randomTensor(random, c.k),
      v = randomTensor(random, c.v);
    const fresh = attn.attention(q, k, v, c.options);
    const out = nanFilled(fresh.output.data.length);
    const r = attn.attention(q, k, v, { ...c.options, out });
    const label = `case ${index}`;
    assert.equal(r.output.data, out, `${label}: output.data is options.out`);
    assert.deepEqual(r.output.shape, fresh.output.shape);
    sameBits(out, fresh.output.data, label);
    const kx = c.options.enableGqa ? repeatHeads(k, c.q.at(-3)) : k,
      vx = c.options.enableGqa ? repeatHeads(v, c.q.at(-3)) : v;
    assertClose(r.output, referenceAttention(q, kx, vx, c.options).output, { label });
    if (c.options.returnWeights || c.options.trace) {
      assert.notEqual(r.weights.data, out);
      sameBits(r.weights.data, fresh.weights.data, `${label} weights`);
    }
    if (c.options.trace) assert.equal(r.trace.output.data, out, `${label}: the trace's output is options.out too`);
  }
});

// [.., Hk, L, d] → [.., Hk·group, L, d], head h copying k/v head floor(h / group).
function repeatHeads(t, heads) {
  const [hk, L, d] = t.shape.slice(-3);
  const group = heads / hk,
    block = L * d,
    lead = t.data.length / (hk * block);
  const data = new Float32Array(lead * heads * block);
  for (let b = 0; b < lead; b++) {
    for (let h = 0; h < heads; h++)
      data.set(
        t.data.subarray((b * hk + Math.floor(h / group)) * block, (b * hk + Math.floor(h / group) + 1) * block),
        (b * heads + h) * block,
      );
  }
  return { data, shape: [...t.shape.slice(0, -3), heads, L, d] };
}

test("attention: out reused over many calls holds each call's output; out may be an input (in place) or shared memory; a subclass's set is not used", () => {
  const random = rng(92);
  const k = randomTensor(random, [16, 8]),
    v = randomTensor(random, [16, 8]);
  const out = new Float32Array(10 * 8);
  for (let i = 0; i < 20; i++) {
    const q = randomTensor(random, [10, 8]);
    attn.attention(q, k, v, { out });
    assertClose({ data: out, shape: [10, 8] }, referenceAttention(q, k, v).output, { label: `call ${i}` });
  }
  // In place: q's own data receives the output (q, k, v are copied in first).
  const x = randomTensor(random, [12, 8]);
  const expected = referenceAttention(x, x, x).output;
  const r = attn.attention(x, x, x, { out: x.data });
  assert.equal(r.output.data, x.data);
  assertClose({ data: x.data, shape: [12, 8] }, expected, { label: 'in place' });
  // A Float32Array on a SharedArrayBuffer, at an offset.
  const shared = new Float32Array(new SharedArrayBuffer(4 * 100), 4 * 3, 10 * 8);
  const q = randomTensor(random, [10, 8]);
  attn.attention(q, k, v, { out: shared });
  assertClose({ data: shared, shape: [10, 8] }, referenceAttention(q, k, v).output, { label: 'shared' });
  // A subclass whose set would lie: the intrinsic copy is used.
  class Lying extends Float32Array {
    set() {
      this.fill(42);
    }
  }
  const lying = new Lying(10 * 8);
  attn.attention(q, k, v, { out: lying });
  assertClose({ data: lying, shape: [10, 8] }, referenceAttention(q, k, v).output, { label: 'subclass' });
});

test('attention: an empty output returns the given empty out', () => {
  const out = new Float32Array(0);
  const r = attn.attention({ data: new Float32Array(0), shape: [0, 4] }, [[1, 2, 3, 4]], [[5, 6]], { out });
  assert.equal(r.output.data, out);
  assert.deepEqual(r.output.shape, [0, 2]);
  assert.throws(
    () =>
      attn.attention({ data: new Float32Array(0), shape: [0, 4] }, [[1, 2, 3, 4]], [[5, 6]], {
        out: new Float32Array(1),
      }),
    { name: 'RangeError', message: 'attention: options.out has 1 values but the output [0, 2] has 0' },
  );
});

test('a wrong out is a TypeError or RangeError naming the function, before anything is allocated; the module keeps working', () => {
  const q = { data: new Float32Array(6).fill(0.5), shape: [2, 3] };
  const before = attn.memory().inUseBytes;
  const cases = [
    [[1, 2, 3, 4, 5, 6], TypeError, 'attention: options.out must be a Float32Array, got an array'],
    [new Float64Array(6), TypeError, 'attention: options.out must be a Float32Array, got a Float64Array'],
    [
      { data: new Float32Array(6), shape: [2, 3] },
      TypeError,
      /^attention: options\.out must be a Float32Array, got an object/,
    ],
    [new Float32Array(5), RangeError, 'attention: options.out has 5 values but the output [2, 3] has 6'],
    [new Float32Array(7), RangeError, 'attention: options.out has 7 values but the output [2, 3] has 6'],
    [42, TypeError, 'attention: options.out must be a Float32Array, got a number (42)'],
  ];
  for (const [out, name, message] of cases) {
    assert.throws(() => attn.attention(q, q, q, { out }), { name: name.name, message });
  }
  // A buffer detached after the array was made: length 0.
  const detached = new Float32Array(6);
  structuredClone(detached.buffer, { transfer: [detached.buffer] });
  assert.throws(() => attn.attention(q, q, q, { out: detached }), {
    name: 'RangeError',
    message: 'attention: options.out has 0 values but the output [2, 3] has 6',
  });
  // An out detached by the caller's own getter while the call reads q: caught before use.
  const late = new Float32Array(6);
  const sneaky = {
    get data() {
      structuredClone(late.buffer, { transfer: [late.buffer] });
      return q.data;
    },
    shape: [2, 3],
  };
  assert.throws(() => attn.attention(sneaky, q, q, { out: late }), {
    name: 'RangeError',
    message: 'attention: options.out has 0 values but the output [2, 3] has 6',
  });
  assert.equal(attn.memory().inUseBytes, before, 'nothing allocated or left behind');
  assert.throws(() => attn.estimateMemory('attention', q, q, q, { out: new Float32Array(1) }), {
    name: 'RangeError',
    message: /^attention: options\.out has 1 values/,
  });
  const out = new Float32Array(6);
  attn.attention(q, q, q, { out });
  assertClose({ data: out, shape: [2, 3] }, referenceAttention(q, q, q).output, { label: 'after the errors' });
});

test('MultiHeadAttention.forward and TransformerEncoderLayer.forward write into options.out', () => {
  const random = rng(93);
  const mha = new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, numKvHeads: 1, seed: 4 });
  const layer = new attn.TransformerEncoderLayer({ dModel: 8, numHeads: 2, dFF: 16, seed: 5 });
  try {
    const x = randomTensor(random, [2, 5, 8]),
      kv = randomTensor(random, [2, 7, 8]);
    const w = mha.getWeights();
    const out = nanFilled(2 * 5 * 8);
    const r = mha.forward(x, kv, kv, { out, causal: true, causalAlign: 'bottom-right', returnWeights: true });
    assert.equal(r.output.data, out);
    sameBits(
      out,
      mha.forward(x, kv, kv, { causal: true, causalAlign: 'bottom-right', returnWeights: true }).output.data,
      'MHA',
    );
    assertClose(r.output, refMultiHead(x, kv, kv, w, 2, 1, { causal: true, causalAlign: 'bottom-right' }).output, {
      label: 'MHA vs float64',
      atol: 1e-5,
      rtol: 1e-4,
    });
    assert.throws(() => mha.forward(x, kv, kv, { out: new Float32Array(79) }), {
      name: 'RangeError',
      message: 'MultiHeadAttention.forward: options.out has 79 values but the output [2, 5, 8] has 80',
    });

    const fresh = layer.forward(x).data;
    const into = nanFilled(80);
    const y = layer.forward(x, { out: into });
    assert.equal(y.data, into);
    sameBits(into, fresh, 'encoder layer');
    const inPlace = { data: Float32Array.from(x.data), shape: x.shape };
    assert.equal(layer.forward(inPlace, { out: inPlace.data }).data, inPlace.data);
    sameBits(inPlace.data, fresh, 'encoder layer in place');
    assert.throws(() => layer.forward(x, { out: new Int32Array(80) }), {
      name: 'TypeError',
      message: 'TransformerEncoderLayer.forward: options.out must be a Float32Array, got an Int32Array',
    });
  } finally {
    mha.dispose();
    layer.dispose();
  }
});

test('matmul writes into options.out: the float64 product, zeros when k = 0, typed errors', () => {
  const random = rng(94);
  const a = randomTensor(random, [2, 3, 5]),
    b = randomTensor(random, [5, 7]);
  const out = nanFilled(2 * 3 * 7);
  const r = attn.matmul(a, b, { out });
  assert.equal(r.data, out);
  assert.deepEqual(r.shape, [2, 3, 7]);
  sameBits(out, attn.matmul(a, b).data, 'matmul');
  assertClose(r, refMatmul(a, b), { label: 'matmul vs float64' });
  const zero = attn.matmul(
    { data: new Float32Array(0), shape: [2, 0] },
    { data: new Float32Array(0), shape: [0, 3] },
    { out: nanFilled(6) },
  );
  assert.deepEqual(Array.from(zero.data), [0, 0, 0, 0, 0, 0]);
  assert.throws(() => attn.matmul(a, b, { out: new Float32Array(41) }), {
    name: 'RangeError',
    message: 'matmul: options.out has 41 values but the output [2, 3, 7] has 42',
  });
  assert.throws(() => attn.matmul(a, b, { outt: out }), {
    name: 'TypeError',
    message: /^matmul: unknown option 'outt'/,
  });
  assert.throws(() => attn.matmul(a, b, 42), {
    name: 'TypeError',
    message: 'matmul: options must be an object, got a number (42)',
  });
  assert.equal(attn.estimateMemory('matmul', a, b, { out }).fits, true);
});
