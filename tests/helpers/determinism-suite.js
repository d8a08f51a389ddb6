// A fixed set of calls through every numeric path of the package (both attention paths with
// masks, causal rules, GQA; matmul; the layers; positional encodings, Eigen's solver), run
// the same way in Node and in Chromium. Inputs come from a seeded generator in plain JS, so
// the suite needs nothing but the API object. Returns [name, Float32Array] pairs.

/** mulberry32: a seeded generator of values in [-1, 1). */
export function generator(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return 2 * (((t ^ (t >>> 14)) >>> 0) / 4294967296) - 1;
  };
}

/** @param {object} attn the API from init() @param {number} seed */
export function determinismSuite(attn, seed = 1) {
  const random = generator(seed);
  const t = (shape) => {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = random();
    return { data, shape };
  };
  const q = t([2, 4, 37, 24]),
    k = t([2, 2, 70, 24]),
    v = t([2, 2, 70, 20]);
  const mask = { data: Uint8Array.from({ length: 37 * 70 }, (_, i) => (i * 7) % 11 !== 0), shape: [37, 70] };
  const additive = t([1, 70]);
  const x = t([2, 33, 32]);
  const mha = new attn.MultiHeadAttention({ dModel: 32, numHeads: 4, numKvHeads: 2, seed: 5 });
  const pre = new attn.TransformerEncoderLayer({
    dModel: 32,
    numHeads: 4,
    dFF: 64,
    norm: 'pre',
    activation: 'gelu',
    seed: 6,
  });
  const post = new attn.TransformerEncoderLayer({ dModel: 32, numHeads: 2, dFF: 48, seed: 7 });
  const ring = Array.from({ length: 12 }, (_, i) => [i, (i + 1) % 12]).concat([
    [0, 6],
    [3, 9],
  ]);
  try {
    return [
      [
        'attention fused, GQA, boolean mask, causal',
        attn.attention(q, k, v, { enableGqa: true, mask, causal: true, causalAlign: 'bottom-right' }).output.data,
      ],
      [
        'attention weights, GQA, additive mask',
        attn.attention(q, k, v, { enableGqa: true, mask: additive, returnWeights: true }).weights.data,
      ],
      [
        'attention fused, key lengths, scale',
        attn.attention(q, t([2, 4, 70, 24]), t([2, 4, 70, 20]), { keyLengths: [50, 9], scale: 0.3 }).output.data,
      ],
      ['matmul', attn.matmul(t([45, 31]), t([31, 29])).data],
      ['MultiHeadAttention', mha.forward(x, x, x, { causal: true, returnWeights: true }).output.data],
      ['encoder pre-norm, gelu', pre.forward(x, { keyLengths: [33, 20] }).data],
      ['encoder post-norm', post.forward(x).data],
      ['layerNorm', attn.layerNorm(t([9, 37])).data],
      ['feedForward gelu', attn.feedForward(t([5, 12]), { w1: t([12, 40]), w2: t([40, 12]), activation: 'gelu' }).data],
      ['sinusoidalEncoding', attn.sinusoidalEncoding(64, 30).data],
      ['applyRope', attn.applyRope(t([3, 17, 16]), { interleaved: true }).data],
      ['alibiBias', attn.alibiBias(12, 9, 14).data],
      ['laplacianEncoding', attn.laplacianEncoding({ numNodes: 12, edges: ring }, 4).data],
    ];
  } finally {
    mha.dispose();
    pre.dispose();
    post.dispose();
  }
}
