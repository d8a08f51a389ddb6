// attention()'s sliding window (issue 22, item 3) and dropout (item 8), against the float64
// reference (tests/helpers/reference.js, which decides dropout from the hash's written
// definition) and closed forms: both paths, every alignment, masks, key lengths, GQA, the
// backward (central differences of the float64 forward), KVCache decoding, statistics of
// the dropout (kept fraction, unbiasedness), typed errors and the heap afterwards.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention, dropoutKeeps } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';
import { checkAttentionGradients } from './helpers/gradients.js';

const attn = await init();
const random = rng(2203);

const WINDOWS = [
  { left: 0 },
  { left: 1 },
  { left: 3, right: 0 },
  { left: 16 },
  { right: 2 },
  { left: 2, right: 9 },
  { left: 0, right: 0 },
  {},
];

test('window: output (fused), weights and masked scores (step by step) match float64 over sizes, sides, causal rules and alignments', () => {
  for (const [Lq, Lk] of [
    [1, 1],
    [5, 5],
    [37, 37],
    [70, 70],
    [9, 40],
    [40, 9],
  ]) {
    const q = randomTensor(random, [2, 2, Lq, 8]),
      k = randomTensor(random, [2, 2, Lk, 8]),
      v = randomTensor(random, [2, 2, Lk, 5]);
    for (const window of WINDOWS) {
      for (const extra of [
        {},
        { causal: true },
        { causal: true, causalAlign: 'bottom-right' },
        { causalAlign: 'bottom-right' },
        { causal: true, causalAlign: -3 },
      ]) {
        const options = { window, ...extra };
        const label = `Lq ${Lq}, Lk ${Lk}, window ${JSON.stringify(window)}, ${JSON.stringify(extra)}`;
        const ref = referenceAttention(q, k, v, options);
        assertClose(attn.attention(q, k, v, options).output, ref.output, { label: `${label} fused` });
        const traced = attn.attention(q, k, v, { ...options, trace: true });
        assertClose(traced.output, ref.output, { label: `${label} step by step` });
        assertClose(traced.trace.weights, ref.weights, { label: `${label} weights` });
        assert.deepEqual(
          Array.from(traced.trace.maskedScores.data, (x) => x === -Infinity),
          Array.from(ref.maskedScores.data, (x) => x === -Infinity),
          `${label}: the blocked keys`,
        );
      }
    }
  }
});

test('window: with masks, key lengths, per-sequence alignment, GQA and softcap together', () => {
  const q = randomTensor(random, [3, 4, 21, 8]),
    k = randomTensor(random, [3, 2, 33, 8]),
    v = randomTensor(random, [3, 2, 33, 6]);
  const mask = { data: Uint8Array.from({ length: 21 * 33 }, (_, i) => (i % 7 !== 3 ? 1 : 0)), shape: [21, 33] };
  const additive = {
    data: Float32Array.from({ length: 21 * 33 }, (_, i) => (i % 11 === 0 ? -Infinity : Math.sin(i) / 2)),
    shape: [21, 33],
  };
  const repeatKv = (t) => {
    // the reference's k, v: each kv head repeated for its 2 query heads
    const [B, H, L, d] = t.shape,
      out = new Float32Array(B * 4 * L * d);
    for (let b = 0; b < B; b++)
      for (let h = 0; h < 4; h++)
        out.set(t.data.subarray((b * H + (h >> 1)) * L * d, (b * H + (h >> 1) + 1) * L * d), (b * 4 + h) * L * d);
    return { data: out, shape: [B, 4, L, d] };
  };
  for (const extra of [
    { mask, causal: true },
    { mask: additive, keyLengths: [33, 20, 5] },
    { causal: true, causalAlign: 'bottom-right-per-sequence', keyLengths: [33, 25, 9] },
    { softcap: 2, causal: true, keyLengths: [12, 33, 30] },
  ]) {
    for (const window of [{ left: 4 }, { left: 9, right: 3 }, { right: 0 }]) {
      const options = { enableGqa: true, window, ...extra };
      const ref = referenceAttention(q, repeatKv(k), repeatKv(v), {
        ...options,
        mask: extra.mask && { ...extra.mask, boolean: extra.mask === mask },
      });
      const label = `window ${JSON.stringify(window)} with ${Object.keys(extra).join(', ')}`;
      assertClose(attn.attention(q, k, v, options).output, ref.output, { label: `${label} fused` });
      assertClose(attn.attention(q, k, v, { ...options, returnWeights: true }).weights, ref.weights, {
        label: `${label} weights`,
      });
    }
  }
});

