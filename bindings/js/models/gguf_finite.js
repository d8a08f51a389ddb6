// A GGUF tensor's numbers must be finite, as ggml's ggml_validate_row_data requires when
// llama.cpp loads a file: a NaN or infinite block scale (or float weight) makes every logit
// that touches it non-finite, and a model would then answer with confident garbage (greedy
// decoding picked token 0 every time). Checked as each tensor's bytes arrive, before they
// reach the runner: one look at each fp16 scale (1 in 32 or 256 weights), and at every value
// of a float tensor (its exponent bits: all ones is NaN or infinity).
import { rangeError } from '../errors.js';
import { GGML_TYPES } from './gguf_quants.js';

// Byte offsets of the fp16 scales in a block of each quantized type (ggml-common.h's block_*).
const HALF_SCALES = {
  2: [0], // Q4_0: d
  3: [0, 2], // Q4_1: d, m
  6: [0], // Q5_0: d
  7: [0, 2], // Q5_1: d, m
  8: [0], // Q8_0: d
  9: [0, 2], // Q8_1: d, s
  10: [80, 82], // Q2_K: d, dmin after scales[16] and qs[64]
  11: [108], // Q3_K: d after hmask[32], qs[64], scales[12]
  12: [0, 2], // Q4_K: d, dmin
  13: [0, 2], // Q5_K: d, dmin
  14: [208], // Q6_K: d after ql[128], qh[64], scales[16]
};

// Where a float value's exponent is all ones (NaN or ±infinity): the index of the first, or -1.
function firstNonFinite(type, bytes) {
  if (type === 0) {
    for (let i = 3; i < bytes.length; i += 4) if ((bytes[i] & 0x7f) === 0x7f && bytes[i - 1] & 0x80) return (i - 3) / 4; // F32
  } else if (type === 1) {
    for (let i = 1; i < bytes.length; i += 2) if ((bytes[i] & 0x7c) === 0x7c) return (i - 1) / 2; // F16
  } else if (type === 30) {
    for (let i = 1; i < bytes.length; i += 2) if ((bytes[i] & 0x7f) === 0x7f && bytes[i - 1] & 0x80) return (i - 1) / 2; // BF16
  }
  return -1;
}

const isNaNHalf = (lo, hi) => (hi & 0x03) !== 0 || lo !== 0;

/**
 * Throws a RangeError naming the tensor and the first block (or element) that is not finite.
 * @param {string} fn @param {string} file @param {string} name @param {number} type ggml type
 * @param {Uint8Array} bytes the tensor's bytes as the file holds them
 */
export function checkFinite(fn, file, name, type, bytes) {
  const typeName = GGML_TYPES[type]?.name ?? `type ${type}`;
  const scales = HALF_SCALES[type];
  if (scales === undefined) {
    const at = firstNonFinite(type, bytes);
    if (at >= 0)
      throw rangeError(
        fn,
        `${file}: tensor '${name}' (${typeName}) holds a NaN or infinity at element ${at}; a model's weights must be finite (llama.cpp's loader refuses such a file too)`,
      );
    return;
  }
  const blockBytes = GGML_TYPES[type].bytes;
  for (let at = 0, block = 0; at < bytes.length; at += blockBytes, block++) {
    for (const offset of scales) {
      const hi = bytes[at + offset + 1];
      if ((hi & 0x7c) !== 0x7c) continue;
      const what = isNaNHalf(bytes[at + offset], hi) ? 'NaN' : hi & 0x80 ? '-infinity' : 'infinity';
      throw rangeError(
        fn,
        `${file}: tensor '${name}' (${typeName}) has a ${what} scale in block ${block} (byte ${at + offset} of the tensor); a model's weights must be finite (llama.cpp's loader refuses such a file too)`,
      );
    }
  }
}
