// GGML's tensor types as a GGUF file stores them, and exact dequantizers to float32 for the
// ones the loader reads: F32, F16, BF16, Q8_0, Q4_0, Q4_K and Q6_K. The block layouts and the
// arithmetic follow ggml (ggml-common.h's block_* structs, ggml-quants.c's dequantize_row_*):
// every product before the last step is exact in float32, so computing in float64 and rounding
// once gives ggml's float32 bits.
import { halfToFloat } from '../tensor.js';

/**
 * The types by id (ggml.h's enum ggml_type): name, elements per block, bytes per block.
 * The ones without a dequantizer are listed so that an error names them.
 */
export const GGML_TYPES = Object.freeze({
  0: { name: 'F32', block: 1, bytes: 4 },
  1: { name: 'F16', block: 1, bytes: 2 },
  2: { name: 'Q4_0', block: 32, bytes: 18 },
  3: { name: 'Q4_1', block: 32, bytes: 20 },
  6: { name: 'Q5_0', block: 32, bytes: 22 },
  7: { name: 'Q5_1', block: 32, bytes: 24 },
  8: { name: 'Q8_0', block: 32, bytes: 34 },
  9: { name: 'Q8_1', block: 32, bytes: 36 },
  10: { name: 'Q2_K', block: 256, bytes: 84 },
  11: { name: 'Q3_K', block: 256, bytes: 110 },
  12: { name: 'Q4_K', block: 256, bytes: 144 },
  13: { name: 'Q5_K', block: 256, bytes: 176 },
  14: { name: 'Q6_K', block: 256, bytes: 210 },
  15: { name: 'Q8_K', block: 256, bytes: 292 },
  16: { name: 'IQ2_XXS', block: 256, bytes: 66 },
  17: { name: 'IQ2_XS', block: 256, bytes: 74 },
  18: { name: 'IQ3_XXS', block: 256, bytes: 98 },
  19: { name: 'IQ1_S', block: 256, bytes: 50 },
  20: { name: 'IQ4_NL', block: 32, bytes: 18 },
  21: { name: 'IQ3_S', block: 256, bytes: 110 },
  22: { name: 'IQ2_S', block: 256, bytes: 82 },
  23: { name: 'IQ4_XS', block: 256, bytes: 136 },
  24: { name: 'I8', block: 1, bytes: 1 },
  25: { name: 'I16', block: 1, bytes: 2 },
  26: { name: 'I32', block: 1, bytes: 4 },
  27: { name: 'I64', block: 1, bytes: 8 },
  28: { name: 'F64', block: 1, bytes: 8 },
  29: { name: 'IQ1_M', block: 256, bytes: 56 },
  30: { name: 'BF16', block: 1, bytes: 2 },
  34: { name: 'TQ1_0', block: 256, bytes: 54 },
  35: { name: 'TQ2_0', block: 256, bytes: 66 },
  39: { name: 'MXFP4', block: 32, bytes: 17 },
});

/** The bytes `count` elements of type `type` take (count a whole number of blocks). */
export const typeBytes = (type, count) => (count / GGML_TYPES[type].block) * GGML_TYPES[type].bytes;

const half = (bytes, at) => halfToFloat(bytes[at] | (bytes[at + 1] << 8));

// Q8_0: d (fp16), 32 int8 q; x = d·q.
function q8_0(bytes, out) {
  for (let b = 0, at = 0; b < out.length; b += 32, at += 34) {
    const d = half(bytes, at);
    for (let i = 0; i < 32; i++) out[b + i] = d * ((bytes[at + 2 + i] << 24) >> 24);
  }
}

// Q4_0: d (fp16), 16 bytes of nibbles; element i < 16 is byte i's low nibble, element 16 + i
// its high nibble; x = (nibble − 8)·d.
function q4_0(bytes, out) {
  for (let b = 0, at = 0; b < out.length; b += 32, at += 18) {
    const d = half(bytes, at);
    for (let i = 0; i < 16; i++) {
      const q = bytes[at + 2 + i];
      out[b + i] = ((q & 15) - 8) * d;
      out[b + 16 + i] = ((q >> 4) - 8) * d;
    }
  }
}

