// The safetensors format (https://huggingface.co/docs/safetensors): an unsigned 64-bit
// little-endian header length n, n bytes of JSON { name: { dtype, shape, data_offsets:
// [begin, end] }, "__metadata__"?: { string: string } }, then the tensors' bytes, offsets
// relative to the end of the header. The header is checked whole before any tensor is read:
// a header that lies (offsets past the file, sizes that disagree with the shape, overlaps)
// is a RangeError naming the file and the tensor, never a wrong read.
import { rangeError } from '../errors.js';
import { halfToFloat } from '../tensor.js';

/** Bytes per element of the dtypes the loader converts to float32. */
export const DTYPE_BYTES = Object.freeze({ F32: 4, F16: 2, BF16: 2 });
// The format's other dtypes, known so that the error can say "not supported" rather than
// "unknown".
const OTHER_DTYPES = new Set([
  'F64',
  'I64',
  'I32',
  'I16',
  'I8',
  'U8',
  'BOOL',
  'U16',
  'U32',
  'U64',
  'F8_E4M3',
  'F8_E5M2',
]);
// The reference implementation refuses headers over 100 MB.
export const MAX_HEADER_BYTES = 100_000_000;

// Tensors one file may list (plus __metadata__). Real files hold hundreds to a few thousand
// (a shard of a mixture of experts); JSON.parse of an object with a million keys takes 7 s in
// V8 (and a 56 MB header once stalled a load 15 s), 65,536 keys about 0.3 s.
export const MAX_TENSORS = 65_536;

// The number of entries of the JSON object in `bytes` (commas at depth 1, plus one), counted
// without parsing and stopping past `limit`: a cheap bound before JSON.parse.
function topLevelEntries(bytes, limit) {
  let depth = 0;
  let inString = false;
  let entries = 1;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c)
        i++; // a backslash escapes the next byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) {
      inString = true;
    } else if (b === 0x7b || b === 0x5b) {
      depth++;
    } else if (b === 0x7d || b === 0x5d) {
      depth--;
    } else if (b === 0x2c && depth === 1 && ++entries > limit) {
      return entries;
    }
  }
  return entries;
}

/**
 * The header length and its total prefix (8 + n), from the first 8 bytes.
 * @param {Uint8Array} first8 @param {string} fn @param {string} file @param {number} fileBytes
 */
export function headerLength(first8, fn, file, fileBytes) {
  if (first8.length < 8)
    throw rangeError(fn, `${file} is ${fileBytes} bytes, too short for a safetensors file (truncated?)`);
  const view = new DataView(first8.buffer, first8.byteOffset, 8);
  const n = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  if (n > MAX_HEADER_BYTES)
    throw rangeError(
      fn,
      `${file} claims a ${n}-byte header (the format allows ${MAX_HEADER_BYTES}); it is not a safetensors file or it is corrupt`,
    );
  if (8 + n > fileBytes)
    throw rangeError(fn, `${file} is ${fileBytes} bytes but its header alone needs ${8 + n} (truncated?)`);
  return n;
}

/**
 * Parses and checks a header.
 * @param {Uint8Array} headerBytes the n JSON bytes after the length
 * @param {number} fileBytes the whole file's size
 * @returns {{ dataStart: number, tensors: Map<string, { dtype: string, shape: number[], begin: number, end: number }>, metadata: Record<string, string> | null }}
 *   begin/end are absolute byte offsets in the file
 */
export function parseHeader(headerBytes, fn, file, fileBytes) {
  const dataStart = 8 + headerBytes.length;
  if (topLevelEntries(headerBytes, MAX_TENSORS + 1) > MAX_TENSORS + 1) {
    throw rangeError(
      fn,
      `${file}: the safetensors header lists more than ${MAX_TENSORS} tensors; a real checkpoint file holds a few thousand at most`,
    );
  }
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes));
  } catch (error) {
    throw rangeError(fn, `${file}: the safetensors header is not valid JSON (${error.message})`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw rangeError(fn, `${file}: the safetensors header must be a JSON object`);
  }
  const tensors = new Map();
  let metadata = null;
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = entry;
      continue;
    }
    tensors.set(name, checkEntry(fn, file, name, entry, dataStart, fileBytes));
  }
  checkNoOverlap(fn, file, tensors);
  return { dataStart, tensors, metadata };
}

