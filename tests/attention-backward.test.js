// attn.attentionBackward against a float64 reference written here from the definitions, and
// the reference itself against central finite differences of the float64 forward (so the
// closed form is checked, not assumed): dq, dk, dv for masks, both causal alignments, key
// lengths, scale, rows that see no key, NaN values behind blocked keys; typed errors; no leak;
// memory without an Lq × Lk buffer.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { generator as random } from './helpers/determinism-suite.js';

const attn = await init({ simd: 'baseline' });

const tensor = (rnd, shape) => ({ data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, rnd), shape });

// Which keys row i of entry b sees, and its additive mask (float64), as the forward defines.
function visibility({ seqQ, seqK, causal, align, keyLengths, mask }, b, i) {
  const limit = keyLengths ? keyLengths[b] : seqK;
  const offset = align === 'bottom-right' ? seqK - seqQ : 0;
  return Array.from({ length: seqK }, (_, j) => {
    if (j >= limit || (causal && j > i + offset)) return -Infinity;
    return mask ? mask[i * seqK + j] : 0;
  });
}

// Float64 forward of one entry: out [seqQ, dv] and P [seqQ, seqK].
function forward(c, q, k, v, b) {
  const { seqQ, seqK, dk, dv, scale } = c;
  const P = [],
    out = [];
  for (let i = 0; i < seqQ; i++) {
    const m = visibility(c, b, i);
    const s = m.map((add, j) =>
      add === -Infinity
        ? -Infinity
        : scale * q.slice(i * dk, (i + 1) * dk).reduce((acc, x, t) => acc + x * k[j * dk + t], 0) + add,
    );
    const max = Math.max(...s);
    const e = s.map((x) => (max === -Infinity ? 0 : Math.exp(x - max)));
    const sum = e.reduce((a, x) => a + x, 0);
    const p = e.map((x) => (sum > 0 ? x / sum : 0));
    P.push(p);
    out.push(
      Array.from({ length: dv }, (_, col) => p.reduce((acc, pj, j) => acc + (pj === 0 ? 0 : pj * v[j * dv + col]), 0)),
    );
  }
  return { P, out };
}

// Float64 backward of one entry from the definitions: dS = P ∘ (dO·vᵀ − rowsum(dO ∘ O)).
function backward(c, q, k, v, dO, b) {
  const { seqQ, seqK, dk, dv, scale } = c;
  const { P, out } = forward(c, q, k, v, b);
  const dq = new Float64Array(seqQ * dk),
    dkk = new Float64Array(seqK * dk),
    dvv = new Float64Array(seqK * dv);
  for (let i = 0; i < seqQ; i++) {
    const D = out[i].reduce((acc, o, col) => acc + o * dO[i * dv + col], 0);
    for (let j = 0; j < seqK; j++) {
      const p = P[i][j];
      if (p === 0) continue;
      const dP = Array.from({ length: dv }, (_, col) => dO[i * dv + col] * v[j * dv + col]).reduce((a, x) => a + x, 0);
      const dS = p * (dP - D) * scale;
      for (let t = 0; t < dk; t++) {
        dq[i * dk + t] += dS * k[j * dk + t];
        dkk[j * dk + t] += dS * q[i * dk + t];
      }
      for (let col = 0; col < dv; col++) dvv[j * dv + col] += p * dO[i * dv + col];
    }
  }
  return { dq, dk: dkk, dv: dvv };
}

