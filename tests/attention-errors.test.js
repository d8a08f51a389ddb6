// Bad input: typed errors naming the function and the tensor, raised before any wasm
// allocation; the heap does not grow and the module keeps working.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();
const random = rng(30);
const q = randomTensor(random, [2, 4, 8]);
const k = randomTensor(random, [2, 6, 8]);
const v = randomTensor(random, [2, 6, 3]);

const BAD_CALLS = [
  // [what, call, error class, message fragment]
  ['q is a string', () => attn.attention('q', k, v), TypeError, /^attention: q must be a tensor/],
  // What newcomers write first: a bare typed array, mask: 'causal'.
  [
    'q a bare Float32Array',
    () => attn.attention(new Float32Array(64), k, v),
    TypeError,
    /^attention: q is a bare Float32Array of 64 values, which has no shape: pass \{ data: q, shape: \[rows, cols\] \} or tensor\(q, \[rows, cols\]\)$/,
  ],
  [
    "mask: 'causal'",
    () => attn.attention(q, k, v, { mask: 'causal' }),
    TypeError,
    /^attention: mask must be a tensor or a nested array, got the string "causal": for a causal mask pass the option \{ causal: true \}/,
  ],
  [
    'mask a bare Uint8Array',
    () => attn.attention(q, k, v, { mask: new Uint8Array(48) }),
    TypeError,
    /^attention: mask is a bare Uint8Array of 48 values/,
  ],
  [
    'q.data is a DataView',
    () => attn.attention({ data: new DataView(new ArrayBuffer(256)), shape: [2, 4, 8] }, k, v),
    TypeError,
    /q\.data must be a Float32Array \(or another numeric TypedArray or number array\), got a DataView/,
  ],
  ['k is null', () => attn.attention(q, null, v), TypeError, /^attention: k must be a tensor/],
  ['v nested with a string', () => attn.attention(q, k, [[1, 'x', 3]]), TypeError, /v\[0\]\[1\] must be a number/],
  ['v ragged', () => attn.attention(q, k, [[1, 2], [3]]), RangeError, /v is ragged/],
  [
    'q data length',
    () => attn.attention({ data: new Float32Array(63), shape: [2, 4, 8] }, k, v),
    RangeError,
    /q has 63 values but shape \[2, 4, 8\] needs 64/,
  ],
  [
    'negative dim',
    () => attn.attention({ data: new Float32Array(0), shape: [-2, 4, 8] }, k, v),
    RangeError,
    /q\.shape\[0\] is -2/,
  ],
  [
    'fractional dim',
    () => attn.attention({ data: new Float32Array(8), shape: [1.5, 8] }, k, v),
    RangeError,
    /q\.shape\[0\] is 1\.5/,
  ],
  [
    'shape not an array',
    () => attn.attention({ data: new Float32Array(8), shape: '8' }, k, v),
    TypeError,
    /q\.shape must be an array/,
  ],
  [
    'q rank 1',
    () => attn.attention({ data: new Float32Array(8), shape: [8] }, k, v),
    RangeError,
    /q must have shape \[\.\.\., Lq, dk\]/,
  ],
  [
    'dk mismatch',
    () => attn.attention(q, randomTensor(random, [2, 6, 16]), v),
    RangeError,
    /attention: k has 16 columns but q has 8 \(dk must match\)/,
  ],
  ['Lk mismatch', () => attn.attention(q, k, randomTensor(random, [2, 5, 3])), RangeError, /v has 5 rows but k has 6/],
  [
    'batch mismatch',
    () => attn.attention(q, randomTensor(random, [3, 6, 8]), randomTensor(random, [3, 6, 3])),
    RangeError,
    /leading dims of k \[3\] do not broadcast with q/,
  ],
  [
    'mask not broadcastable',
    () => attn.attention(q, k, v, { mask: { data: new Uint8Array(20), shape: [4, 5] } }),
    RangeError,
    /mask \[4, 5\] does not broadcast to the weights \[2, 4, 6\]/,
  ],
  [
    'mask too many dims',
    () => attn.attention(q, k, v, { mask: { data: new Uint8Array(48), shape: [1, 2, 4, 6] } }),
    RangeError,
    /mask \[1, 2, 4, 6\] has more dims/,
  ],
  [
    'mask Int32Array',
    () => attn.attention(q, k, v, { mask: { data: new Int32Array(24), shape: [4, 6] } }),
    TypeError,
    /mask\.data must be a Uint8Array .* or a Float32Array/,
  ],
  ['NaN scale', () => attn.attention(q, k, v, { scale: NaN }), RangeError, /options\.scale must be finite, got NaN/],
  ['string scale', () => attn.attention(q, k, v, { scale: '0.5' }), TypeError, /options\.scale must be a number/],
  ['causal not boolean', () => attn.attention(q, k, v, { causal: 1 }), TypeError, /options\.causal must be a boolean/],
  [
    'bad causalAlign',
    () => attn.attention(q, k, v, { causalAlign: 'top' }),
    RangeError,
    /causalAlign must be 'top-left', 'bottom-right', 'bottom-right-per-sequence' or an integer offset, got 'top'/,
  ],
  [
    'fractional causalAlign',
    () => attn.attention(q, k, v, { causalAlign: 1.5 }),
    RangeError,
    /causalAlign as an offset must be an integer/,
  ],
  [
    'negative softcap',
    () => attn.attention(q, k, v, { softcap: -1 }),
    RangeError,
    /options\.softcap must be a positive finite number \(0: none\), got -1/,
  ],
  ['string softcap', () => attn.attention(q, k, v, { softcap: '2' }), TypeError, /options\.softcap must be a number/],
  [
    'bad layout',
    () => attn.attention(q, k, v, { layout: 'nhwc' }),
    RangeError,
    /options\.layout must be 'bhsd' .* or 'bshd' .*, got 'nhwc'/,
  ],
  [
    'bshd needs 3 dims',
    () => attn.attention({ data: new Float32Array(8), shape: [4, 2] }, k, v, { layout: 'bshd' }),
    RangeError,
    /q must have shape \[\.\.\., Lq, heads, dk\] with layout 'bshd', got \[4, 2\]/,
  ],
  [
    'pastKey alone',
    () => attn.attention(q, k, v, { pastKey: k }),
    TypeError,
    /pastKey and options\.pastValue go together/,
  ],
  [
    'pastKey of the wrong heads',
    () =>
      attn.attention(q, k, v, {
        pastKey: { data: new Float32Array(24), shape: [3, 1, 8] },
        pastValue: { data: new Float32Array(12), shape: [3, 1, 4] },
      }),
    RangeError,
    /options\.pastKey must have shape \[2, past, 8\]/,
  ],
  [
    'mask keys short without key lengths',
    () => attn.attention(q, k, v, { mask: { data: new Float32Array(8), shape: [2, 4] } }),
    RangeError,
    /mask \[2, 4\] does not broadcast to the weights \[2, 4, 6\]/,
  ],
  ['unknown option', () => attn.attention(q, k, v, { casual: true }), TypeError, /unknown option 'casual'/],
  [
    'keyLengths count',
    () => attn.attention(q, k, v, { keyLengths: [6] }),
    RangeError,
    /keyLengths has 1 entries but the batch \[2\] needs 2/,
  ],
  [
    'keyLengths too long',
    () => attn.attention(q, k, v, { keyLengths: [6, 7] }),
    RangeError,
    /keyLengths\[1\] is 7; it must be an integer in \[0, 6\]/,
  ],
  [
    'dk = 0',
    () => attn.attention({ data: new Float32Array(0), shape: [4, 0] }, { data: new Float32Array(0), shape: [6, 0] }, v),
    RangeError,
    /dk must be at least 1/,
  ],
  ['options not object', () => attn.attention(q, k, v, 'causal'), TypeError, /options must be an object/],
];