test('window: equals the same window written as a boolean mask, and keys outside it (NaN in k and v) never reach the output', () => {
  const L = 300,
    left = 17;
  const q = randomTensor(random, [1, L, 16]),
    k = randomTensor(random, [1, L, 16]),
    v = randomTensor(random, [1, L, 16]);
  const band = {
    data: Uint8Array.from({ length: L * L }, (_, x) => {
      const i = Math.floor(x / L),
        j = x % L;
      return j <= i && j >= i - left ? 1 : 0;
    }),
    shape: [L, L],
  };
  const byMask = attn.attention(q, k, v, { mask: band }).output;
  const byWindow = attn.attention(q, k, v, { causal: true, window: { left } }).output;
  assertClose(
    byWindow,
    { data: Float64Array.from(byMask.data), shape: byMask.shape },
    { atol: 1e-6, rtol: 1e-5, label: 'window vs band mask' },
  );
  // Poison every key that only the last row would not see (before its window): rows near the
  // end must stay finite and unchanged.
  const kk = { data: k.data.slice(), shape: k.shape },
    vv = { data: v.data.slice(), shape: v.shape };
  for (let j = 0; j < L - 1 - left - 40; j++)
    for (let c = 0; c < 16; c++) {
      kk.data[j * 16 + c] = NaN;
      vv.data[j * 16 + c] = Infinity;
    }
  const poisoned = attn.attention(q, kk, vv, { causal: true, window: { left } }).output;
  for (let i = L - 40; i < L; i++)
    for (let c = 0; c < 16; c++)
      assert.equal(poisoned.data[i * 16 + c], byWindow.data[i * 16 + c], `row ${i} column ${c}`);
});

const checkGradients = (q, k, v, dOut, options, label) =>
  checkAttentionGradients(attn, q, k, v, dOut, options, { label, atol: 1e-3 });

test('window and dropout: the gradients match central differences of the float64 forward', () => {
  const q = randomTensor(random, [2, 6, 4]),
    k = randomTensor(random, [2, 7, 4]),
    v = randomTensor(random, [2, 7, 3]);
  const dOut = randomTensor(random, [2, 6, 3]);
  checkGradients(q, k, v, dOut, { window: { left: 2 }, causal: true }, 'causal window');
  checkGradients(q, k, v, dOut, { window: { left: 1, right: 2 }, causalAlign: 'bottom-right' }, 'two-sided window');
  checkGradients(q, k, v, dOut, { dropout: { p: 0.4, seed: 99 } }, 'dropout');
  checkGradients(
    q,
    k,
    v,
    dOut,
    { dropout: { p: 0.25, seed: 5 }, causal: true, window: { left: 3 }, softcap: 2 },
    'dropout, window, softcap',
  );
  // The gradients do depend on which weights were dropped.
  const a = attn.attentionBackward(q, k, v, dOut, { dropout: { p: 0.4, seed: 1 } }),
    b = attn.attentionBackward(q, k, v, dOut, { dropout: { p: 0.4, seed: 2 } });
  assert.ok(
    a.dv.data.some((x, i) => x !== b.dv.data[i]),
    'another seed, other gradients',
  );
});