// Runs a case through the library and the reference, entry by entry; largest error relative
// to the gradient's scale.
function compare(c, seed) {
  const rnd = random(seed);
  const lead = c.lead ?? [];
  const q = tensor(rnd, [...lead, c.seqQ, c.dk]),
    k = tensor(rnd, [...lead, c.seqK, c.dk]);
  const v = tensor(rnd, [...lead, c.seqK, c.dv]),
    dOut = tensor(rnd, [...lead, c.seqQ, c.dv]);
  const options = { causal: c.causal, causalAlign: c.align, keyLengths: c.keyLengths, scale: c.scale };
  if (c.mask) options.mask = { data: Float32Array.from(c.mask), shape: [c.seqQ, c.seqK] };
  const got = attn.attentionBackward(q, k, v, dOut, options);
  const count = lead.reduce((a, b) => a + b, 1);
  const cc = { ...c, scale: c.scale ?? 1 / Math.sqrt(c.dk) };
  let worst = 0;
  for (let b = 0; b < count; b++) {
    const part = (t, rows, cols) => Array.from(t.data.subarray(b * rows * cols, (b + 1) * rows * cols));
    const ref = backward(
      cc,
      part(q, c.seqQ, c.dk),
      part(k, c.seqK, c.dk),
      part(v, c.seqK, c.dv),
      part(dOut, c.seqQ, c.dv),
      b,
    );
    for (const [name, rows, cols] of [
      ['dq', c.seqQ, c.dk],
      ['dk', c.seqK, c.dk],
      ['dv', c.seqK, c.dv],
    ]) {
      const mine = part(got[name], rows, cols);
      const expected = ref[name];
      const norm = Math.max(1e-3, ...Array.from(expected, Math.abs));
      mine.forEach((x, i) => {
        assert.ok(Number.isFinite(x), `${name}[${i}] is ${x}`);
        worst = Math.max(worst, Math.abs(x - expected[i]) / norm);
      });
    }
  }
  return worst;
}

test('matches the float64 gradients over a sweep of shapes, masks, causal rules and key lengths', () => {
  let worst = 0,
    cases = 0;
  for (const [seqQ, seqK] of [
    [1, 1],
    [1, 5],
    [3, 3],
    [4, 7],
    [7, 4],
    [9, 9],
  ]) {
    for (const [dk, dv] of [
      [1, 1],
      [3, 2],
      [8, 5],
    ]) {
      for (const variant of ['plain', 'causal', 'bottom-right', 'mask', 'lengths']) {
        const c = { seqQ, seqK, dk, dv, lead: [2] };
        if (variant === 'causal') c.causal = true;
        if (variant === 'bottom-right') Object.assign(c, { causal: true, align: 'bottom-right' });
        if (variant === 'mask')
          c.mask = Array.from({ length: seqQ * seqK }, (_, f) => ((f * 7) % 5 === 0 ? -Infinity : ((f % 3) - 1) * 0.5));
        if (variant === 'lengths') Object.assign(c, { keyLengths: [seqK, Math.max(0, seqK - 2)], scale: 0.7 });
        worst = Math.max(worst, compare(c, 13 * seqQ + 7 * seqK + dk + cases));
        cases++;
      }
    }
  }
  assert.ok(worst < 2e-5, `largest relative error ${worst} over ${cases} cases`);
});

test('the float64 reference agrees with central finite differences of the forward (so the check is not circular)', () => {
  const c = {
    seqQ: 3,
    seqK: 4,
    dk: 3,
    dv: 2,
    scale: 0.8,
    causal: true,
    align: 'bottom-right',
    mask: [0, -Infinity, 0.3, 0, -0.2, 0, 0, 0.1, 0, 0, -0.4, 0],
  };
  const rnd = random(99);
  const arr = (n) => Array.from({ length: n }, rnd);
  const q = arr(9),
    k = arr(12),
    v = arr(8),
    dO = arr(6);
  const loss = (qq, kk, vv) =>
    forward(c, qq, kk, vv, 0)
      .out.flat()
      .reduce((acc, o, i) => acc + o * dO[i], 0);
  const ref = backward(c, q, k, v, dO, 0);
  const h = 1e-6;
  for (const [name, x, grad] of [
    ['q', q, ref.dq],
    ['k', k, ref.dk],
    ['v', v, ref.dv],
  ]) {
    x.forEach((value, i) => {
      const plus = x.slice(),
        minus = x.slice();
      plus[i] = value + h;
      minus[i] = value - h;
      const args = (arr2) => (name === 'q' ? [arr2, k, v] : name === 'k' ? [q, arr2, v] : [q, k, arr2]);
      const numeric = (loss(...args(plus)) - loss(...args(minus))) / (2 * h);
      assert.ok(
        Math.abs(numeric - grad[i]) < 1e-7 + 1e-6 * Math.abs(numeric),
        `d${name}[${i}]: finite difference ${numeric}, closed form ${grad[i]}`,
      );
    });
  }
  // And the library agrees with the finite differences in float32 (relative error < 1e-3).
  const got = attn.attentionBackward(
    { data: Float32Array.from(q), shape: [3, 3] },
    { data: Float32Array.from(k), shape: [4, 3] },
    { data: Float32Array.from(v), shape: [4, 2] },
    { data: Float32Array.from(dO), shape: [3, 2] },
    { causal: true, causalAlign: 'bottom-right', scale: 0.8, mask: { data: Float32Array.from(c.mask), shape: [3, 4] } },
  );
  for (const [name, grad] of [
    ['dq', ref.dq],
    ['dk', ref.dk],
    ['dv', ref.dv],
  ]) {
    const norm = Math.max(...Array.from(grad, Math.abs));
    got[name].data.forEach((x, i) =>
      assert.ok(Math.abs(x - grad[i]) < 1e-3 * norm, `${name}[${i}] ${x} vs ${grad[i]}`),
    );
  }
});