test('every bad input gets the right error class and a message naming function and tensor', () => {
  for (const [what, call, ErrorClass, fragment] of BAD_CALLS) {
    assert.throws(call, (e) => e instanceof ErrorClass && fragment.test(e.message), what);
  }
});

test('1,000 bad calls leave the heap as it was and the next good call correct', () => {
  const expected = referenceAttention(q, k, v, { causal: true });
  attn.attention(q, k, v, { causal: true }); // warm up allocator state
  const before = attn.memory();
  for (let i = 0; i < 1000; i++) {
    const [, call] = BAD_CALLS[i % BAD_CALLS.length];
    try {
      call();
    } catch {
      /* expected */
    }
  }
  const after = attn.memory();
  assert.equal(after.heapBytes, before.heapBytes, 'heap size');
  assert.equal(after.inUseBytes, before.inUseBytes, 'bytes in use');
  assertClose(attn.attention(q, k, v, { causal: true }).output, expected.output, { label: 'after bad calls' });
});

test('good calls free everything they allocate (fused, weights, trace)', () => {
  const before = attn.memory().inUseBytes;
  for (let i = 0; i < 50; i++) {
    attn.attention(q, k, v);
    attn.attention(q, k, v, { returnWeights: true, mask: { data: new Uint8Array(24).fill(1), shape: [4, 6] } });
    attn.attention(q, k, v, { trace: true, keyLengths: [3, 6] });
  }
  assert.equal(attn.memory().inUseBytes, before);
});

