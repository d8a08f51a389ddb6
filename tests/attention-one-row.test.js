// One query row (a decode step) takes its own way through the fused kernel: it reads each
// tile's keys and each block's values where they lie, instead of packing the whole head
// first and running a tile of 4 or 6 rows for it (src/kernels/fused_attention.cc,
// InPlaceKeys). It must give the bits the same row gets inside a taller call (the tile
// path), and match the float64 reference: across key counts around the tile (8) and block
// (32) sizes, head sizes that are not multiples of 4, strided heads, masks, softcaps,
// windows, and NaN/Infinity in keys and values.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();
const random = rng(3407);
const ROWS = 5; // the taller call: one 4-row tile and a row alone (6-row tiles: one)

// Row i of a [..., L, d] tensor ('bhsd'), or of [B, L, H, d] ('bshd'), as a tensor of one row.
function row(t, i, layout = 'bhsd') {
  const shape = [...t.shape];
  if (layout === 'bshd') {
    const [B, L, H, d] = shape;
    const out = new Float32Array(B * H * d);
    for (let b = 0; b < B; b++) out.set(t.data.subarray((b * L + i) * H * d, (b * L + i + 1) * H * d), b * H * d);
    return { data: out, shape: [B, 1, H, d] };
  }
  const d = shape.at(-1),
    L = shape.at(-2),
    n = t.data.length / (L * d);
  const out = new Float32Array(n * d);
  for (let s = 0; s < n; s++) out.set(t.data.subarray((s * L + i) * d, (s * L + i + 1) * d), s * d);
  shape[shape.length - 2] = 1;
  return { data: out, shape };
}

// q [...heads, rows, hd] and k [...heads, T, hd] in [-2, 2], v [...heads, T, vd] in [-1, 1].
function randomQkv(heads, rows, T, hd, vd) {
  return {
    q: randomTensor(random, [...heads, rows, hd], -2, 2),
    k: randomTensor(random, [...heads, T, hd], -2, 2),
    v: randomTensor(random, [...heads, T, vd]),
  };
}

// Row i of a [L, T] mask (a boolean or additive one), as [1, T].
function maskRow(mask, i) {
  const T = mask.shape[1];
  return { data: mask.data.slice(i * T, (i + 1) * T), shape: [1, T] };
}

// Element by element, as bits: NaN equals NaN, −0 is not +0.
function assertSameBits(actual, expected, label) {
  assert.equal(actual.length, expected.length, `${label}: length`);
  const a = new Uint32Array(actual.buffer, actual.byteOffset, actual.length);
  const b = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) assert.fail(`${label}: element ${i} is ${actual[i]}, the tile path gave ${expected[i]}`);
  }
}

// Each row of the ROWS-row call against the same row alone, and both against float64.
function checkRows(q, k, v, options, refOptions, label, { mask, layout } = {}) {
  const full = attn.attention(q, k, v, { ...options, ...(mask && { mask }), ...(layout && { layout }) }).output;
  for (let i = 0; i < ROWS; i++) {
    const one = attn.attention(row(q, i, layout), k, v, {
      ...options,
      ...(mask && { mask: maskRow(mask, i) }),
      ...(layout && { layout }),
    }).output;
    assertSameBits(one.data, row(full, i, layout).data, `${label}, row ${i}`);
  }
  if (refOptions) {
    const ref = referenceAttention(q, k, v, {
      ...refOptions,
      ...(mask && { mask: { ...mask, boolean: mask.boolean } }),
    });
    assertClose(full, ref.output, { label: `${label} against float64` });
  }
  return full;
}

test('one row alone gives the bits it gets in a tile, around the tile and block sizes', () => {
  for (const T of [1, 3, 8, 9, 31, 32, 33, 70]) {
    for (const [hd, vd] of [
      [1, 1],
      [4, 4],
      [6, 3],
      [8, 5],
      [64, 64],
      [67, 66],
    ]) {
      const { q, k, v } = randomQkv([2, 2], ROWS, T, hd, vd);
      checkRows(q, k, v, {}, {}, `T ${T}, head ${hd}, value ${vd}`);
      checkRows(q, k, v, { scale: 0.3 }, { scale: 0.3 }, `T ${T}, head ${hd}, value ${vd}, scale 0.3`);
      checkRows(q, k, v, { softcap: 1.5 }, { softcap: 1.5 }, `T ${T}, head ${hd}, value ${vd}, softcap`);
    }
  }
});