test('a row that sees no key gets zero gradients, and NaN behind blocked keys never leaks', () => {
  const q = [
    [1, 2],
    [0.5, -1],
  ];
  const k = [
    [1, 0],
    [0, 1],
    [1, 1],
  ];
  const v = [
    [1, 2],
    [3, 4],
    [Number.NaN, Number.NaN],
  ]; // the third key is padding
  const dOut = [
    [1, -1],
    [0.5, 2],
  ];
  const mask = [
    [false, false, false],
    [true, true, false],
  ]; // the first row sees nothing
  const r = attn.attentionBackward(q, k, v, dOut, { mask, keyLengths: 2 });
  assert.deepEqual(Array.from(r.dq.data.subarray(0, 2)), [0, 0]);
  for (const t of [r.dq, r.dk, r.dv]) for (const x of t.data) assert.ok(Number.isFinite(x), `${x}`);
  assert.deepEqual(Array.from(r.dk.data.subarray(4)), [0, 0], 'the padding key gets no gradient');
});

test('bad input: typed errors naming attentionBackward and the tensor; the heap does not leak', () => {
  const before = attn.memory().inUseBytes;
  const q = [[1, 2]],
    k = [
      [1, 0],
      [0, 1],
    ],
    v = [[1], [2]];
  assert.throws(
    () => attn.attentionBackward(q, k, v, [[1, 2]]),
    (e) => e instanceof RangeError && /^attentionBackward: dOut must have shape \[1, 1\]/.test(e.message),
  );
  assert.throws(
    () => attn.attentionBackward([[[1, 2]]], k, v, [[[1]]]),
    (e) => e instanceof RangeError && /^attentionBackward: k has leading dims \[\] but q has \[1\]/.test(e.message),
  );
  assert.throws(
    () => attn.attentionBackward(q, [[1]], v, [[1]]),
    (e) => e instanceof RangeError && /k has 1 columns but q has 2/.test(e.message),
  );
  assert.throws(
    () => attn.attentionBackward(q, k, v, 'x'),
    (e) => e instanceof TypeError && /^attentionBackward: dOut/.test(e.message),
  );
  assert.throws(
    () => attn.attentionBackward(q, k, v, [[1]], { dropout: 0.1 }),
    (e) => e instanceof TypeError && /^attentionBackward: options\.dropout must be an object/.test(e.message),
  );
  assert.throws(
    () => attn.attentionBackward(q, k, v, [[1]], { dropoutP: 0.1 }),
    (e) => e instanceof TypeError && /unknown option 'dropoutP'/.test(e.message),
  );
  assert.throws(
    () => attn.attentionBackward(q, k, v, [[1]], { scale: Number.NaN }),
    (e) => e instanceof RangeError && /options\.scale must be finite/.test(e.message),
  );
  for (let i = 0; i < 200; i++) attn.attentionBackward(q, k, v, [[1]], { causal: i % 2 === 0 });
  assert.equal(attn.memory().inUseBytes, before);
});

