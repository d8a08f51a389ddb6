// attention()'s options from issue 22: softcap (forward, trace, backward), layout 'bshd',
// pastKey/pastValue → presentKey/presentValue, causal offsets (integer, per sequence), masks
// that cover only the valid keys, and float16/bfloat16 tensors. Against the float64 reference
// (tests/helpers/reference.js) and closed forms.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';
import { checkAttentionGradients } from './helpers/gradients.js';

const attn = await init();
const random = rng(2211);

// [B, H, L, d] → [B, L, H, d] (a copy in the other layout).
function toBshd(t) {
  const [B, H, L, d] = t.shape;
  const out = new Float32Array(t.data.length);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++)
      for (let l = 0; l < L; l++)
        for (let c = 0; c < d; c++) {
          out[((b * L + l) * H + h) * d + c] = t.data[((b * H + h) * L + l) * d + c];
        }
  return { data: out, shape: [B, L, H, d] };
}

// Scores of a chosen size: q·k of ~`magnitude` (q rows scaled).
const scaled = (t, f) => ({ data: t.data.map((x) => x * f), shape: t.shape });

test('softcap: output, weights and every trace stage match c·tanh(s/c) in float64, with masks, causal rules and GQA', () => {
  for (const [softcap, magnitude] of [
    [0.5, 1],
    [2, 10],
    [30, 100],
    [50, 1e4],
    [1e4, 1e6],
  ]) {
    const q = scaled(randomTensor(random, [2, 4, 5, 8]), magnitude / 3),
      k = randomTensor(random, [2, 2, 7, 8]),
      v = randomTensor(random, [2, 2, 7, 6]);
    const mask = {
      data: Uint8Array.from({ length: 35 }, (_, i) => (i % 4 !== 1 ? 1 : 0)),
      shape: [5, 7],
      boolean: true,
    };
    for (const options of [
      {},
      { causal: true },
      { mask },
      { causal: true, causalAlign: 'bottom-right', keyLengths: [7, 4] },
    ]) {
      const all = { softcap, enableGqa: true, ...options };
      const kk = { data: new Float32Array(2 * 4 * 7 * 8), shape: [2, 4, 7, 8] },
        vv = { data: new Float32Array(2 * 4 * 7 * 6), shape: [2, 4, 7, 6] };
      for (let b = 0; b < 2; b++)
        for (let h = 0; h < 4; h++) {
          // the reference's k, v: each kv head repeated
          kk.data.set(k.data.subarray((b * 2 + (h >> 1)) * 56, (b * 2 + (h >> 1) + 1) * 56), (b * 4 + h) * 56);
          vv.data.set(v.data.subarray((b * 2 + (h >> 1)) * 42, (b * 2 + (h >> 1) + 1) * 42), (b * 4 + h) * 42);
        }
      const ref = referenceAttention(q, kk, vv, all);
      const label = `softcap ${softcap}, scores ~${magnitude}, ${JSON.stringify(options.causalAlign ?? options.causal ?? (options.mask ? 'mask' : 'none'))}`;
      const tol = { atol: 1e-5 * Math.max(1, softcap / 10), rtol: 1e-4 };
      assertClose(
        attn.attention(q, k, v, { ...all, mask: options.mask && { data: mask.data, shape: mask.shape } }).output,
        ref.output,
        { ...tol, label: `${label} fused` },
      );
      const traced = attn.attention(q, k, v, {
        ...all,
        mask: options.mask && { data: mask.data, shape: mask.shape },
        trace: true,
      });
      assertClose(traced.output, ref.output, { ...tol, label: `${label} step by step` });
      assertClose(traced.trace.cappedScores, ref.cappedScores, { ...tol, label: `${label} cappedScores` });
      assertClose(traced.trace.weights, ref.weights, { ...tol, label: `${label} weights` });
      for (const x of traced.trace.cappedScores.data)
        assert.ok(Math.abs(x) <= softcap * (1 + 1e-6), `|capped| <= softcap, got ${x}`);
    }
  }
});

