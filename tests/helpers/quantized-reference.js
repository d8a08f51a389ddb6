// Q8_0 / Q4_0 written from their definitions (ggml's quantize_row_q8_0_ref and
// quantize_row_q4_0_ref, GGUF's block layouts) and from src/kernels/quantized.h's product,
// with every float32 operation rounded as C does (Math.fround), so results compare bit for
// bit. Independent of the C++: float16 by arithmetic, not bit tricks.
const f = Math.fround;

// The float16 nearest to a float32 value (ties to even), as a number; ±Infinity past 65504.
export function roundToHalf(v) {
  if (!Number.isFinite(v) || v === 0) return v;
  const a = Math.abs(v);
  if (a >= 65520) return Math.sign(v) * Infinity;
  const exponent = Math.max(-14, Math.floor(Math.log2(a)));
  const ulp = 2 ** (exponent - 10); // subnormals: 2^-24
  return Math.sign(v) * roundHalfEven(a / ulp) * ulp;
}

// The bits of a float16 value (for GGUF blocks).
export function halfBits(h) {
  if (Number.isNaN(h)) return 0x7e00;
  const sign = h < 0 || Object.is(h, -0) ? 0x8000 : 0;
  const a = Math.abs(h);
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | (a / 2 ** -24);
  const e = Math.floor(Math.log2(a));
  return sign | ((e + 15) << 10) | ((a / 2 ** e - 1) * 1024);
}

export function roundHalfEven(x) {
  const r = Math.round(x); // ties toward +∞
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
const roundAwayFromZero = (x) => Math.sign(x) * Math.round(Math.abs(x)); // C's roundf

// One block of 32 float32 weights → { d (the float16 scale's value), codes: Int8Array or
// nibbles 0..15 in element order }.
export function quantizeBlock(x, storage) {
  if (storage === 'q8_0') {
    let amax = 0;
    for (const v of x) amax = Math.max(amax, Math.abs(v));
    const d = f(amax / 127);
    const id = d !== 0 ? f(1 / d) : 0;
    return { d: roundToHalf(d), codes: Int8Array.from(x, (v) => roundAwayFromZero(f(v * id))) };
  }
  let amax = 0,
    max = 0;
  for (const v of x)
    if (amax < Math.abs(v)) {
      amax = Math.abs(v);
      max = v;
    }
  const d = f(max / -8);
  const id = d !== 0 ? f(1 / d) : 0;
  return { d: roundToHalf(d), codes: Int8Array.from(x, (v) => Math.min(15, Math.trunc(f(f(v * id) + 8.5)))) };
}

// Every block of a [inner, cols] float32 matrix (rows of 32 along inner, zero-padded):
// blocks[c][b] = { d, codes }.
export function quantizeMatrix(w, inner, cols, storage) {
  const blocks = Math.ceil(inner / 32);
  return Array.from({ length: cols }, (_, c) =>
    Array.from({ length: blocks }, (_, b) =>
      quantizeBlock(
        Float32Array.from({ length: 32 }, (_, j) => (b * 32 + j < inner ? w[(b * 32 + j) * cols + c] : 0)),
        storage,
      ),
    ),
  );
}

// Row r of a ([rows, inner]) times a column of weights (weight(p): its weight p, dequantized)
// in float64, and the bound the activations' int8 codes allow around it: each activation moves
// by at most half a code, d_a / 2 = max|a_block| / 254.   → { exact, bound }
export function codesBound(a, inner, r, weight) {
  let exact = 0,
    bound = 0;
  for (let b = 0; b < inner / 32; b++) {
    let amax = 0,
      wsum = 0;
    for (let j = 0; j < 32; j++) {
      const p = b * 32 + j,
        wv = weight(p);
      exact += a[r * inner + p] * wv;
      amax = Math.max(amax, Math.abs(a[r * inner + p]));
      wsum += Math.abs(wv);
    }
    bound += (amax / 254) * wsum;
  }
  return { exact, bound };
}

// The weight a block holds at j.
export const dequantized = (block, j, storage) => block.d * (storage === 'q8_0' ? block.codes[j] : block.codes[j] - 8);

// GGUF's bytes for a matrix's blocks: per column (a GGUF row), per block, the float16 scale
// (little-endian) then the codes (Q4_0: byte j = element j | element j + 16 << 4).
export function ggufBytes(blocks, storage) {
  const size = storage === 'q8_0' ? 34 : 18;
  const out = new Uint8Array(blocks.length * blocks[0].length * size);
  let at = 0;
  for (const column of blocks)
    for (const { d, codes } of column) {
      const bits = halfBits(d);
      out[at] = bits & 0xff;
      out[at + 1] = bits >> 8;
      if (storage === 'q8_0') for (let j = 0; j < 32; j++) out[at + 2 + j] = codes[j] & 0xff;
      else for (let j = 0; j < 16; j++) out[at + 2 + j] = codes[j] | (codes[j + 16] << 4);
      at += size;
    }
  return out;
}

// One row of activations → per block { d, codes } with d = max|a| / 127, codes rounded to
// nearest even (quantized.h).
function codeActivations(row, inner) {
  return Array.from({ length: Math.ceil(inner / 32) }, (_, b) => {
    let amax = 0;
    for (let j = b * 32; j < Math.min(inner, b * 32 + 32); j++) amax = Math.max(amax, Math.abs(row[j]));
    const d = f(amax / 127);
    const id = d > 0 ? f(1 / d) : 0;
    const codes = Array.from({ length: 32 }, (_, j) =>
      b * 32 + j < inner ? Math.max(-127, Math.min(127, roundHalfEven(f(row[b * 32 + j] * id)))) : 0,
    );
    return { d, codes };
  });
}

// acc + one block's terms as quantized.h defines them, every float32 operation rounded:
// Q8_0, Q4_0 (d_w · d_a) · Σ q_w·q_a; Q4_K (s·d_a)·Σ q·q_a − m·(d_a·Σ q_a); Q6_K a term
// (s_h·d_a)·Σ_h for each half of 16 weights.   w: the weights' block   codes, d: the activations'
function addBlock(acc, w, codes, d, storage) {
  const dot = (from, to, code) => {
    let sum = 0;
    for (let j = from; j < to; j++) sum += code(j) * codes[j];
    return sum;
  };
  if (storage === 'q8_0') return f(acc + f(f(w.d * d) * dot(0, 32, (j) => w.codes[j])));
  if (storage === 'q4_0') return f(acc + f(f(w.d * d) * dot(0, 32, (j) => w.codes[j] - 8)));
  if (storage === 'q4_k') {
    const sum = codes.reduce((x, y) => x + y, 0);
    acc = f(acc + f(f(w.s * d) * dot(0, 32, (j) => w.codes[j])));
    return f(acc - f(w.m * f(d * sum)));
  }
  acc = f(acc + f(f(w.s0 * d) * dot(0, 16, (j) => w.codes[j])));
  return f(acc + f(f(w.s1 * d) * dot(16, 32, (j) => w.codes[j])));
}

// out = a·W + bias as quantized.h defines it: per block addBlock, summed in block order in
// float32, then the bias. blocks[c][b]: quantizeMatrix's (Q8_0, Q4_0) or kQuantRow's (Q4_K,
// Q6_K).   a: [rows, inner]   out: Float32Array [rows, cols]
export function multiplyQuantized(a, rows, inner, blocks, storage, bias, cols) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const act = codeActivations(a.subarray(r * inner, (r + 1) * inner), inner);
    for (let c = 0; c < cols; c++) {
      let acc = 0;
      act.forEach(({ d, codes }, b) => (acc = addBlock(acc, blocks[c][b], codes, d, storage)));
      out[r * cols + c] = bias ? f(acc + bias[c]) : acc;
    }
  }
  return out;
}

