// layerNorm, feedForward, the encoder layer (pre and post norm), DynamicViT keep-masks and
// Deep Sets pooling, against float64 references and their defining properties.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { refLayerNorm, refFeedForward, refMultiHead, refAdd } from './helpers/reference-layers.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const attn = await init();

test('layerNorm matches (x - μ)/sqrt(σ² + eps)·γ + β over the last axis', () => {
  const random = rng(70);
  for (const d of [1, 3, 4, 7, 64, 65]) {
    const x = randomTensor(random, [2, 3, d], -4, 6);
    const gamma = randomTensor(random, [d]),
      beta = randomTensor(random, [d]);
    assertClose(attn.layerNorm(x, { gamma, beta }), refLayerNorm(x, gamma, beta), { atol: 2e-5, label: `d=${d}` });
    assertClose(attn.layerNorm(x, { eps: 0.1 }), refLayerNorm(x, null, null, 0.1), { atol: 2e-5, label: `d=${d} eps` });
  }
  const big = randomTensor(random, [4, 16], 1e4, 1e4 + 1); // large offset: two-pass variance
  assertClose(attn.layerNorm(big), refLayerNorm(big), { atol: 2e-2, label: 'offset 1e4' });
  assert.throws(
    () => attn.layerNorm([[1, 2]], { gamma: [1, 2, 3] }),
    (e) => e instanceof RangeError && /^layerNorm: gamma has shape \[3\] but must be \[2\]/.test(e.message),
  );
  assert.throws(() => attn.layerNorm([[1, 2]], { eps: -1 }), RangeError);
});

test('feedForward with relu and exact (erf) gelu', () => {
  const random = rng(71);
  for (const activation of ['relu', 'gelu']) {
    const x = randomTensor(random, [3, 5, 8], -2, 2);
    const weights = {
      w1: randomTensor(random, [8, 13]),
      b1: randomTensor(random, [13]),
      w2: randomTensor(random, [13, 8]),
      b2: randomTensor(random, [8]),
    };
    assertClose(attn.feedForward(x, { ...weights, activation }), refFeedForward(x, { ...weights, activation }), {
      atol: 2e-5,
      label: activation,
    });
  }
  assert.throws(
    () => attn.feedForward([[1, 2]], { w1: [[1], [2]], w2: [[1, 2]], activation: 'tanh' }),
    (e) => e instanceof RangeError && /activation must be 'relu' or 'gelu'/.test(e.message),
  );
  assert.throws(
    () => attn.feedForward([[1, 2]], { w1: [[1], [2]], w2: [[1, 2, 3]] }),
    (e) => e instanceof RangeError && /^feedForward: w2 has shape \[1, 3\] but must be \[1, 2\]/.test(e.message),
  );
});

test('TransformerEncoderLayer: post-norm and pre-norm match attention, residuals, norms and FFN', () => {
  const random = rng(72);
  for (const norm of ['post', 'pre'])
    for (const activation of ['relu', 'gelu']) {
      const layer = new attn.TransformerEncoderLayer({ dModel: 16, numHeads: 4, dFF: 24, norm, activation, seed: 5 });
      const w = Object.fromEntries(
        Object.entries(layer.getWeights()).map(([n, t]) => [n, randomTensor(random, t.shape, -0.5, 0.5)]),
      );
      layer.setWeights(w);
      const x = randomTensor(random, [2, 6, 16]);
      for (const options of [{}, { causal: true }, { keyLengths: [6, 3] }]) {
        const mha = (input) => refMultiHead(input, input, input, w, 4, 4, options).output;
        const ffn = (input) => refFeedForward(input, { w1: w.w1, b1: w.b1, w2: w.w2, b2: w.b2, activation });
        let expected;
        if (norm === 'post') {
          const x1 = refLayerNorm(refAdd(x, mha(x)), w.ln1Gamma, w.ln1Beta);
          expected = refLayerNorm(refAdd(x1, ffn(x1)), w.ln2Gamma, w.ln2Beta);
        } else {
          const x1 = refAdd(x, mha(refLayerNorm(x, w.ln1Gamma, w.ln1Beta)));
          expected = refAdd(x1, ffn(refLayerNorm(x1, w.ln2Gamma, w.ln2Beta)));
        }
        assertClose(layer.forward(x, options), expected, {
          atol: 5e-5,
          label: `${norm} ${activation} ${JSON.stringify(options)}`,
        });
      }
      layer.dispose();
    }
  const layer = new attn.TransformerEncoderLayer({ dModel: 8, numHeads: 2, dFF: 8 });
  assert.throws(
    () => layer.forward(randomTensor(random, [3, 7])),
    (e) =>
      e instanceof RangeError &&
      /^TransformerEncoderLayer\.forward: x has 7 features but this layer expects 8/.test(e.message),
  );
  assert.throws(
    () => layer.forward(randomTensor(random, [3, 8]), { keepMask: [1, 1, 1] }),
    (e) => e instanceof TypeError && /unknown option 'keepMask'/.test(e.message),
  );
  assert.throws(
    () => layer.setWeights({ w1: randomTensor(random, [8, 9]) }),
    (e) => e instanceof RangeError && /w1 has shape \[8, 9\] but this layer needs \[8, 8\]/.test(e.message),
  );
  layer.dispose();
  assert.throws(
    () => layer.forward(randomTensor(random, [3, 8])),
    /TransformerEncoderLayer\.forward: this object was disposed/,
  );
  assert.throws(
    () => new attn.TransformerEncoderLayer({ dModel: 16, numHeads: 4, dFF: 8, norm: 'middle' }),
    (e) => e instanceof RangeError && /norm must be 'pre' or 'post'/.test(e.message),
  );
  assert.throws(
    () => new attn.TransformerEncoderLayer({ dModel: 16, numHeads: 4 }),
    (e) => e instanceof TypeError && /dFF must be a number/.test(e.message),
  );
});

