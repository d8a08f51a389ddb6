// Interop with the tensors of TensorFlow.js and onnxruntime-web (the real packages, as
// devDependencies) and numeric data of any TypedArray kind or plain arrays: accepted as
// inputs, and results handed back with toTfjs / toOrt using the caller's own module.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web';
import { init, toTfjs, toOrt } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();
await tf.setBackend('wasm');
await tf.ready();

const random = rng(31);
const q = randomTensor(random, [2, 5, 8]),
  k = randomTensor(random, [2, 7, 8]),
  v = randomTensor(random, [2, 7, 3]);
const expected = referenceAttention(q, k, v).output;

test('tfjs and onnxruntime-web tensors are accepted as inputs', () => {
  const fromTf = attn.attention(tf.tensor(q.data, q.shape), tf.tensor(k.data, k.shape), tf.tensor(v.data, v.shape));
  assertClose(fromTf.output, expected, { label: 'tfjs inputs' });
  const fromOrt = attn.attention(
    new ort.Tensor('float32', q.data, q.shape),
    new ort.Tensor('float32', k.data, k.shape),
    new ort.Tensor('float32', v.data, v.shape),
  );
  assertClose(fromOrt.output, expected, { label: 'onnxruntime inputs' });
  // Mixed, and an int32 tfjs tensor converted to floats.
  const ints = tf.tensor(
    [
      [1, 2],
      [3, 4],
    ],
    [2, 2],
    'int32',
  );
  assert.deepEqual(
    Array.from(attn.matmul(ints, new ort.Tensor('float32', Float32Array.from([1, 0, 0, 1]), [2, 2])).data),
    [1, 2, 3, 4],
  );
  assert.throws(() => attn.matmul(tf.tensor(['a', 'b'], [1, 2], 'string'), [[1], [2]]), {
    name: 'TypeError',
    message: "matmul: a is a tfjs tensor of dtype 'string'; numbers are needed",
  });
  assert.throws(() => attn.matmul(new ort.Tensor('string', ['a', 'b'], [1, 2]), [[1], [2]]), {
    name: 'TypeError',
    message: "matmul: a is an onnxruntime tensor of type 'string'; numbers are needed",
  });
});

test('data of every numeric TypedArray kind and plain number arrays is converted once', () => {
  const small = [1, -2, 3, 4, 0, 6];
  for (const Kind of [
    Float64Array,
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
  ]) {
    const a = { data: Kind.from(small.map((x) => (Kind.name.startsWith('Uint') ? Math.abs(x) : x))), shape: [2, 3] };
    const out = attn.matmul(a, { data: [1, 0, 0, 1, 1, 1], shape: [3, 2] });
    const row = (r) => [a.data[3 * r] + a.data[3 * r + 2], a.data[3 * r + 1] + a.data[3 * r + 2]];
    assert.deepEqual(Array.from(out.data), [...row(0), ...row(1)], Kind.name);
  }
  const big = attn.layerNorm({ data: BigInt64Array.from([1n, 2n, 3n]), shape: [1, 3] });
  assertClose(
    big,
    { data: Float64Array.from([-1.2247356859083902, 0, 1.2247356859083902]), shape: [1, 3] },
    { label: 'BigInt64 data' },
  );
  assert.throws(() => attn.layerNorm({ data: [1, '2'], shape: [2] }), {
    name: 'TypeError',
    message: 'layerNorm: x.data[1] must be a number, got a string (2)',
  });
});

test("results go back to tfjs and onnxruntime-web with the caller's own module", () => {
  const out = attn.attention(q, k, v).output;
  const t = toTfjs(out, tf);
  assert.ok(t instanceof tf.Tensor);
  assert.deepEqual(t.shape, [2, 5, 3]);
  assert.equal(t.dtype, 'float32');
  assertClose(t.dataSync(), out.data, { atol: 0, rtol: 0, label: 'toTfjs' });
  t.dispose();
  const o = attn.toOrt(out, ort);
  assert.ok(o instanceof ort.Tensor);
  assert.deepEqual(Array.from(o.dims), [2, 5, 3]);
  assert.equal(o.type, 'float32');
  assertClose(o.data, out.data, { atol: 0, rtol: 0, label: 'toOrt' });
  assert.throws(() => toTfjs(out, {}), {
    name: 'TypeError',
    message: 'toTfjs: tf must be the TensorFlow.js module (with tf.tensor), got an object (Object)',
  });
  assert.throws(() => toOrt(out, null), {
    name: 'TypeError',
    message: 'toOrt: ort must be the onnxruntime-web module (with the class ort.Tensor), got null',
  });
});
