// Calls big enough to be split over threads (past the small-call threshold), shaped so that
// every split the kernels make is exercised: one head split by query rows (a row count that
// is no multiple of the 16- or 24-row task, causal both ways, a mask, key lengths), heads that do not
// divide by the thread count (rows again) and heads that do (whole heads per thread), matmul
// row blocks with a short last block, the layers end to end, and five training steps. Returns [name, Float32Array]
// pairs; the suite needs nothing but the API object (it runs in Node and in Chromium).
import { determinismSuite, generator } from './determinism-suite.js';

/** @param {object} attn the API from init() */
export function threadsSuite(attn, seed = 3) {
  const random = generator(seed);
  const t = (shape) => {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = random();
    return { data, shape };
  };
  const q1 = t([301, 40]),
    k1 = t([333, 40]),
    v1 = t([333, 36]);
  const mask1 = { data: Uint8Array.from({ length: 301 * 333 }, (_, i) => (i * 5) % 13 !== 0), shape: [301, 333] };
  const q3 = t([3, 130, 64]),
    k3 = t([3, 250, 64]),
    v3 = t([3, 250, 64]);
  const q8 = t([2, 4, 150, 32]),
    k8 = t([2, 4, 150, 32]),
    v8 = t([2, 4, 150, 32]);
  // dModel 128: each projection (194 x 128 x 128, 6.4 MFLOP) is past the 4.2-MFLOP threshold.
  const x = t([2, 97, 128]);
  const mha = new attn.MultiHeadAttention({ dModel: 128, numHeads: 4, seed: 11 });
  const layer = new attn.TransformerEncoderLayer({
    dModel: 128,
    numHeads: 4,
    dFF: 256,
    norm: 'pre',
    activation: 'gelu',
    seed: 12,
  });
  const model = new attn.TinyTransformer({
    vocabSize: 64,
    maxLen: 16,
    dModel: 64,
    numHeads: 4,
    numLayers: 2,
    seed: 13,
  });
  try {
    // Five training steps (batch 32 x 16, dModel and vocabulary 64: every linear layer's GEMM,
    // 512 x 64 x 64, is at the threshold and split).
    const tokens = Array.from({ length: 32 }, () =>
      Array.from({ length: 16 }, () => Math.floor((16 * (random() + 1)) / 2) % 16),
    );
    const batch = {
      tokens,
      targets: tokens.map((row) => row.slice().reverse()),
      lengths: tokens.map((_, b) => 16 - (b % 5)),
    };
    const losses = Float32Array.from({ length: 5 }, () => model.trainStep(batch, { lr: 1e-2 }).loss);
    const trained = Float32Array.from(Object.values(model.getWeights().tensors).flatMap((t) => t.data));
    return [
      [
        'one head split by rows, causal top-left, mask',
        attn.attention(q1, k1, v1, { causal: true, mask: mask1 }).output.data,
      ],
      [
        'one head split by rows, causal bottom-right',
        attn.attention(q1, k1, v1, { causal: true, causalAlign: 'bottom-right' }).output.data,
      ],
      ['three heads (rows), key lengths', attn.attention(q3, k3, v3, { keyLengths: [250, 17, 130] }).output.data],
      ['eight heads (whole heads per thread)', attn.attention(q8, k8, v8).output.data],
      ['matmul 301x200x150', attn.matmul(t([301, 200]), t([200, 150])).data],
      // Fewer rows than a tile: matrix-vector products, their panels shared among the threads.
      ['matmul 1x768x3000', attn.matmul(t([1, 768]), t([768, 3000])).data],
      ['matmul 3x700x1001', attn.matmul(t([3, 700]), t([700, 1001])).data],
      ['MultiHeadAttention forward', mha.forward(x, x, x, { causal: true }).output.data],
      ['encoder layer forward', layer.forward(x).data],
      ['TinyTransformer: five train steps, losses', losses],
      ['TinyTransformer: five train steps, weights', trained],
      ...determinismSuite(attn),
    ];
  } finally {
    mha.dispose();
    layer.dispose();
    model.dispose();
  }
}