test('an encoder layer without positions is permutation equivariant', () => {
  const random = rng(73);
  const layer = new attn.TransformerEncoderLayer({ dModel: 8, numHeads: 2, dFF: 16, seed: 1 });
  const x = randomTensor(random, [5, 8]);
  const perm = [2, 4, 0, 1, 3];
  const permute = (t) => ({
    data: Float32Array.from(perm.flatMap((r) => Array.from(t.data.slice(r * 8, r * 8 + 8)))),
    shape: t.shape,
  });
  assertClose(layer.forward(permute(x)), permute(layer.forward(x)), { atol: 1e-5, label: 'equivariance' });
  layer.dispose();
});

test('DynamicViT keep-mask: G_ij = 1 if i = j else keep_j, and kept queries equal attention over kept tokens', () => {
  const random = rng(74);
  const L = 9,
    keep = [1, 0, 1, 1, 0, 0, 1, 1, 0];
  const kept = keep.flatMap((k, i) => (k ? [i] : []));
  const q = randomTensor(random, [L, 8]),
    k = randomTensor(random, [L, 8]),
    v = randomTensor(random, [L, 3]);
  const rows = (t, idx, w) => ({
    data: Float32Array.from(idx.flatMap((i) => Array.from(t.data.slice(i * w, i * w + w)))),
    shape: [idx.length, w],
  });
  const subset = referenceAttention(rows(q, kept, 8), rows(k, kept, 8), rows(v, kept, 3));
  for (const returnWeights of [false, true]) {
    const out = attn.attention(q, k, v, { keepMask: keep, returnWeights });
    assertClose(rows(out.output, kept, 3), subset.output, { label: `kept rows, weights=${returnWeights}` });
    if (returnWeights) {
      for (let i = 0; i < L; i++)
        for (let j = 0; j < L; j++) {
          if (i !== j && !keep[j]) assert.equal(out.weights.data[i * L + j], 0, `nobody attends to dropped ${j}`);
        }
      // A dropped token attends to the kept tokens and itself.
      const gMask = {
        data: Uint8Array.from({ length: L * L }, (_, f) => (Math.floor(f / L) === f % L || keep[f % L] ? 1 : 0)),
        shape: [L, L],
        boolean: true,
      };
      assertClose(out.weights, referenceAttention(q, k, v, { mask: gMask }).weights, { atol: 1e-6, label: 'G matrix' });
    }
  }
  // Batched keep-masks, combined with a causal-style boolean mask and with an additive one.
  const qb = randomTensor(random, [2, L, 4]);
  const keepB = { data: Uint8Array.from([...keep, ...keep.map((x) => 1 - x)]), shape: [2, L] };
  const lower = Array.from({ length: L }, (_, i) => Array.from({ length: L }, (_, j) => j <= i));
  const both = attn.attention(qb, qb, qb, { keepMask: keepB, mask: lower, returnWeights: true });
  for (let b = 0; b < 2; b++)
    for (let i = 0; i < L; i++)
      for (let j = 0; j < L; j++) {
        const allowed = j <= i && (i === j || keepB.data[b * L + j] === 1);
        if (!allowed) assert.equal(both.weights.data[(b * L + i) * L + j], 0);
      }
  const additive = randomTensor(random, [L, L]);
  const mixed = attn.attention(q, k, v, { keepMask: keep, mask: additive, returnWeights: true });
  const gAdd = {
    data: Float64Array.from(additive.data, (x, f) => (Math.floor(f / L) === f % L || keep[f % L] ? x : -Infinity)),
    shape: [L, L],
  };
  assertClose(mixed.weights, referenceAttention(q, k, v, { mask: gAdd }).weights, {
    atol: 1e-6,
    label: 'keep + additive',
  });
  assert.throws(
    () => attn.attention(q, randomTensor(random, [5, 8]), randomTensor(random, [5, 3]), { keepMask: [1, 1, 1, 1, 1] }),
    (e) => e instanceof RangeError && /keepMask needs self-attention/.test(e.message),
  );
  assert.throws(
    () => attn.attention(qb, qb, qb, { keepMask: { data: new Uint8Array(3 * L).fill(1), shape: [3, L] } }),
    (e) => e instanceof RangeError && /keepMask \[3, 9\] does not broadcast to the batch \[2\]/.test(e.message),
  );
  assert.throws(
    () => attn.attention(q, k, v, { keepMask: [1, 0, 2, 1, 0, 0, 1, 1, 0] }),
    (e) => e instanceof RangeError && /keepMask values must be 0 or 1/.test(e.message),
  );
});