// Q4_K's 6-bit scale and min of sub-block j (ggml's get_scale_min_k4): 12 bytes hold eight
// scales and eight mins; j < 4 in the low 6 bits of bytes j and j + 4, the others split
// between a nibble of byte j + 4 and the top 2 bits of bytes j − 4 and j.
function scaleMinK4(j, bytes, at) {
  if (j < 4) return [bytes[at + j] & 63, bytes[at + j + 4] & 63];
  return [
    (bytes[at + j + 4] & 15) | ((bytes[at + j - 4] >> 6) << 4),
    (bytes[at + j + 4] >> 4) | ((bytes[at + j] >> 6) << 4),
  ];
}

// Q4_K: a super-block of 256 = 8 sub-blocks of 32: d, dmin (fp16), scales[12], qs[128]. Each
// 64 elements read 32 bytes: sub-block 2k from the low nibbles, 2k + 1 from the high ones;
// x = d·scale·q − dmin·min.
function q4_K(bytes, out) {
  for (let b = 0, at = 0; b < out.length; b += 256, at += 144) {
    const d = half(bytes, at);
    const dmin = half(bytes, at + 2);
    for (let j = 0; j < 4; j++) {
      const [s1, m1] = scaleMinK4(2 * j, bytes, at + 4);
      const [s2, m2] = scaleMinK4(2 * j + 1, bytes, at + 4);
      const d1 = d * s1,
        min1 = dmin * m1,
        d2 = d * s2,
        min2 = dmin * m2;
      const qs = at + 16 + 32 * j;
      const y = b + 64 * j;
      for (let l = 0; l < 32; l++) {
        out[y + l] = d1 * (bytes[qs + l] & 15) - min1;
        out[y + 32 + l] = d2 * (bytes[qs + l] >> 4) - min2;
      }
    }
  }
}

// Q6_K: ql[128] (low 4 bits), qh[64] (high 2 bits), scales[16] (int8), d (fp16). Each half of
// 128 elements reads 64 ql and 32 qh bytes; x = d·scale·(q − 32), a scale per 16 elements.
function q6_K(bytes, out) {
  for (let b = 0, at = 0; b < out.length; b += 256, at += 210) {
    const d = half(bytes, at + 208);
    for (let n = 0; n < 2; n++) {
      const ql = at + 64 * n;
      const qh = at + 128 + 32 * n;
      const sc = at + 192 + 8 * n;
      const y = b + 128 * n;
      const scale = (k) => (bytes[sc + k] << 24) >> 24;
      for (let l = 0; l < 32; l++) {
        const is = l >> 4;
        const h = bytes[qh + l];
        const q1 = ((bytes[ql + l] & 15) | ((h & 3) << 4)) - 32;
        const q2 = ((bytes[ql + l + 32] & 15) | (((h >> 2) & 3) << 4)) - 32;
        const q3 = ((bytes[ql + l] >> 4) | (((h >> 4) & 3) << 4)) - 32;
        const q4 = ((bytes[ql + l + 32] >> 4) | (((h >> 6) & 3) << 4)) - 32;
        out[y + l] = d * scale(is) * q1;
        out[y + l + 32] = d * scale(is + 2) * q2;
        out[y + l + 64] = d * scale(is + 4) * q3;
        out[y + l + 96] = d * scale(is + 6) * q4;
      }
    }
  }
}

function f32(bytes, out) {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  out.set(new Float32Array(aligned.buffer, aligned.byteOffset, out.length));
}

function f16(bytes, out) {
  for (let i = 0; i < out.length; i++) out[i] = half(bytes, 2 * i);
}

function bf16(bytes, out) {
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < out.length; i++) bits[i] = (bytes[2 * i] | (bytes[2 * i + 1] << 8)) << 16;
}

const DEQUANTIZERS = { 0: f32, 1: f16, 30: bf16, 8: q8_0, 2: q4_0, 12: q4_K, 14: q6_K };

/** Whether the loader reads tensors of this type. */
export const canDequantize = (type) => Object.hasOwn(DEQUANTIZERS, type);

/** The names of the types the loader reads, for messages. */
export const READABLE_TYPES = [0, 1, 30, 8, 2, 12, 14].map((t) => GGML_TYPES[t].name);

/**
 * A tensor's bytes → float32, exactly as ggml's dequantize_row_* computes them.
 * @param {number} type a ggml type id canDequantize accepts
 * @param {Uint8Array} bytes exactly the tensor's bytes
 * @param {Float32Array} out its element count long (a whole number of blocks)
 */
export function dequantize(type, bytes, out) {
  DEQUANTIZERS[type](bytes, out);
  return out;
}
