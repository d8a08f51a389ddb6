// The wasm heap grows to 4 GiB (-sMAXIMUM_MEMORY=4GB): addresses past 2^31 are negative as
// int32, so every address JS reads must be read unsigned. A 2.2 GB cache is placed first, so
// that everything after it lives past 2 GiB, and the results there must be the bits a fresh
// instance gives at low addresses.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { init } from 'attention-wasm';
import { rng, randomTensor } from './helpers/assert.js';

const wasmBinary = readFileSync(new URL('../dist/attention.wasm', import.meta.url));
const dir = new URL('./fixtures/hf/tiny-llama/', import.meta.url).pathname;

test('past 2 GiB: attention, a KV cache and quantized and float models give the bits of low addresses', async () => {
  const high = await init({ wasmBinary });
  const low = await init({ wasmBinary });
  assert.equal(high.memory().heapMaxBytes, 4 * 2 ** 30 - 65536); // 65,535 pages of 64 KiB
  // 2 × 1.03 GiB of keys and values, allocated before anything else of this test.
  const ballast = new high.KVCache({ batch: 1, kvHeads: 1, capacity: 270_000, headDim: 1024 });
  try {
    assert.ok(high.memory().inUseBytes > 2 ** 31, `${high.memory().inUseBytes} bytes in use`);
    const random = rng(4);
    const [q, k, v] = [0, 1, 2].map(() => randomTensor(random, [2, 4, 9, 16]));
    for (const [name, run] of [
      ['attention', (attn) => attn.attention(q, k, v, { causal: true, returnWeights: true })],
      [
        'KVCache',
        (attn) => {
          const cache = new attn.KVCache({ batch: 2, kvHeads: 4, capacity: 32, headDim: 16 });
          try {
            const { output } = cache.attend(q, k, v, { causal: true });
            return { output, keys: cache.keys() };
          } finally {
            cache.dispose();
          }
        },
      ],
    ]) {
      const a = run(high),
        b = run(low);
      for (const key of Object.keys(b)) assert.deepEqual(a[key].data, b[key].data, `${name} ${key}`);
    }
    for (const dtype of ['float32', 'q8', 'q4']) {
      const [a, b] = [await high.loadModel(dir, { dtype }), await low.loadModel(dir, { dtype })];
      try {
        assert.deepEqual(a.forward('the cat sat').logits.data, b.forward('the cat sat').logits.data, dtype);
        const [ga, gb] = [a, b].map((m) => m.generate('the cat', { maxNewTokens: 4, stopAtEos: false }));
        assert.deepEqual((await ga).newIds, (await gb).newIds, `${dtype} generate`);
      } finally {
        a.dispose();
        b.dispose();
      }
    }
  } finally {
    ballast.dispose();
  }
  assert.ok(high.memory().inUseBytes < 2 ** 30, 'the ballast is freed');
});