test('Deep Sets pooling: sum, mean, max, and invariance to permuting the set', () => {
  const random = rng(75);
  const x = randomTensor(random, [3, 7, 5]);
  const perm = [6, 2, 0, 5, 1, 4, 3];
  const px = { data: new Float32Array(x.data.length), shape: x.shape };
  for (let s = 0; s < 3; s++)
    perm.forEach((src, i) => px.data.set(x.data.subarray((s * 7 + src) * 5, (s * 7 + src + 1) * 5), (s * 7 + i) * 5));
  for (const op of ['sum', 'mean', 'max']) {
    const expected = new Float64Array(15);
    for (let s = 0; s < 3; s++)
      for (let c = 0; c < 5; c++) {
        const values = Array.from({ length: 7 }, (_, i) => x.data[(s * 7 + i) * 5 + c]);
        const sum = values.reduce((a, b) => a + b, 0);
        expected[s * 5 + c] = op === 'sum' ? sum : op === 'mean' ? sum / 7 : Math.max(...values);
      }
    const pooled = attn.setPool(x, op);
    assertClose(pooled, { data: expected, shape: [3, 5] }, { atol: 1e-6, label: op });
    assertClose(attn.setPool(px, op), pooled, { atol: 1e-6, label: `${op} invariance` });
  }
  assert.throws(
    () => attn.setPool(x, 'median'),
    (e) => e instanceof RangeError && /^setPool: op must be/.test(e.message),
  );
  assert.throws(
    () => attn.setPool({ data: new Float32Array(0), shape: [0, 3] }, 'max'),
    (e) => e instanceof RangeError && /empty set/.test(e.message),
  );
});

test('feedForward: ReLU keeps a NaN row NaN wherever it sits (SIMD body and scalar tail alike)', async () => {
  const api = await init();
  const o = { w1: [[0.44921875]], w2: [[0.26171875]] };
  const x = [[NaN], [-3.25], [-1], [0], [-2.6875], [2]]; // NaN in the 4-lane body, the rest around it
  const out = Array.from(api.feedForward(x, o).data);
  assert.ok(Number.isNaN(out[0]), `row 0 is ${out[0]}`);
  assert.deepEqual(out.slice(1, 5), [0, 0, 0, 0]);
  assert.ok(Math.abs(out[5] - 2 * 0.44921875 * 0.26171875) < 1e-7);
  assert.ok(Number.isNaN(api.feedForward([[1], [2], [3], [4], [NaN]], o).data[4]), 'NaN in the scalar tail');
});