test('softcap: the gradients match central differences of the float64 forward', () => {
  const q = scaled(randomTensor(random, [1, 3, 4]), 3),
    k = randomTensor(random, [1, 5, 4]),
    v = randomTensor(random, [1, 5, 3]);
  const dOut = randomTensor(random, [1, 3, 3]);
  const options = { softcap: 1.5, causal: true, causalAlign: 'bottom-right' };
  const { dq } = checkAttentionGradients(attn, q, k, v, dOut, options, { label: 'softcap' });
  // Without the cap the gradients differ (the cap's slope is not 1 at these scores).
  const plain = attn.attentionBackward(q, k, v, dOut, { causal: true, causalAlign: 'bottom-right' });
  assert.ok(
    plain.dq.data.some((x, i) => Math.abs(x - dq.data[i]) > 1e-3),
    'softcap changes dq',
  );
});

test("layout 'bshd' gives the 'bhsd' result, bit for bit, in the matching layout (fused, weights, GQA, masks)", () => {
  const q = randomTensor(random, [2, 4, 6, 8]),
    k = randomTensor(random, [2, 2, 9, 8]),
    v = randomTensor(random, [2, 2, 9, 5]);
  const mask = {
    data: Float32Array.from({ length: 4 * 6 * 9 }, (_, i) => (i % 5 === 0 ? -Infinity : (i % 7) / 10)),
    shape: [4, 6, 9],
  };
  for (const options of [
    { enableGqa: true },
    { enableGqa: true, mask, causal: true, softcap: 3 },
    { enableGqa: true, returnWeights: true, keyLengths: [9, 3] },
  ]) {
    const a = attn.attention(q, k, v, options);
    const b = attn.attention(toBshd(q), toBshd(k), toBshd(v), { ...options, layout: 'bshd' });
    assert.deepEqual(b.output.shape, [2, 6, 4, 5]);
    assert.deepEqual(b.output.data, toBshd(a.output).data);
    if (options.returnWeights) assert.deepEqual(b.weights, a.weights); // weights stay [B, H, Lq, Lk]
  }
  // options.out in the bshd shape
  const out = new Float32Array(2 * 6 * 4 * 5);
  const r = attn.attention(toBshd(q), toBshd(k), toBshd(v), { enableGqa: true, layout: 'bshd', out });
  assert.equal(r.output.data, out);
});

test('pastKey/pastValue: present = [past, new] exactly; the output is attention over it, causal from the new keys', () => {
  const P = 5,
    Lk = 3;
  const q = randomTensor(random, [2, 3, Lk, 8]),
    k = randomTensor(random, [2, 1, Lk, 8]),
    v = randomTensor(random, [2, 1, Lk, 4]);
  const pastKey = randomTensor(random, [2, 1, P, 8]),
    pastValue = randomTensor(random, [2, 1, P, 4]);
  const concat = (past, now, d) => {
    const out = new Float32Array(2 * (P + Lk) * d);
    for (let b = 0; b < 2; b++) {
      out.set(past.data.subarray(b * P * d, (b + 1) * P * d), b * (P + Lk) * d);
      out.set(now.data.subarray(b * Lk * d, (b + 1) * Lk * d), b * (P + Lk) * d + P * d);
    }
    return { data: out, shape: [2, 1, P + Lk, d] };
  };
  const fullK = concat(pastKey, k, 8),
    fullV = concat(pastValue, v, 4);
  for (const options of [{}, { causal: true }, { causal: true, softcap: 2 }, { causal: true, trace: true }]) {
    const r = attn.attention(q, k, v, { ...options, pastKey, pastValue });
    assert.deepEqual(r.presentKey, fullK);
    assert.deepEqual(r.presentValue, fullV);
    // causal with a cache: new query i is position P + i (ONNX Attention's offset = past length)
    const ref = referenceAttention(q, fullK, fullV, { ...options, causalAlign: P });
    assertClose(r.output, ref.output, { label: `past ${JSON.stringify(options)}` });
  }
  // bshd new keys with a bhsd cache (ONNX's 3-D inputs with 4-D caches)
  const r = attn.attention(toBshd(q), toBshd(k), toBshd(v), { layout: 'bshd', pastKey, pastValue, causal: true });
  assert.deepEqual(r.presentKey, fullK);
});