test('dropout: output and weights match float64 with the same decisions, in both paths, with masks, causal rules and GQA', () => {
  const q = randomTensor(random, [2, 4, 19, 8]),
    k = randomTensor(random, [2, 4, 45, 8]),
    v = randomTensor(random, [2, 4, 45, 7]);
  const mask = {
    data: Float32Array.from({ length: 19 * 45 }, (_, i) => (i % 9 === 0 ? -Infinity : 0)),
    shape: [19, 45],
  };
  for (const p of [0.1, 0.5, 0.9]) {
    for (const extra of [
      {},
      { causal: true, causalAlign: 'bottom-right' },
      { mask, keyLengths: [45, 30] },
      { window: { left: 5 }, causal: true },
    ]) {
      for (const seed of [0, 12345, 2 ** 32 - 1]) {
        const options = { dropout: { p, seed }, ...extra };
        const label = `p ${p}, seed ${seed}, ${Object.keys(extra).join(', ') || 'no mask'}`;
        const ref = referenceAttention(q, k, v, options);
        const fused = attn.attention(q, k, v, options);
        assertClose(fused.output, ref.output, { label: `${label} fused` });
        assert.equal(fused.dropoutSeed, seed);
        const stepwise = attn.attention(q, k, v, { ...options, returnWeights: true });
        assertClose(stepwise.output, ref.output, { label: `${label} step by step` });
        assertClose(stepwise.weights, ref.weights, { label: `${label} weights (before dropout)` });
        assertClose(stepwise.droppedWeights, ref.droppedWeights, { label: `${label} dropped weights` });
      }
    }
  }
});

test('dropout: deterministic for a seed, other seeds differ, and the kept fraction is 1 − p within 5σ', () => {
  const L = 160;
  const q = randomTensor(random, [1, 2, L, 8]),
    k = randomTensor(random, [1, 2, L, 8]),
    v = randomTensor(random, [1, 2, L, 8]);
  for (const p of [0.1, 0.3, 0.7]) {
    const a = attn.attention(q, k, v, { dropout: { p, seed: 42 }, returnWeights: true });
    const b = attn.attention(q, k, v, { dropout: { p, seed: 42 }, returnWeights: true });
    assert.deepEqual(a.output.data, b.output.data, 'the same seed, the same bits');
    const c = attn.attention(q, k, v, { dropout: { p, seed: 43 } });
    assert.ok(
      c.output.data.some((x, i) => x !== a.output.data[i]),
      'another seed, another output',
    );
    let kept = 0;
    for (const x of a.droppedWeights.data) if (x !== 0) kept++;
    const n = a.droppedWeights.data.length,
      sigma = Math.sqrt(n * p * (1 - p));
    assert.ok(
      Math.abs(kept - n * (1 - p)) <= 5 * sigma,
      `p ${p}: kept ${kept} of ${n}, expected ${n * (1 - p)} ± ${5 * sigma}`,
    );
    // Kept weights are the softmax's divided by 1 − p, exactly as decided by the hash.
    let checked = 0;
    for (let e = 0; e < 2; e++)
      for (let i = 0; i < L; i += 17)
        for (let j = 0; j < L; j += 13) {
          const x = e * L * L + i * L + j;
          const expected = dropoutKeeps(p, 42, e, i, j) ? a.weights.data[x] / (1 - Math.fround(p)) : 0;
          assert.ok(
            Math.abs(a.droppedWeights.data[x] - expected) <= 1e-6 * Math.abs(expected),
            `entry ${e} (${i}, ${j}): ${a.droppedWeights.data[x]} vs ${expected}`,
          );
          checked++;
        }
    assert.ok(checked > 200);
  }
});

