// attn.matmul against a float64 reference, around the SIMD width.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();

function reference(a, b) {
  const [k, n] = b.shape;
  const m = a.data.length / k;
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += a.data[i * k + p] * b.data[p * n + j];
      out[i * n + j] = s;
    }
  return { data: out, shape: [...a.shape.slice(0, -1), n] };
}

test('matmul matches float64 over sizes 1..9, 63..65', () => {
  const random = rng(40);
  const sizes = [1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65];
  for (const m of sizes)
    for (const k of [1, 3, 4, 8, 65])
      for (const n of [1, 3, 4, 5, 8, 9, 64, 65]) {
        const a = randomTensor(random, [m, k]),
          b = randomTensor(random, [k, n]);
        assertClose(attn.matmul(a, b), reference(a, b), { atol: 1e-5, label: `${m}x${k} · ${k}x${n}` });
      }
});

test('matmul keeps leading dims of a and checks shapes', () => {
  const random = rng(41);
  const a = randomTensor(random, [2, 3, 5]),
    b = randomTensor(random, [5, 4]);
  assertClose(attn.matmul(a, b), reference(a, b), { label: 'batched' });
  assert.throws(
    () => attn.matmul(a, randomTensor(random, [4, 4])),
    (e) => e instanceof RangeError && /^matmul: b has 4 rows but a has 5 columns/.test(e.message),
  );
  assert.throws(
    () => attn.matmul(a, [1, 2]),
    (e) => e instanceof RangeError && /^matmul: b must have shape \[k, n\]/.test(e.message),
  );
  assert.throws(
    () => attn.matmul(a, 'w'),
    (e) => e instanceof TypeError && /^matmul: b must be a tensor/.test(e.message),
  );
});
