// Long run: 100,000 mixed valid and invalid calls, then 10,000 create/forward/dispose cycles
// of each layer class; the heap's in-use bytes must end where they started and the heap must
// not grow during the cycles. Prints the figures.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { rng, randomTensor } from './helpers/assert.js';

const attn = await init();
const KiB = 1024;

test('100,000 mixed valid/invalid calls leave the heap as it was', () => {
  const random = rng(2024);
  const q = randomTensor(random, [2, 6, 8]),
    k = randomTensor(random, [2, 9, 8]),
    v = randomTensor(random, [2, 9, 4]);
  const w = randomTensor(random, [8, 5]);
  const bad = randomTensor(random, [9, 7]);
  const mask = { data: Uint8Array.from({ length: 9 }, (_, j) => j !== 3), shape: [9] };
  const calls = [
    () => attn.attention(q, k, v, { mask }),
    () => attn.attention(q, k, v, { causal: true, returnWeights: true }),
    () => attn.attention(q, bad, v), // RangeError: dk
    () => attn.attention(q, k, v, { mask: { data: new Uint8Array(5), shape: [5] } }), // RangeError: mask shape
    () => attn.matmul(q, w),
    () => attn.matmul(q, bad), // RangeError: k
    () => attn.layerNorm(q, { eps: -1 }), // RangeError: eps
    () => attn.layerNorm(q),
    () => attn.alibiBias(4, 6, 9),
    () => attn.attention({ data: new Float32Array(4), shape: [65536, 65536] }, k, v), // RangeError: values
  ];
  const tall = randomTensor(random, [65536, 1]);
  const tooBig = () => attn.attention(tall, tall, tall, { returnWeights: true }); // RangeError: 16 GiB
  const start = attn.memory();
  let threw = 0;
  const t0 = performance.now();
  for (let i = 0; i < 100_000; i++) {
    try {
      (i % 1000 === 999 ? tooBig : calls[i % calls.length])();
    } catch (e) {
      assert.ok(e instanceof RangeError, `call ${i}: ${e}`);
      threw++;
    }
  }
  const end = attn.memory();
  console.log(
    `long run: 100,000 calls (${threw} RangeErrors) in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
      `heap in use ${start.inUseBytes} → ${end.inUseBytes} bytes, heap size ${start.heapBytes / KiB} → ${end.heapBytes / KiB} KiB`,
  );
  assert.ok(threw > 30_000);
  assert.equal(end.inUseBytes, start.inUseBytes);
});

test('10,000 create/forward/dispose cycles of each layer keep the heap flat', () => {
  const random = rng(77);
  const x = randomTensor(random, [2, 7, 16]);
  const start = attn.memory();
  const t0 = performance.now();
  let afterFirst = null;
  for (let i = 0; i < 10_000; i++) {
    const mha = new attn.MultiHeadAttention({ dModel: 16, numHeads: 4, seed: i });
    mha.forward(x, x, x, { causal: i % 2 === 0, returnWeights: i % 3 === 0 });
    mha.dispose();
    const layer = new attn.TransformerEncoderLayer({
      dModel: 16,
      numHeads: 2,
      dFF: 32,
      norm: i % 2 ? 'pre' : 'post',
      seed: i,
    });
    layer.forward(x, { keyLengths: [7, 1 + (i % 7)] });
    layer.dispose();
    if (i === 0) afterFirst = attn.memory();
  }
  const end = attn.memory();
  console.log(
    `long run: 10,000 cycles of each layer in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
      `heap in use ${start.inUseBytes} → ${afterFirst.inUseBytes} (after one) → ${end.inUseBytes} bytes; ` +
      `heap size ${afterFirst.heapBytes / KiB} → ${end.heapBytes / KiB} KiB; peak ${end.peakBytes} bytes`,
  );
  assert.equal(end.inUseBytes, start.inUseBytes);
  assert.equal(end.heapBytes, afterFirst.heapBytes, 'the heap grew during the cycles');
});