test('a few rows alone (up to two tiles: read in place; more: packed) give the bits they get in a taller call', () => {
  const TALL = 13;
  for (const T of [1, 9, 33, 70]) {
    for (const [hd, vd] of [
      [8, 8],
      [6, 3],
      [64, 64],
    ]) {
      const { q, k, v } = randomQkv([1, 2], TALL, T, hd, vd);
      const additive = new Float32Array(TALL * T).map(() => (random(0, 1) < 0.2 ? -Infinity : random(-1, 1)));
      for (const options of [{}, { softcap: 1.5 }, { mask: { data: additive, shape: [TALL, T] } }]) {
        const full = attn.attention(q, k, v, options).output;
        for (const rows of [2, 3, 4, 5, 6, 7, 8, 9, 12]) {
          const part = (t) => ({
            data: Float32Array.from({ length: 2 * rows * t.shape[3] }, (_, i) => {
              const d = t.shape[3],
                h = Math.floor(i / (rows * d)),
                rest = i % (rows * d);
              return t.data[h * t.shape[2] * d + rest];
            }),
            shape: [1, 2, rows, t.shape[3]],
          });
          const mask = options.mask && { data: additive.slice(0, rows * T), shape: [rows, T] };
          const few = attn.attention(part(q), k, v, { ...options, ...(mask && { mask }) }).output;
          const label = `T ${T}, head ${hd}, value ${vd}, ${rows} rows, ${JSON.stringify(Object.keys(options))}`;
          assertSameBits(few.data, part(full).data, label);
        }
      }
    }
  }
});

test('one row alone: boolean and additive masks, a row that sees no key, strided heads (bshd)', () => {
  const T = 41,
    hd = 16,
    vd = 12;
  const { q, k, v } = randomQkv([1, 3], ROWS, T, hd, vd);
  const allowed = new Uint8Array(ROWS * T).map(() => (random(0, 1) < 0.6 ? 1 : 0));
  allowed.fill(0, 2 * T, 3 * T); // row 2 sees nothing: zeros
  const boolMask = { data: allowed, shape: [ROWS, T], boolean: true };
  const full = checkRows(q, k, v, {}, {}, 'boolean mask', { mask: boolMask });
  assert.deepEqual(Array.from(row(full, 2).data), new Array(3 * vd).fill(0), 'a row that sees no key is zeros');
  const additive = new Float32Array(ROWS * T).map(() => (random(0, 1) < 0.2 ? -Infinity : random(-3, 3)));
  checkRows(q, k, v, {}, {}, 'additive mask', { mask: { data: additive, shape: [ROWS, T] } });
  checkRows(q, k, v, { softcap: 2 }, { softcap: 2 }, 'additive mask and softcap', {
    mask: { data: additive, shape: [ROWS, T] },
  });
  // bshd: each head's rows are H · d floats apart, so one row reads strided keys and values.
  const qs = randomTensor(random, [2, ROWS, 3, hd]),
    ks = randomTensor(random, [2, T, 3, hd]),
    vs = randomTensor(random, [2, T, 3, vd]);
  checkRows(qs, ks, vs, {}, null, 'bshd', { layout: 'bshd' });
});