test('dropout: unbiased, the mean output over 400 seeds approaches the output without dropout', () => {
  const q = randomTensor(random, [1, 6, 8]),
    k = randomTensor(random, [1, 10, 8]),
    v = randomTensor(random, [1, 10, 4]);
  const p = 0.3,
    runs = 400;
  const plain = referenceAttention(q, k, v, {});
  const mean = new Float64Array(plain.output.data.length);
  for (let s = 0; s < runs; s++) {
    const out = attn.attention(q, k, v, { dropout: { p, seed: s * 7919 } }).output.data;
    for (let i = 0; i < mean.length; i++) mean[i] += out[i] / runs;
  }
  // Per element the dropped output has variance Σ_j w_j² v_j² · p / (1 − p) (independent keeps).
  for (let i = 0; i < 6; i++)
    for (let c = 0; c < 4; c++) {
      let variance = 0;
      for (let j = 0; j < 10; j++)
        variance += ((plain.weights.data[i * 10 + j] * v.data[j * 4 + c]) ** 2 * p) / (1 - p);
      const bound = 5 * Math.sqrt(variance / runs) + 1e-6;
      const x = i * 4 + c;
      assert.ok(
        Math.abs(mean[x] - plain.output.data[x]) <= bound,
        `out[${i}][${c}]: mean ${mean[x]} vs ${plain.output.data[x]} (5σ ${bound})`,
      );
    }
});

test('dropout: without a seed one is drawn and returned; the backward needs it; p = 0 is no dropout', () => {
  const q = randomTensor(random, [2, 5, 4]),
    k = randomTensor(random, [2, 5, 4]),
    v = randomTensor(random, [2, 5, 4]),
    dOut = randomTensor(random, [2, 5, 4]);
  const drawn = attn.attention(q, k, v, { dropout: { p: 0.5 } });
  assert.ok(Number.isInteger(drawn.dropoutSeed) && drawn.dropoutSeed >= 0 && drawn.dropoutSeed < 2 ** 32);
  assert.deepEqual(
    attn.attention(q, k, v, { dropout: { p: 0.5, seed: drawn.dropoutSeed } }).output.data,
    drawn.output.data,
  );
  assert.throws(() => attn.attentionBackward(q, k, v, dOut, { dropout: { p: 0.5 } }), {
    name: 'TypeError',
    message: /attentionBackward.*options\.dropout\.seed is required/,
  });
  const none = attn.attention(q, k, v, { dropout: { p: 0, seed: 3 } });
  assert.deepEqual(none.output.data, attn.attention(q, k, v).output.data);
  assert.equal(none.dropoutSeed, undefined);
});

test('KVCache: decoding with a sliding window, token by token, equals causal windowed attention over the whole sequence', () => {
  const heads = 4,
    kvHeads = 2,
    d = 8,
    T = 29,
    prompt = 11,
    left = 6;
  const q = randomTensor(random, [1, heads, T, d]),
    k = randomTensor(random, [1, kvHeads, T, d]),
    v = randomTensor(random, [1, kvHeads, T, d]);
  const full = attn.attention(q, k, v, { causal: true, window: { left }, enableGqa: true }).output;
  const rows = (t, h, from, to) => t.data.subarray((h * T + from) * d, (h * T + to) * d);
  const slice = (t, H, from, to) => {
    const out = new Float32Array(H * (to - from) * d);
    for (let h = 0; h < H; h++) out.set(rows(t, h, from, to), h * (to - from) * d);
    return { data: out, shape: [1, H, to - from, d] };
  };
  const before = attn.memory().inUseBytes;
  const cache = new attn.KVCache({ batch: 1, kvHeads, capacity: T, headDim: d });
  const check = (out, from, to) => {
    for (let h = 0; h < heads; h++)
      for (let i = from; i < to; i++)
        for (let c = 0; c < d; c++) {
          const got = out.data[(h * (to - from) + i - from) * d + c],
            want = full.data[(h * T + i) * d + c];
          assert.ok(Math.abs(got - want) <= 1e-6, `head ${h} position ${i}: ${got} vs ${want}`);
        }
  };
  check(
    cache.attend(slice(q, heads, 0, prompt), slice(k, kvHeads, 0, prompt), slice(v, kvHeads, 0, prompt), {
      causal: true,
      window: { left },
    }).output,
    0,
    prompt,
  );
  for (let t = prompt; t < T; t++) {
    check(
      cache.attend(slice(q, heads, t, t + 1), slice(k, kvHeads, t, t + 1), slice(v, kvHeads, t, t + 1), {
        causal: true,
        window: { left },
      }).output,
      t,
      t + 1,
    );
  }
  cache.dispose();
  assert.equal(attn.memory().inUseBytes, before, 'the heap is back');
});