test('decoding token by token with pastKey/pastValue gives full causal attention, row by row', () => {
  const L = 7;
  const q = randomTensor(random, [1, 2, L, 8]),
    k = randomTensor(random, [1, 2, L, 8]),
    v = randomTensor(random, [1, 2, L, 8]);
  const full = attn.attention(q, k, v, { causal: true }).output;
  const row = (t, i) => {
    const [B, H, , d] = t.shape,
      out = new Float32Array(B * H * d);
    for (let h = 0; h < B * H; h++) out.set(t.data.subarray((h * L + i) * d, (h * L + i + 1) * d), h * d);
    return { data: out, shape: [B, H, 1, d] };
  };
  let pastKey = { data: new Float32Array(0), shape: [1, 2, 0, 8] },
    pastValue = { data: new Float32Array(0), shape: [1, 2, 0, 8] };
  for (let i = 0; i < L; i++) {
    const r = attn.attention(row(q, i), row(k, i), row(v, i), { causal: true, pastKey, pastValue });
    assertClose(r.output, row(full, i), { atol: 1e-6, label: `token ${i}` });
    pastKey = r.presentKey;
    pastValue = r.presentValue;
  }
  assert.deepEqual(pastKey.shape, [1, 2, L, 8]);
});

test("causalAlign: an integer offset, and 'bottom-right-per-sequence' aligned to each sequence's key length", () => {
  const q = randomTensor(random, [3, 2, 4, 8]),
    k = randomTensor(random, [3, 2, 9, 8]),
    v = randomTensor(random, [3, 2, 9, 3]);
  for (const causalAlign of [-2, 0, 3, 20, 'bottom-right-per-sequence']) {
    for (const keyLengths of [undefined, [9, 5, 2]]) {
      const options = { causal: true, causalAlign, ...(keyLengths ? { keyLengths } : {}) };
      const ref = referenceAttention(q, k, v, options);
      assertClose(attn.attention(q, k, v, options).output, ref.output, {
        label: `causalAlign ${causalAlign} ${keyLengths ?? ''}`,
      });
      assertClose(attn.attention(q, k, v, { ...options, returnWeights: true }).weights, ref.weights, {
        label: `weights ${causalAlign}`,
      });
    }
  }
  // per sequence with key length 2 < Lq = 4: rows 0 and 1 see no key (zeros), rows 2, 3 see 1, 2 keys
  const r = attn.attention(q, k, v, {
    causal: true,
    causalAlign: 'bottom-right-per-sequence',
    keyLengths: [9, 5, 2],
    returnWeights: true,
  });
  const w = (b, h, i, j) => r.weights.data[((b * 2 + h) * 4 + i) * 9 + j];
  assert.equal(w(2, 0, 0, 0), 0);
  assert.equal(w(2, 0, 1, 0), 0);
  assert.equal(w(2, 0, 2, 0), 1);
  assert.ok(w(2, 0, 3, 0) > 0 && w(2, 0, 3, 1) > 0 && w(2, 0, 3, 2) === 0);
  assert.throws(
    () =>
      new attn.MultiHeadAttention({ dModel: 8, numHeads: 2 }).forward(
        randomTensor(random, [1, 3, 8]),
        undefined,
        undefined,
        { causal: true, causalAlign: 'bottom-right-per-sequence' },
      ),
    /'bottom-right-per-sequence' is an option of attention\(\)/,
  );
});

test('a mask that covers only the valid keys of padded sequences blocks the rest (ONNX padded caches)', () => {
  const q = randomTensor(random, [2, 3, 8]),
    k = randomTensor(random, [2, 6, 8]),
    v = randomTensor(random, [2, 6, 4]);
  const short = { data: Float32Array.from({ length: 3 * 4 }, (_, i) => (i % 3) - 1), shape: [3, 4] };
  const wide = { data: new Float32Array(3 * 6).fill(-Infinity), shape: [3, 6] };
  for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) wide.data[i * 6 + j] = short.data[i * 4 + j];
  const r = attn.attention(q, k, v, { mask: short, keyLengths: [4, 2] });
  assertClose(r.output, referenceAttention(q, k, v, { mask: wide, keyLengths: [4, 2] }).output, {
    label: 'short mask',
  });
  assert.throws(
    () => attn.attention(q, k, v, { mask: short, keyLengths: [5, 2] }),
    /mask \[3, 4\] does not broadcast to the weights \[2, 3, 6\]/,
  );
});

