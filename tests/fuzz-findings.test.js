// The API fuzzer's open findings listed in issue 24 (item 7), each pinned as its own case:
// a typed error naming the function (or the right result), and a module that keeps working.
import test from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { init, tensor, toNested, toOrt } from 'attention-wasm';

const attn = await init();
const named =
  (fn, Kind = null) =>
  (e) =>
    (Kind ? e instanceof Kind : e instanceof TypeError || e instanceof RangeError) && e.message.startsWith(`${fn}: `);
const detached = (T) => {
  const b = new ArrayBuffer(8);
  const v = new T(b, 0, 0);
  structuredClone(b, { transfer: [b] });
  return v;
};

test('toNested refuses a result it cannot build ([2^31, 0] aborted Node with out-of-memory)', () => {
  assert.throws(() => toNested({ data: new Float32Array(0), shape: [2 ** 31, 0] }), named('toNested', RangeError));
});

test('messages about a Symbol do not throw an unrelated TypeError', () => {
  assert.throws(
    () => attn.attention(Symbol('q'), [[1]], [[1]]),
    (e) => named('attention', TypeError)(e) && /symbol \(Symbol\(q\)\)/.test(e.message),
  );
  assert.throws(() => attn.attention([[1]], [[1]], [[1]], { scale: Symbol('s') }), named('attention', TypeError));
  assert.throws(() => tensor([Symbol('x')]), named('tensor', TypeError));
});

test('tensor([1n]) is a named TypeError', () => {
  assert.throws(
    () => tensor([1n]),
    (e) => named('tensor', TypeError)(e) && /bigint/.test(e.message),
  );
});

test('estimateMemory agrees with the call on oversize empty inputs and results', () => {
  const z = (shape) => ({ data: new Float32Array(0), shape });
  for (const args of [
    [z([2 ** 20, 0, 4]), z([2 ** 20, 2 ** 12, 4]), z([2 ** 20, 2 ** 12, 8])],
    [z([3, 0, 4]), z([3, 2 ** 30, 4]), z([3, 2 ** 30, 2 ** 10]), { returnWeights: true }],
  ]) {
    let callError = null;
    try {
      attn.attention(...args);
    } catch (e) {
      callError = e;
    }
    assert.ok(callError && named('attention', RangeError)(callError), String(callError));
    assert.throws(
      () => attn.estimateMemory('attention', ...args),
      (e) => e.message === callError.message,
    );
  }
  const big = [
    { data: new Float32Array(0), shape: [2 ** 30, 0] },
    { data: new Float32Array(0), shape: [0, 2 ** 30] },
  ];
  assert.throws(() => attn.matmul(...big), named('matmul', RangeError));
  assert.throws(() => attn.estimateMemory('matmul', ...big), named('matmul', RangeError));
});

test('zero-length views of detached buffers: checked like any input, no unnamed error', () => {
  const r = attn.attention({ data: detached(Float32Array), shape: [0, 2] }, [[1, 0]], [[1]]);
  assert.deepEqual(r.output.shape, [0, 1]);
  assert.throws(
    () => attn.attention([[1, 0]], [[1, 0]], [[1]], { mask: { data: detached(Uint8Array), shape: [0, 1] } }),
    named('attention', RangeError),
  );
});

test('mask data from another realm is a mask (no instanceof check), and a lying array subclass cannot change the values read', () => {
  const OtherUint8Array = vm.runInNewContext('Uint8Array');
  const blocked = attn.attention(
    [[1, 0]],
    [
      [1, 0],
      [0, 1],
    ],
    [[1], [2]],
    { mask: { data: new OtherUint8Array([1, 0]), shape: [1, 2] } },
  );
  assert.deepEqual(Array.from(blocked.output.data), [1], 'the second key is blocked: the output is v[0]');
  class Lying extends Array {
    *[Symbol.iterator]() {
      yield 99;
    }
    forEach() {}
    slice() {
      return [99];
    }
  }
  const r = attn.matmul(Lying.from([[1, 0]]), [[1], [0]]);
  assert.deepEqual(Array.from(r.data), [1]);
});

test('a tfjs-like tensor whose dataSync() returns null is a named TypeError', () => {
  const fake = { dtype: 'float32', shape: [1, 1], dataSync: () => null, rank: 2, size: 1 };
  assert.throws(() => attn.attention(fake, [[1]], [[1]]), named('attention', TypeError));
});

test('methods on a wrong receiver, and toOrt with a non-constructor, are named TypeErrors', () => {
  const layer = new attn.MultiHeadAttention({ dModel: 2, numHeads: 1, seed: 1 });
  assert.throws(() => layer.forward.call({}, [[1, 2]]), named('MultiHeadAttention.forward', TypeError));
  assert.throws(() => layer.getWeights.call(null), named('MultiHeadAttention.getWeights', TypeError));
  layer.dispose();
  for (const ort of [5, () => 1, { Tensor: 3 }])
    assert.throws(() => toOrt({ data: new Float32Array(1), shape: [1] }, ort), named('toOrt', TypeError));
});

test('init() with bad bytes or URLs is a named error, and the module keeps working', async () => {
  await assert.rejects(init({ wasmBinary: new Uint8Array([0, 97, 115, 109]) }), named('init', RangeError));
  await assert.rejects(init({ wasmUrl: 'not-a-url:::' }), named('init'));
  await assert.rejects(init({ wasmUrl: new URL('file:///nonexistent.wasm') }), named('init', RangeError));
  assert.deepEqual(attn.toNested(attn.attention([[1]], [[1]], [[5]]).output), [[5]]);
});
