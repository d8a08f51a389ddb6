// Float64 reference for scaled dot-product attention, written independently of the
// package: plain loops over nested index math, the textbook formula, PyTorch's mask rules.
//   weights = softmax(q·kᵀ·scale + mask), output = weights·v
// Blocked keys (boolean false, additive -Infinity, causal, past the key length) get weight
// exactly 0 and never touch the output; a row with no visible key is all zeros; a row
// whose visible scores hold NaN or +Infinity is NaN.

const size = (shape) => shape.reduce((a, b) => a * b, 1);

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
 *   softcap c > 0: scaled scores become c·tanh(s / c) before the mask.
 * @returns { output, weights, scores, scaledScores, cappedScores, maskedScores } as
 *   { data: Float64Array, shape }
 */
export function referenceAttention(q, k, v, options = {}) {
  const Lq = q.shape.at(-2), dk = q.shape.at(-1), Lk = k.shape.at(-2), dv = v.shape.at(-1);
  const batch = broadcast(q.shape.slice(0, -2), k.shape.slice(0, -2), v.shape.slice(0, -2));
  const scale = options.scale ?? 1 / Math.sqrt(dk);
  const align = options.causalAlign;
  const offsetOf = (keyLength) => (typeof align === 'number' ? align : align === 'bottom-right' ? Lk - Lq : align === 'bottom-right-per-sequence' ? keyLength - Lq : 0);
  const cap = (s) => (options.softcap > 0 ? options.softcap * Math.tanh(s / options.softcap) : s);
  const wShape = [...batch, Lq, Lk];
  const oShape = [...batch, Lq, dv];
  const make = (shape) => ({ data: new Float64Array(size(shape)), shape });
  const res = { scores: make(wShape), scaledScores: make(wShape), cappedScores: make(wShape), maskedScores: make(wShape), weights: make(wShape), output: make(oShape) };
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
        let blocked = j >= keyLength || (options.causal && j > i + offset);
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
      for (let c = 0; c < dv; c++) {
        let o = 0;
        for (let j = 0; j < Lk; j++) if (visible[j]) o += w[j] * at(v, [...bi, j, c]);
        res.output.data[b * Lq * dv + i * dv + c] = o;
      }
    }
    b++;
  }
  return res;
}