// A float16's value from its bits (arithmetic: sign, exponent, mantissa).
export function halfValue(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 31,
    mantissa = bits & 1023;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

const halfAt = (bytes, at) => halfValue(bytes[at] | (bytes[at + 1] << 8));

// The K-quants, from ggml-common.h's structs, element by element: a GGUF row of `inner`
// weights → per block of 32 { s, m, codes } (Q4_K: w = s·q − m, codes the nibbles) or
// { s0, s1, codes } (Q6_K: w = s_h·(q − 32) for the half h of 16, codes q − 32), with s, m, s_h
// the float32 products of the super-block's float16 and the sub-block's integer scale (exact).
//   Q4_K (144 bytes / 256): d, dmin, scales[12] (6-bit scale and min of 8 sub-blocks), qs[128]:
//     element e is nibble (e mod 64 < 32 ? low : high) of qs[32·⌊e/64⌋ + e mod 32]
//   Q6_K (210 bytes / 256): ql[128], qh[64], scales[16] (int8), d: element e = 128n + 32t + l
//     has low 4 bits nibble ⌊t/2⌋ of ql[64n + 32(t mod 2) + l], high 2 bits (qh[32n + l] >> 2t) & 3,
//     and scale scales[⌊e/16⌋]
function scaleAndMin(scales, i) {
  if (i < 4) return [scales[i] & 63, scales[i + 4] & 63];
  return [(scales[i + 4] & 15) | ((scales[i - 4] >> 6) << 4), (scales[i + 4] >> 4) | ((scales[i] >> 6) << 4)];
}

export function kQuantRow(bytes, inner, type) {
  const blocks = [];
  for (let sb = 0; sb < inner / 256; sb++) {
    if (type === 'q4_k') {
      const at = sb * 144;
      const d = halfAt(bytes, at),
        dmin = halfAt(bytes, at + 2);
      const scales = bytes.subarray(at + 4, at + 16),
        qs = bytes.subarray(at + 16, at + 144);
      for (let i = 0; i < 8; i++) {
        const [sc, mn] = scaleAndMin(scales, i);
        const codes = Array.from({ length: 32 }, (_, k) => {
          const e = 32 * i + k;
          const byte = qs[32 * Math.floor(e / 64) + (e % 32)];
          return e % 64 < 32 ? byte & 15 : byte >> 4;
        });
        blocks.push({ s: f(d * sc), m: f(dmin * mn), codes });
      }
    } else {
      const at = sb * 210;
      const ql = bytes.subarray(at, at + 128),
        qh = bytes.subarray(at + 128, at + 192);
      const scales = new Int8Array(bytes.buffer, bytes.byteOffset + at + 192, 16);
      const d = halfAt(bytes, at + 208);
      const code = (e) => {
        const n = Math.floor(e / 128),
          t = Math.floor((e % 128) / 32),
          l = e % 32;
        const low = (ql[64 * n + 32 * (t % 2) + l] >> (4 * Math.floor(t / 2))) & 15;
        const high = (qh[32 * n + l] >> (2 * t)) & 3;
        return (low | (high << 4)) - 32;
      };
      for (let i = 0; i < 8; i++) {
        const codes = Array.from({ length: 32 }, (_, k) => code(32 * i + k));
        blocks.push({ s0: f(d * scales[2 * i]), s1: f(d * scales[2 * i + 1]), codes });
      }
    }
  }
  return blocks;
}

// The weight a K-quant block holds at j, in float32 as ggml's dequantizers round it.
export const kQuantWeight = (block, j, type) =>
  type === 'q4_k' ? f(f(block.s * block.codes[j]) - block.m) : f((j < 16 ? block.s0 : block.s1) * block.codes[j]);