test('one row alone: NaN and Infinity in blocked keys and values never reach it; in visible ones they do', () => {
  const T = 20,
    hd = 8,
    vd = 8;
  const { q, k, v } = randomQkv([1, 1], ROWS, T, hd, vd);
  k.data[3 * hd + 1] = NaN; // key 3
  v.data[5 * vd + 2] = Infinity; // key 5's value
  v.data[17 * vd + 4] = NaN; // key 17's value
  const allowed = new Uint8Array(ROWS * T).fill(1);
  for (let i = 0; i < ROWS; i++) allowed[i * T + 3] = allowed[i * T + 5] = allowed[i * T + 17] = 0;
  allowed[4 * T + 17] = 1; // row 4 sees key 17's NaN value
  const mask = { data: allowed, shape: [ROWS, T], boolean: true };
  const full = attn.attention(q, k, v, { mask }).output;
  for (let i = 0; i < ROWS; i++) {
    const one = attn.attention(row(q, i), k, v, { mask: maskRow(mask, i) }).output;
    assertSameBits(one.data, row(full, i).data, `row ${i}`);
    const poisoned = one.data.filter((x) => Number.isNaN(x)).length;
    if (i < 4) assert.equal(poisoned, 0, `row ${i}: blocked NaN/Infinity never reach the output`);
    else assert.ok(Number.isNaN(one.data[4]), 'row 4: the visible NaN value reaches its column');
  }
  // Rows 0..3 against float64 with the blocked keys' poison removed (they must not matter).
  const clean = (t) => ({ data: t.data.map((x) => (Number.isFinite(x) ? x : 0)), shape: t.shape });
  const ref = referenceAttention(q, clean(k), clean(v), { mask });
  for (let i = 0; i < 4; i++) assertClose(row(full, i), row(ref.output, i), { label: `row ${i} against float64` });
});

test('one row alone: a blocked NaN value in any tile of a block stays out of it', () => {
  const T = 40,
    d = 4;
  for (const at of [0, 9, 18, 27, 31, 35]) {
    for (const poison of [NaN, Infinity, -Infinity]) {
      const q = randomTensor(random, [1, 1, ROWS, d]),
        k = randomTensor(random, [1, 1, T, d]),
        v = randomTensor(random, [1, 1, T, d]);
      v.data[at * d + 1] = poison;
      const allowed = new Uint8Array(ROWS * T).fill(1);
      for (let i = 0; i < ROWS; i++) allowed[i * T + at] = 0;
      const mask = { data: allowed, shape: [ROWS, T], boolean: true };
      const full = attn.attention(q, k, v, { mask }).output;
      for (let i = 0; i < ROWS; i++) {
        const one = attn.attention(row(q, i), k, v, { mask: maskRow(mask, i) }).output;
        assertSameBits(one.data, row(full, i).data, `${poison} at key ${at}, row ${i}`);
        assert.ok(one.data.every(Number.isFinite), `${poison} at key ${at}, row ${i}: finite`);
      }
      v.data[at * d + 1] = 0;
      assertClose(full, referenceAttention(q, k, v, { mask }).output, { label: `${poison} at key ${at}` });
    }
  }
});

test('a KV cache decoding token by token gives the full causal call’s rows bit for bit, windows too', () => {
  const L = 45,
    prompt = 6;
  const q = randomTensor(random, [1, 4, L, 16]),
    k = randomTensor(random, [1, 2, L, 16]),
    v = randomTensor(random, [1, 2, L, 16]);
  for (const window of [undefined, { left: 10, right: 0 }]) {
    const options = { causal: true, ...(window && { window }) };
    const full = attn.attention(q, k, v, { ...options, enableGqa: true }).output;
    const cache = new attn.KVCache({ batch: 1, kvHeads: 2, capacity: L, headDim: 16 });
    const slice = (t, i, n = 1) => {
      const [B, H, , d] = t.shape;
      const out = new Float32Array(B * H * n * d);
      for (let s = 0; s < B * H; s++) out.set(t.data.subarray((s * L + i) * d, (s * L + i + n) * d), s * n * d);
      return { data: out, shape: [B, H, n, d] };
    };
    cache.attend(slice(q, 0, prompt), slice(k, 0, prompt), slice(v, 0, prompt), options);
    for (let i = prompt; i < L; i++) {
      const r = cache.attend(slice(q, i), slice(k, i), slice(v, i), options);
      assertSameBits(r.output.data, slice(full, i).data, `token ${i}${window ? ', window' : ''}`);
    }
    cache.dispose();
  }
});