test('empty shapes are legal and give empty or zero results', () => {
  const empty = attn.attention(
    { data: new Float32Array(0), shape: [0, 8] },
    randomTensor(random, [6, 8]),
    randomTensor(random, [6, 3]),
    { returnWeights: true },
  );
  assert.deepEqual(empty.output.shape, [0, 3]);
  assert.deepEqual(empty.weights.shape, [0, 6]);
  const noKeys = attn.attention(
    randomTensor(random, [2, 8]),
    { data: new Float32Array(0), shape: [0, 8] },
    { data: new Float32Array(0), shape: [0, 3] },
  );
  assert.deepEqual(Array.from(noKeys.output.data), [0, 0, 0, 0, 0, 0]);
});

test('a result too big for the 4 GiB wasm heap is a RangeError, and nothing is left behind', () => {
  const n = 40000; // weights alone would be 40000² × 4 B = 6.4 GB
  const x = { data: new Float32Array(n).fill(0.5), shape: [n, 1] };
  const before = attn.memory().inUseBytes;
  assert.throws(
    () => attn.attention(x, x, x, { returnWeights: true }),
    (e) =>
      e instanceof RangeError &&
      e.message === 'attention: the weights [40000, 40000] need 6.0 GiB; the wasm heap holds at most 4.0 GiB',
  );
  assert.equal(attn.memory().inUseBytes, before);
  const ok = attn.attention(
    [[1, 0]],
    [
      [1, 0],
      [0, 1],
    ],
    [[1], [2]],
  ).output.data[0];
  const a = Math.exp(1 / Math.sqrt(2)); // scores [1, 0]/sqrt(2); values 1 and 2
  assert.ok(Math.abs(ok - (a + 2) / (a + 1)) < 1e-6);
});

test('nested arrays with holes, an array that contains itself, and more than 64 dims are errors', () => {
  const cycle = [];
  cycle.push(cycle);
  assert.throws(() => attn.attention(cycle, cycle, cycle), {
    name: 'RangeError',
    message: 'attention: q is nested more than 64 deep',
  });
  const q = [[1, 2]];
  assert.throws(() => attn.attention(q, q, q, { mask: cycle }), {
    name: 'RangeError',
    message: 'attention: mask is nested more than 64 deep',
  });
  assert.throws(() => attn.layerNorm([1, , 3]), {
    name: 'TypeError',
    message: 'layerNorm: x[1] must be a number, got undefined',
  }); // eslint-disable-line no-sparse-arrays
  assert.throws(() => attn.matmul(new Array(2 ** 32 - 1), [[1]]), {
    name: 'RangeError',
    message: 'matmul: a has 4294967295 entries; nested arrays hold at most 2^29 values',
  });
  const deep = { data: new Float32Array(1), shape: new Array(65).fill(1) };
  assert.throws(() => attn.layerNorm(deep), {
    name: 'RangeError',
    message: 'layerNorm: x.shape has 65 dims; at most 64 are supported',
  });
  assert.throws(
    () =>
      attn.layerNorm(
        {
          data: new Float32Array(1),
          shape: [1],
          get extra() {
            throw new Error('never read');
          },
        },
        { eps: () => 1 },
      ),
    { name: 'TypeError', message: 'layerNorm: eps must be a number, got a function' },
  );
});

test('a length that lies and getters that change their answer cannot reach the heap', () => {
  class Lying extends Float32Array {
    get length() {
      return 4;
    }
  }
  const before = attn.memory().inUseBytes;
  assert.throws(() => attn.layerNorm({ data: new Lying(4096), shape: [2, 2] }), {
    name: 'RangeError',
    message: 'layerNorm: x has 4096 values but shape [2, 2] needs 4',
  });
  let reads = 0;
  const shifty = {
    data: Float32Array.of(1, 2, 3, 4),
    get shape() {
      return ++reads >= 2 ? [2048, 2048] : [2, 2];
    },
  };
  assert.deepEqual(attn.applyRope(shifty).shape, [2, 2]); // shape read once
  assert.equal(reads, 1);
  assert.equal(attn.memory().inUseBytes, before);
});

test('a class called without new, and the API used before init() resolved, say what to do', async () => {
  for (const name of ['MultiHeadAttention', 'TinyTransformer']) {
    assert.throws(
      () => attn[name]({ dModel: 8, numHeads: 2 }),
      (e) =>
        e instanceof TypeError && e.message === `${name}: called without new; create one with new attn.${name}(config)`,
    );
  }
  const layer = new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 1 });
  assert.ok(layer instanceof attn.MultiHeadAttention, 'instanceof still holds');
  layer.dispose();
  const pending = init();
  assert.throws(
    () => pending.attention(q, k, v),
    (e) =>
      e instanceof TypeError &&
      /^init: init\(\) returns a Promise; await it first: const attn = await init\(\); attn\.attention$/.test(
        e.message,
      ),
  );
  assert.equal(await pending, attn, 'the Promise still resolves to the API');
});