test('N = 4096: no Lq × Lk buffer (the heap high-water mark rises by the tensors only)', async (t) => {
  const fresh = await init({
    wasmBinary: (await import('node:fs')).readFileSync(new URL('../dist/attention.wasm', import.meta.url)),
  });
  const n = 4096,
    d = 64;
  const rnd = random(5);
  const x = () => tensor(rnd, [n, d]);
  const before = fresh.memory().peakBytes;
  const started = performance.now();
  const r = fresh.attentionBackward(x(), x(), x(), x(), { causal: true });
  const seconds = (performance.now() - started) / 1000;
  const rise = fresh.memory().peakBytes - before;
  const tensors = 7 * n * d * 4; // q, k, v, dOut in; dq, dk, dv out
  t.diagnostic(
    `N = ${n}, d = ${d}, causal: heap high-water mark rose ${(rise / 2 ** 20).toFixed(2)} MiB for ${(tensors / 2 ** 20).toFixed(2)} MiB of tensors (an N×N matrix alone: ${((n * n * 4) / 2 ** 20).toFixed(0)} MiB); ${seconds.toFixed(2)} s, scalar code`,
  );
  assert.ok(rise < tensors + 64 * 1024, `rose ${rise} bytes`);
  assert.ok(r.dq.data.every(Number.isFinite));
});

test('attentionBackward with enableGqa: dk, dv are the sums over each group of query heads (= repeating k, v per head), with masks and causal', () => {
  const rnd = random(77);
  for (const [B, hq, hk, Lq, Lk, d] of [
    [2, 4, 2, 5, 7, 3],
    [1, 6, 3, 4, 4, 8],
    [1, 3, 1, 9, 6, 5],
    [2, 2, 2, 3, 3, 4],
  ]) {
    const group = hq / hk;
    const q = tensor(rnd, [B, hq, Lq, d]),
      k = tensor(rnd, [B, hk, Lk, d]),
      v = tensor(rnd, [B, hk, Lk, d]);
    const dOut = tensor(rnd, [B, hq, Lq, d]);
    const options = {
      causal: Lq <= Lk,
      causalAlign: 'bottom-right',
      keyLengths: Array.from({ length: B }, (_, b) => Lk - b),
    };
    const got = attn.attentionBackward(q, k, v, dOut, { ...options, enableGqa: true });
    // The reference: k and v repeated to q's heads, the plain backward, then summed per group.
    const repeat = (t) => {
      const out = new Float32Array(B * hq * Lk * d);
      for (let b = 0; b < B; b++)
        for (let h = 0; h < hq; h++) {
          const from = (b * hk + Math.floor(h / group)) * Lk * d;
          out.set(t.data.subarray(from, from + Lk * d), (b * hq + h) * Lk * d);
        }
      return { data: out, shape: [B, hq, Lk, d] };
    };
    const full = attn.attentionBackward(q, repeat(k), repeat(v), dOut, options);
    assert.deepEqual(Array.from(got.dq.data), Array.from(full.dq.data), "dq is the plain backward's");
    for (const name of ['dk', 'dv']) {
      const want = new Float64Array(B * hk * Lk * d);
      for (let b = 0; b < B; b++)
        for (let h = 0; h < hq; h++) {
          const to = (b * hk + Math.floor(h / group)) * Lk * d,
            from = (b * hq + h) * Lk * d;
          for (let i = 0; i < Lk * d; i++) want[to + i] += full[name].data[from + i];
        }
      assert.deepEqual(got[name].shape, [B, hk, Lk, d]);
      got[name].data.forEach((x, i) =>
        assert.ok(
          Math.abs(x - want[i]) <= 1e-6 * (1 + Math.abs(want[i])),
          `${name}[${i}] ${x} vs ${want[i]} (B ${B}, heads ${hq}/${hk})`,
        ),
      );
    }
  }
  assert.throws(
    () =>
      attn.attentionBackward(
        tensor(rnd, [3, 2, 2]),
        tensor(rnd, [2, 2, 2]),
        tensor(rnd, [2, 2, 2]),
        tensor(rnd, [3, 2, 2]),
        { enableGqa: true },
      ),
    (e) =>
      e instanceof RangeError &&
      /^attentionBackward: enableGqa: k's leading dims \[2\] must be q's \[3\]/.test(e.message),
  );
  assert.throws(
    () =>
      attn.attentionBackward(
        tensor(rnd, [4, 2, 2]),
        tensor(rnd, [2, 2, 2]),
        tensor(rnd, [2, 2, 2]),
        tensor(rnd, [4, 2, 2]),
      ),
    (e) => e instanceof RangeError && /grouped heads need enableGqa/.test(e.message),
  );
});
