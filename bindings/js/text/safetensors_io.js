// Whole-file safetensors reading and writing for small models (a text classifier, word
// vectors): F32 or F16 tensors, a string metadata map. Large checkpoints stream through
// models/weight_files.js instead; both check headers with models/safetensors.js.
import { rangeError } from '../errors.js';
import { headerLength, parseHeader, toFloat32, DTYPE_BYTES } from '../models/safetensors.js';

/** number → the nearest IEEE 754 binary16 (ties to even), as its 16 bits. */
export function floatToHalf(value) {
  const f32 = new Float32Array([value]);
  const x = new Uint32Array(f32.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0); // Inf, NaN
  let e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → Inf
  if (e <= 0) {
    // A subnormal half (or zero): shift the implicit 1 in, round to nearest even.
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    return sign | (half + (rest > midpoint || (rest === midpoint && half & 1) ? 1 : 0));
  }
  const half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0)); // a carry into the exponent is right
}

/**
 * Writes a safetensors file.
 * @param {Array<{ name: string, shape: number[], data: ArrayLike<number> }>} tensors in file order
 * @param {{ dtype?: 'F32' | 'F16', metadata?: Record<string, string> }} [options]
 * @returns {Uint8Array}
 */
export function writeSafetensors(tensors, { dtype = 'F32', metadata } = {}) {
  const bytesPer = DTYPE_BYTES[dtype];
  const header = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const t of tensors) {
    const bytes = t.data.length * bytesPer;
    header[t.name] = { dtype, shape: t.shape.slice(), data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8); // data 8-byte aligned, as the reference writer does
  const headerBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  const view = new DataView(out.buffer);
  view.setUint32(0, headerBytes.length, true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.length;
  for (const t of tensors) {
    for (let i = 0; i < t.data.length; i++, at += bytesPer) {
      if (dtype === 'F16') view.setUint16(at, floatToHalf(t.data[i]), true);
      else view.setFloat32(at, t.data[i], true);
    }
  }
  return out;
}

/**
 * Reads a whole safetensors file: its tensors as float32 and its metadata.
 * @param {string} fn @param {string} file the name for errors @param {Uint8Array} bytes
 * @returns {{ tensors: Map<string, { shape: number[], dtype: string, data: Float32Array }>, metadata: Record<string, string> | null }}
 */
export function readSafetensors(fn, file, bytes) {
  const n = headerLength(bytes.subarray(0, 8), fn, file, bytes.length);
  const { tensors, metadata } = parseHeader(bytes.subarray(8, 8 + n), fn, file, bytes.length);
  const out = new Map();
  for (const [name, t] of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (!(t.dtype in DTYPE_BYTES))
      throw rangeError(fn, `${file}: tensor '${name}' is ${t.dtype}; F32, F16 and BF16 are read`);
    out.set(name, {
      shape: t.shape,
      dtype: t.dtype,
      data: toFloat32(bytes.subarray(t.begin, t.end), t.dtype, new Float32Array(count)),
    });
  }
  return { tensors: out, metadata };
}
