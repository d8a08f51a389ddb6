// attn.KVCache (issue 22, item 5): keys and values appended in place into a cache with a
// capacity; attend() gives attention over everything cached. Checked against full causal
// attention and the float64 reference.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();
const random = rng(2205);

// Positions [from, to) of a [B, H, L, d] tensor.
function slice(t, from, to) {
  const [B, H, L, d] = t.shape,
    n = to - from;
  const out = new Float32Array(B * H * n * d);
  for (let s = 0; s < B * H; s++) out.set(t.data.subarray((s * L + from) * d, (s * L + to) * d), s * n * d);
  return { data: out, shape: [B, H, n, d] };
}

test('prefill then decode token by token (GQA, softcap) equals full causal attention, row for row', () => {
  const L = 9,
    prompt = 4;
  const q = randomTensor(random, [2, 4, L, 8]),
    k = randomTensor(random, [2, 2, L, 8]),
    v = randomTensor(random, [2, 2, L, 6]);
  for (const softcap of [0, 2.5]) {
    const full = attn.attention(q, k, v, { causal: true, enableGqa: true, softcap }).output;
    const cache = new attn.KVCache({ batch: 2, kvHeads: 2, capacity: 16, headDim: 8, valueDim: 6 });
    const first = cache.attend(slice(q, 0, prompt), slice(k, 0, prompt), slice(v, 0, prompt), {
      causal: true,
      softcap,
    });
    assertClose(first.output, slice(full, 0, prompt), { atol: 1e-6, label: 'prefill' });
    const before = attn.memory().inUseBytes;
    for (let i = prompt; i < L; i++) {
      const r = cache.attend(slice(q, i, i + 1), slice(k, i, i + 1), slice(v, i, i + 1), { causal: true, softcap });
      assertClose(r.output, slice(full, i, i + 1), { atol: 1e-6, label: `token ${i}` });
    }
    assert.equal(attn.memory().inUseBytes, before, 'a decode step allocates nothing that outlives it');
    assert.deepEqual(cache.lengths, [L, L]);
    assert.deepEqual(cache.keys(), k);
    assert.deepEqual(cache.values(), v);
    cache.dispose();
  }
});

test('sequences of different lengths: newLengths, per-sequence positions and weights against float64', () => {
  const q = randomTensor(random, [2, 2, 3, 4]),
    k = randomTensor(random, [2, 2, 3, 4]),
    v = randomTensor(random, [2, 2, 3, 4]);
  const cache = new attn.KVCache({ batch: 2, kvHeads: 2, capacity: 10, headDim: 4 });
  cache.attend(q, k, v, { causal: true, newLengths: [3, 1] }); // the second prompt is 1 token, right-padded
  assert.deepEqual(cache.lengths, [3, 1]);
  const q2 = randomTensor(random, [2, 2, 1, 4]),
    k2 = randomTensor(random, [2, 2, 1, 4]),
    v2 = randomTensor(random, [2, 2, 1, 4]);
  const r = cache.attend(q2, k2, v2, { causal: true, returnWeights: true });
  assert.deepEqual(cache.lengths, [4, 2]);
  // Reference: sequence n sees its own cached rows then the new one.
  for (let n = 0; n < 2; n++) {
    const held = cache.lengths[n];
    const keys = cache.keys(),
      values = cache.values();
    const pick = (t) => {
      const one = slice(
        {
          data: t.data.subarray((n * t.data.length) / 2, ((n + 1) * t.data.length) / 2),
          shape: [1, ...t.shape.slice(1)],
        },
        0,
        held,
      );
      return one;
    };
    const ref = referenceAttention(
      { data: q2.data.subarray(n * 8, (n + 1) * 8), shape: [1, 2, 1, 4] },
      pick(keys),
      pick(values),
      { causal: true, causalAlign: held - 1 },
    );
    assertClose({ data: r.output.data.subarray(n * 8, (n + 1) * 8), shape: [1, 2, 1, 4] }, ref.output, {
      label: `sequence ${n}`,
    });
    for (let h = 0; h < 2; h++) {
      const w = r.weights.data.subarray((n * 2 + h) * 4, (n * 2 + h + 1) * 4);
      assert.ok(Math.abs(w.reduce((a, b) => a + b, 0) - 1) < 1e-6);
      for (let j = held; j < 4; j++) assert.equal(w[j], 0, 'keys past the sequence are never seen');
    }
  }
  cache.dispose();
});

test("layout 'bshd' writes the same cache and gives the same output in its own layout", () => {
  const toBshd = (t) => {
    const [B, H, L, d] = t.shape,
      out = new Float32Array(t.data.length);
    for (let b = 0; b < B; b++)
      for (let h = 0; h < H; h++)
        for (let l = 0; l < L; l++)
          for (let c = 0; c < d; c++) out[((b * L + l) * H + h) * d + c] = t.data[((b * H + h) * L + l) * d + c];
    return { data: out, shape: [B, L, H, d] };
  };
  const q = randomTensor(random, [1, 4, 3, 8]),
    k = randomTensor(random, [1, 2, 3, 8]),
    v = randomTensor(random, [1, 2, 3, 8]);
  const a = new attn.KVCache({ batch: 1, kvHeads: 2, capacity: 4, headDim: 8 }),
    b = new attn.KVCache({ batch: 1, kvHeads: 2, capacity: 4, headDim: 8 });
  const ra = a.attend(q, k, v, { causal: true });
  const rb = b.attend(toBshd(q), toBshd(k), toBshd(v), { causal: true, layout: 'bshd' });
  assert.deepEqual(rb.output, toBshd(ra.output));
  assert.deepEqual(b.keys(), a.keys());
  a.dispose();
  b.dispose();
});

test('errors name the call and leave the cache as it was; a disposed cache refuses work', () => {
  const cache = new attn.KVCache({ batch: 1, kvHeads: 1, capacity: 2, headDim: 4 });
  const t = (L) => ({ data: new Float32Array(L * 4), shape: [1, 1, L, 4] });
  assert.throws(
    () => cache.attend(t(1), t(3), t(3)),
    /KVCache\.attend: sequence 0 holds 0 of 2 positions; 3 new ones do not fit/,
  );
  assert.throws(
    () => cache.attend(t(1), { data: new Float32Array(8), shape: [1, 2, 1, 4] }, t(1)),
    /KVCache\.attend: k and v must have the cache's 1 kv heads/,
  );
  assert.throws(
    () => cache.attend(t(1), t(1), t(1), { newLengths: [2] }),
    /newLengths\[0\] must be an integer in \[0, 1\]/,
  );
  assert.throws(() => cache.attend(t(1), t(1), t(1), { softcap: -1 }), RangeError);
  assert.deepEqual(cache.lengths, [0]);
  cache.attend(t(1), t(1), t(1));
  cache.attend(t(1), t(1), t(1));
  assert.throws(() => cache.attend(t(1), t(1), t(1)), /holds 2 of 2 positions/);
  cache.reset();
  assert.deepEqual(cache.lengths, [0]);
  cache.dispose();
  assert.throws(() => cache.attend(t(1), t(1), t(1)), /KVCache\.attend: this object was disposed/);
  assert.throws(
    () => new attn.KVCache({ batch: 1, kvHeads: 1, capacity: 0, headDim: 4 }),
    /KVCache: config\.capacity must be a positive integer/,
  );
  assert.throws(() => attn.KVCache({ batch: 1 }), /called without new/);
  const plan = attn.estimateMemory('KVCache', { batch: 2, kvHeads: 4, capacity: 1024, headDim: 64 });
  assert.equal(plan.bytes, 2 * 4 * 2 * 4 * 1024 * 64);
});