test('window and dropout: bad values are typed errors naming the function and the option, and nothing is left allocated', () => {
  const q = randomTensor(random, [2, 3, 4]);
  const before = attn.memory().inUseBytes;
  const cases = [
    [{ window: 3 }, TypeError, /attention: options\.window must be an object/],
    [{ window: { left: -1 } }, RangeError, /attention: options\.window\.left must be a non-negative integer/],
    [{ window: { right: 1.5 } }, RangeError, /options\.window\.right must be a non-negative integer/],
    [{ window: { left: '2' } }, TypeError, /options\.window\.left must be a number/],
    [{ window: { size: 2 } }, TypeError, /unknown options\.window key 'size'/],
    [{ dropout: 0.1 }, TypeError, /attention: options\.dropout must be an object/],
    [{ dropout: { p: 1 } }, RangeError, /options\.dropout\.p must be in \[0, 1\)/],
    [{ dropout: { p: NaN } }, RangeError, /options\.dropout\.p must be in \[0, 1\)/],
    [{ dropout: { p: 0.1, seed: -1 } }, RangeError, /options\.dropout\.seed must be an integer in \[0, 2\^32\)/],
    [{ dropout: { p: 0.1, seed: 2 ** 32 } }, RangeError, /options\.dropout\.seed/],
    [{ dropout: { p: 0.1, seed: 1, rate: 2 } }, TypeError, /unknown options\.dropout key 'rate'/],
  ];
  for (const [options, type, message] of cases) {
    assert.throws(
      () => attn.attention(q, q, q, options),
      (e) => e instanceof type && message.test(e.message),
      JSON.stringify(options),
    );
  }
  assert.throws(() => attn.attentionBackward(q, q, q, q, { window: { left: -2 } }), {
    name: 'RangeError',
    message: /attentionBackward: options\.window\.left/,
  });
  const cache = new attn.KVCache({ batch: 1, kvHeads: 1, capacity: 4, headDim: 4 });
  assert.throws(
    () =>
      cache.attend(
        { data: new Float32Array(4), shape: [1, 1, 1, 4] },
        { data: new Float32Array(4), shape: [1, 1, 1, 4] },
        { data: new Float32Array(4), shape: [1, 1, 1, 4] },
        { window: { left: 0.5 } },
      ),
    { name: 'RangeError', message: /KVCache\.attend: options\.window\.left/ },
  );
  assert.equal(cache.lengths[0], 0, 'nothing appended');
  cache.dispose();
  assert.equal(attn.memory().inUseBytes, before);
  assert.ok(attn.attention(q, q, q, { window: { left: 1 } }).output.data.every(Number.isFinite), 'still working');
});

test('estimateMemory: dropout with weights plans the dropped weights; a window costs nothing extra', () => {
  const q = { data: new Float32Array(2 * 64 * 16), shape: [2, 64, 16] };
  const plain = attn.estimateMemory('attention', q, q, q, { returnWeights: true });
  const dropped = attn.estimateMemory('attention', q, q, q, { returnWeights: true, dropout: { p: 0.1, seed: 1 } });
  assert.equal(dropped.bytes - plain.bytes, 2 * 64 * 64 * 4, 'one more [2, 64, 64] float buffer');
  assert.equal(
    attn.estimateMemory('attention', q, q, q, { window: { left: 3 } }).bytes,
    attn.estimateMemory('attention', q, q, q).bytes,
  );
});
