// Float64 reference for scaled dot-product attention, written independently of the
// package: plain loops over nested index math, the textbook formula, PyTorch's mask rules.
//   weights = softmax(q·kᵀ·scale + mask), output = weights·v
// Blocked keys (boolean false, additive -Infinity, causal, past the key length) get weight
// exactly 0 and never touch the output; a row with no visible key is all zeros; a row
// whose visible scores hold NaN or +Infinity is NaN.

const size = (shape) => shape.reduce((a, b) => a * b, 1);

// The dropout decision, written from its definition in src/dropout.h (the core's comment):
// bits = Mix32(RowKey(seed, entry, i) + j·0x9E3779B9), kept ⇔ (bits >> 8)·2⁻²⁴ >= fround(p),
// RowKey = Mix32(Mix32(Mix32(seed) ^ entry) ^ i), Mix32 the "lowbias32" hash.
function mix32(x) {
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** Whether dropout keeps weight (i, j) of batch entry `entry` (flattened batch index). */
export function dropoutKeeps(p, seed, entry, i, j) {
  const rowKey = mix32((mix32((mix32(seed >>> 0) ^ entry) >>> 0) ^ i) >>> 0);
  const bits = mix32((rowKey + Math.imul(j, 0x9e3779b9)) >>> 0);
  return (bits >>> 8) / 2 ** 24 >= Math.fround(p);
}

// Value of `t` ({ data, shape }) at `index`, where `index` is aligned on the right with
// t.shape and axes of size 1 broadcast.
function at(t, index) {
  let offset = 0;
  let stride = 1;
  for (let a = t.shape.length - 1, i = index.length - 1; a >= 0; a--, i--) {
    const idx = t.shape[a] === 1 ? 0 : index[i];
    offset += idx * stride;
    stride *= t.shape[a];
  }
  return t.data[offset];
}

/** Broadcast of several shapes (right-aligned). */
export function broadcast(...shapes) {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out = new Array(rank).fill(1);
  for (const s of shapes) {
    s.forEach((dim, i) => {
      const axis = rank - s.length + i;
      if (dim !== 1) out[axis] = dim;
    });
  }
  return out;
}

function* indices(shape) {
  const n = size(shape);
  const index = new Array(shape.length).fill(0);
  for (let f = 0; f < n; f++) {
    yield index.slice();
    for (let a = shape.length - 1; a >= 0; a--) {
      if (++index[a] < shape[a]) break;
      index[a] = 0;
    }
  }
}

/**
 * @param q { data, shape: [..., Lq, dk] }  k { ..., Lk, dk }  v { ..., Lk, dv }
 * @param options { mask?: { data, shape, boolean }, causal?, causalAlign?, scale?, softcap?,
 *   keyLengths? }; causalAlign: 'top-left', 'bottom-right', 'bottom-right-per-sequence' (the
 *   diagonal ends at each sequence's last key) or an integer offset (query i sees j <= i + n);
 *   softcap c > 0: scaled scores become c·tanh(s / c) before the mask; window { left, right }:
 *   query i (at key position i + the alignment's offset, causal or not) sees keys from
 *   position − left to position + right (a side left out: no limit); dropout { p, seed }:
 *   weights dropoutKeeps drops become 0, the others are divided by 1 − p.
 * @returns { output, weights, droppedWeights, scores, scaledScores, cappedScores,
 *   maskedScores } as { data: Float64Array, shape }
 */
export function referenceAttention(q, k, v, options = {}) {
  const Lq = q.shape.at(-2),
    dk = q.shape.at(-1),
    Lk = k.shape.at(-2),
    dv = v.shape.at(-1);
  const batch = broadcast(q.shape.slice(0, -2), k.shape.slice(0, -2), v.shape.slice(0, -2));
  const scale = options.scale ?? 1 / Math.sqrt(dk);
  const align = options.causalAlign;
  const offsetOf = (keyLength) =>
    typeof align === 'number'
      ? align
      : align === 'bottom-right'
        ? Lk - Lq
        : align === 'bottom-right-per-sequence'
          ? keyLength - Lq
          : 0;
  const cap = (s) => (options.softcap > 0 ? options.softcap * Math.tanh(s / options.softcap) : s);
  const wShape = [...batch, Lq, Lk];
  const oShape = [...batch, Lq, dv];
  const make = (shape) => ({ data: new Float64Array(size(shape)), shape });
  const res = {
    scores: make(wShape),
    scaledScores: make(wShape),
    cappedScores: make(wShape),
    maskedScores: make(wShape),
    weights: make(wShape),
    droppedWeights: make(wShape),
    output: make(oShape),
  };
  const left = options.window?.left ?? Infinity,
    right = options.window?.right ?? Infinity;
  const dropP = options.dropout?.p ?? 0;
  const keepFactor = (b, i, j) =>
    dropP === 0 ? 1 : dropoutKeeps(dropP, options.dropout.seed, b, i, j) ? 1 / (1 - Math.fround(dropP)) : 0;
  let b = 0;
  for (const bi of indices(batch)) {
    const keyLength = options.keyLengths ? options.keyLengths[batch.length ? bi[0] : 0] : Lk;
    const offset = offsetOf(keyLength);
    for (let i = 0; i < Lq; i++) {
      const row = b * Lq * Lk + i * Lk;
      const visible = [];
      for (let j = 0; j < Lk; j++) {
        let s = 0;
        for (let c = 0; c < dk; c++) s += at(q, [...bi, i, c]) * at(k, [...bi, j, c]);
        res.scores.data[row + j] = s;
        res.scaledScores.data[row + j] = s * scale;
        const capped = cap(s * scale);
        res.cappedScores.data[row + j] = capped;
        let blocked =
          j >= keyLength || (options.causal && j > i + offset) || j < i + offset - left || j > i + offset + right;
        let m = 0;
        if (options.mask) {
          const mv = at(options.mask, [...bi, i, j]);
          if (options.mask.boolean) blocked ||= !mv;
          else if (mv === -Infinity) blocked = true;
          else m = mv;
        }
        visible.push(!blocked);
        res.maskedScores.data[row + j] = blocked ? -Infinity : capped + m;
      }
      const x = Array.from({ length: Lk }, (_, j) => res.maskedScores.data[row + j]);
      const vis = x.filter((_, j) => visible[j]);
      let w;
      if (vis.length === 0) w = x.map(() => 0);
      else if (vis.some((s) => !(s < Infinity))) w = x.map(() => NaN);
      else {
        const max = Math.max(...vis);
        const e = x.map((s, j) => (visible[j] ? Math.exp(s - max) : 0));
        const sum = e.reduce((a, c) => a + c, 0);
        w = e.map((val) => val / sum);
      }
      for (let j = 0; j < Lk; j++) res.weights.data[row + j] = w[j];
      const dropped = w.map((x, j) => x * keepFactor(b, i, j));
      for (let j = 0; j < Lk; j++) res.droppedWeights.data[row + j] = dropped[j];
      for (let c = 0; c < dv; c++) {
        let o = 0;
        for (let j = 0; j < Lk; j++) if (visible[j] && dropped[j] !== 0) o += dropped[j] * at(v, [...bi, j, c]);
        res.output.data[b * Lq * dv + i * dv + c] = o;
      }
    }
    b++;
  }
  return res;
}
