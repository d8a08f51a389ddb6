// Flash-decoding (issue 47 item 3): a decode step (at most two tiles of query rows) over 2,048
// keys or more is split into ranges of 1,024 keys (2,048 or 4,096 while the call keeps 12
// tasks or more, from 24,576 and 49,152 keys of all its heads, and each head two ranges or
// more), each range of each head one
// task for the threads, and the ranges' unnormalised outputs merged in order (src/attention.cc,
// FusedSplitKeys, RangeKeys; src/kernels/fused_attention.cc, MergePartials). Checked against the
// float64 reference around the split's thresholds and boundaries, with causal bottom-right
// rows, per-sequence key lengths that leave whole ranges empty, a window that starts in a
// later range, an additive mask with a softcap (the exponent's other factor), NaN in one
// range's values; and the same bits at 1 and 2 threads.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();
const threaded = await init({ threads: 2 });
const random = rng(47);

// q [..., rows, hd] in [-2, 2] (peaked weights), k [..., T, hd] in [-2, 2], v [..., T, vd].
const qkv = (lead, rows, T, hd, vd = hd) => ({
  q: randomTensor(random, [...lead, rows, hd], -2, 2),
  k: randomTensor(random, [...lead, T, hd], -2, 2),
  v: randomTensor(random, [...lead, T, vd]),
});

function check(label, { q, k, v }, options) {
  const got = attn.attention(q, k, v, options).output;
  const want = referenceAttention(q, k, v, options).output;
  assertClose(got, want, { atol: 2e-5, rtol: 1e-4, label });
  const two = threaded.attention(q, k, v, options).output;
  assert.deepEqual(two.data, got.data, `${label}: 2 threads give 1 thread's bits`);
  return got;
}

test('decode rows over 2,047 to 5,000 keys (split from 2,048): the float64 reference, the same bits at 2 threads', () => {
  for (const T of [2047, 2048, 2049, 3073, 5000]) {
    // 7 rows: a grouped-query step taller than one tile (Qwen2.5-0.5B's 7 query heads a
    // key/value head), two tiles read in place.
    for (const rows of [1, 3, 7]) {
      for (const hd of [5, 64]) {
        const options = { causal: true, causalAlign: 'bottom-right' };
        check(`T ${T}, ${rows} rows, head_dim ${hd}`, qkv([2], rows, T, hd), options);
      }
    }
  }
});

test('key lengths leaving whole ranges empty, and a window starting in a later range', () => {
  const t = qkv([2, 2], 1, 4100, 16);
  check('key lengths [1500, 4100]', t, { keyLengths: [1500, 4100] });
  check('key lengths [1, 2049]', t, { keyLengths: [1, 2049] });
  check('window of 700 keys at the end', t, {
    causal: true,
    causalAlign: 'bottom-right',
    window: { left: 700, right: 0 },
  });
});

test('an additive mask blocking a whole range, with a softcap (the unfolded exponent)', () => {
  const T = 3000;
  const t = qkv([3], 2, T, 8);
  const mask = { data: new Float32Array(2 * T), shape: [2, T] };
  for (let j = 0; j < T; j++) mask.data[j] = mask.data[T + j] = j >= 1024 && j < 2048 ? -Infinity : random(-1, 1);
  check('mask and softcap 3', t, { mask, softcap: 3 });
  // A row seeing no key at all gets zeros, not NaN.
  const none = { data: new Float32Array(2 * T).fill(-Infinity), shape: [2, T] };
  const out = check('every key blocked', t, { mask: none });
  assert.ok(out.data.every((x) => x === 0));
});

test('NaN in one range of values reaches the column of the rows that see it, only those', () => {
  const T = 2500;
  const t = qkv([1], 1, T, 4);
  t.v.data[2100 * 4 + 1] = Number.NaN;
  const seen = attn.attention(t.q, t.k, t.v).output.data;
  assert.deepEqual(Array.from(seen, Number.isNaN), [false, true, false, false], 'its column of a row that sees it');
  const blind = attn.attention(t.q, t.k, t.v, { keyLengths: [2100] }).output.data;
  assert.ok(
    blind.every((x) => Number.isFinite(x)),
    'a row that does not see it',
  );
});

test('longer ranges for a call of many keys (2,048 from 24,576 keys of all heads, 4,096 from 49,152)', () => {
  // 3 heads of 8,200 keys: 24,600 in all, ranges of 2,048 (the last one 8 keys long); 6 heads
  // of 9,000: 54,000, ranges of 4,096 (the last one 808 long). Key lengths that end inside a
  // range and one that empties the last ranges, and a window that starts in the second range
  // (its 3,000 keys from 5,999: the first range of 4,096 sees none).
  const three = qkv([3], 3, 8200, 16);
  check('3 heads × 8,200 keys, 3 rows, causal', three, { causal: true, causalAlign: 'bottom-right' });
  check('3 heads × 8,200 keys, key lengths [8193, 5000, 2048]', three, { keyLengths: [8193, 5000, 2048] });
  const six = qkv([6], 1, 9000, 16);
  check('6 heads × 9,000 keys', six, {});
  check('6 heads × 9,000 keys, a window of 3,000 keys at the end', six, {
    causal: true,
    causalAlign: 'bottom-right',
    window: { left: 3000, right: 0 },
  });
});