function checkEntry(fn, file, name, entry, dataStart, fileBytes) {
  const where = `${file}: tensor '${name}'`;
  if (entry === null || typeof entry !== 'object')
    throw rangeError(fn, `${where} has no dtype/shape/data_offsets entry`);
  const { dtype, shape, data_offsets: offsets } = entry;
  if (typeof dtype !== 'string') throw rangeError(fn, `${where} has no dtype`);
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw rangeError(fn, `${where} has shape ${JSON.stringify(shape)}; a shape is a list of non-negative integers`);
  }
  if (
    !Array.isArray(offsets) ||
    offsets.length !== 2 ||
    !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) ||
    offsets[0] > offsets[1]
  ) {
    throw rangeError(
      fn,
      `${where} has data_offsets ${JSON.stringify(offsets)}; they must be [begin, end] with 0 <= begin <= end`,
    );
  }
  const begin = dataStart + offsets[0];
  const end = dataStart + offsets[1];
  if (end > fileBytes) throw rangeError(fn, `${where} ends at byte ${end} but the file has ${fileBytes} (truncated?)`);
  const elementBytes = DTYPE_BYTES[dtype];
  if (elementBytes !== undefined) {
    const elements = shape.reduce((a, b) => a * b, 1);
    if (elements * elementBytes !== end - begin) {
      throw rangeError(
        fn,
        `${where}: shape [${shape.join(', ')}] of ${dtype} needs ${elements * elementBytes} bytes but data_offsets give ${end - begin}`,
      );
    }
  } else if (!OTHER_DTYPES.has(dtype)) {
    throw rangeError(fn, `${where} has unknown dtype '${dtype}'`);
  }
  return { dtype, shape, begin, end };
}

// Tensors whose bytes overlap would read the same bytes as two weights. Zero-length tensors
// hold no bytes and cannot overlap anything; every other tensor must begin at or after the
// end of every tensor before it (the furthest end so far, not only the previous one, which
// may be a zero-length tensor placed inside another).
function checkNoOverlap(fn, file, tensors) {
  const sorted = [...tensors]
    .filter(([, t]) => t.end > t.begin)
    .sort((a, b) => a[1].begin - b[1].begin || a[1].end - b[1].end);
  let furthest = null; // [name, entry] of the tensor that ends furthest so far
  for (const [name, t] of sorted) {
    if (furthest !== null && t.begin < furthest[1].end) {
      throw rangeError(
        fn,
        `${file}: tensors '${furthest[0]}' and '${name}' overlap (bytes ${t.begin}..${Math.min(t.end, furthest[1].end)})`,
      );
    }
    if (furthest === null || t.end > furthest[1].end) furthest = [name, t];
  }
}

/**
 * Converts a tensor's bytes to float32.
 * @param {Uint8Array} bytes exactly the tensor's bytes @param {string} dtype
 * @param {Float32Array} out its element count long
 */
export function toFloat32(bytes, dtype, out) {
  const n = out.length;
  // Copy to an aligned buffer first: a tensor may start at any byte of the file.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  if (dtype === 'F32') {
    out.set(new Float32Array(aligned.buffer, aligned.byteOffset, n));
    return out;
  }
  const halves = new Uint16Array(aligned.buffer, aligned.byteOffset, n);
  const bits = new Uint32Array(out.buffer, out.byteOffset, n);
  if (dtype === 'BF16') {
    for (let i = 0; i < n; i++) bits[i] = halves[i] << 16;
  } else {
    for (let i = 0; i < n; i++) out[i] = halfToFloat(halves[i]);
  }
  return out;
}