test('float16 and bfloat16 tensors: the bits decode exactly (q, k, v and masks)', () => {
  const bits = Uint16Array.from([0x3c00, 0x7bff, 0x0001, 0xc000, 0x3555, 0x0000, 0x03ff, 0x7c00]);
  const want = [1, 65504, 2 ** -24, -2, 0.333251953125, 0, 1023 * 2 ** -24, Infinity];
  const q = attn.tensor(new Float32Array(8), [1, 8]);
  const r = attn.attention(q, q, { data: bits, shape: [1, 8], dtype: 'float16' });
  assert.deepEqual(Array.from(r.output.data), want);
  const bf = attn.attention(q, q, {
    data: Uint16Array.from([0x3f80, 0xc040, 0x4049]),
    shape: [1, 3],
    dtype: 'bfloat16',
  });
  assert.deepEqual(Array.from(bf.output.data), [1, -3, 3.140625]);
  const half = attn.attention(
    q,
    q,
    { data: bits, shape: [1, 8], dtype: 'float16' },
    { mask: { data: Uint16Array.from([0xfc00]), shape: [1, 1], dtype: 'float16' } },
  );
  assert.deepEqual(Array.from(half.output.data), new Array(8).fill(0), 'a float16 -Infinity mask blocks');
  assert.throws(
    () => attn.attention(q, q, { data: new Float32Array(8), shape: [1, 8], dtype: 'float16' }),
    /v\.dtype is 'float16', so v\.data must be a Uint16Array/,
  );
  assert.throws(
    () => attn.attention(q, q, { data: bits, shape: [1, 8], dtype: 'int8' }),
    /v\.dtype must be 'float32', 'float16' or 'bfloat16'/,
  );
});

test('estimateMemory covers the present cache and the capped stage', () => {
  const q = randomTensor(random, [1, 2, 4, 8]),
    k = randomTensor(random, [1, 2, 4, 8]);
  const past = { data: new Float32Array(2 * 100 * 8), shape: [1, 2, 100, 8] };
  const plain = attn.estimateMemory('attention', q, k, k, {});
  const cached = attn.estimateMemory('attention', q, k, k, { pastKey: past, pastValue: past });
  const names = cached.blocks.map((t) => t.name);
  assert.ok(names.includes('present keys') && names.includes('present values'), names.join(', '));
  assert.ok(cached.bytes > plain.bytes + 2 * 4 * 2 * 100 * 8);
  const traced = attn.estimateMemory('attention', q, k, k, { softcap: 5, trace: true });
  assert.ok(traced.blocks.some((t) => t.name === 'capped scores'));
});

test('softcap at the ends of float32: subnormal caps cap (a zero score stays 0, not NaN); caps float32 cannot hold are RangeErrors', () => {
  // Found by the API fuzzer: below 2^-128 the kernels' 1/softcap was +Infinity, so 0·Infinity
  // made a row NaN; below 2^-149 the cap rounded to 0 (no cap); above FLOAT32_MAX the core refused.
  const q = [
      [1, 1],
      [2, 2],
    ],
    k = [
      [1, 2],
      [0, 1],
    ],
    v = [
      [1, 2],
      [3, 4],
    ];
  const zeroScores = { data: Float32Array.of(1, 2, 0, 0), shape: [2, 2] }; // row 1: scores 0, 0
  for (const softcap of [1e-40, 2 ** -149, 3e-39]) {
    for (const extra of [{}, { returnWeights: true }]) {
      const out = attn.attention(zeroScores, k, v, { softcap, ...extra }).output.data;
      // Capped scores are ±softcap or 0: every weight is 1/2 to within 1e-38.
      assert.deepEqual(Array.from(out), [2, 3, 2, 3], `softcap ${softcap} ${JSON.stringify(extra)}`);
    }
  }
  for (const softcap of [1e-46, 2 ** -151, 3.5e38, 1e300]) {
    assert.throws(() => attn.attention(q, k, v, { softcap }), {
      name: 'RangeError',
      message: /^attention: options\.softcap must be 0 \(none\) or in \[2\^-149, 3\.4028234663852886e38\]/,
    });
    assert.throws(() => attn.attentionBackward(q, k, v, q, { softcap }), {
      name: 'RangeError',
      message: /^attentionBackward: options\.softcap/,
    });
  }
  const capped = attn.attention(q, k, v, { softcap: 3.4028234663852886e38 }).output; // FLOAT32_MAX caps nothing here
  assertClose(
    capped,
    referenceAttention(
      { data: Float32Array.of(1, 1, 2, 2), shape: [2, 2] },
      { data: Float32Array.of(1, 2, 0, 1), shape: [2, 2] },
      { data: Float32Array.of(1, 2, 3, 4), shape: [2, 2] },
    ).output,
    { label: 'softcap FLOAT32_MAX' },
  );
});
