// The GGUF format (llama.cpp's single-file checkpoints; ggml/docs/gguf.md): little-endian
//   'GGUF', version (uint32: 3, or 2), tensor_count and kv_count (uint64),
//   kv_count metadata entries: key (string), value type (uint32), value,
//   tensor_count tensor infos: name (string), n_dims (uint32), dims (uint64 × n_dims, ggml
//   order: dims[0] is the innermost, the input features of a weight), type (uint32), offset
//   (uint64, from the start of the data section),
//   padding to general.alignment (32 unless set), then the data section.
// A string is a uint64 byte length and UTF-8 bytes. Trust nothing: every count and length is
// bounded by what the file (or the header's cap) has left before anything is allocated, every
// tensor checked against the file (offsets one after another as ggml writes them, alignment, sizes), a RangeError naming
// the field otherwise.
import { rangeError } from '../errors.js';
import { GGML_TYPES, typeBytes, canDequantize, READABLE_TYPES } from './gguf_quants.js';
import { StreamReader } from './weight_files.js';

/** The first four bytes of a GGUF file. */
export const GGUF_MAGIC = [0x47, 0x47, 0x55, 0x46]; // 'GGUF'

/** Whether the first bytes are a GGUF file's. */
export const isGguf = (bytes) => bytes.length >= 4 && GGUF_MAGIC.every((b, i) => bytes[i] === b);

// The header (metadata and tensor infos) may be at most this long: the largest real ones hold a
// 262k-piece vocabulary with scores and types, about 10 MB.
export const MAX_HEADER_BYTES = 100_000_000;
// Tensors and metadata entries one file may list (real ones: a few thousand, a few dozen).
export const MAX_TENSORS = 65_536;
export const MAX_METADATA = 65_536;
// ggml's limits: 4 dimensions, names shorter than 64 bytes.
const MAX_DIMS = 4;
const MAX_NAME_BYTES = 64;
const MAX_DIM = 2 ** 31 - 1;

// Metadata value types: [name, bytes] (strings and arrays are read apart).
const VALUE_TYPES = {
  0: ['uint8', 1],
  1: ['int8', 1],
  2: ['uint16', 2],
  3: ['int16', 2],
  4: ['uint32', 4],
  5: ['int32', 4],
  6: ['float32', 4],
  7: ['bool', 1],
  8: ['string', 8],
  9: ['array', 12],
  10: ['uint64', 8],
  11: ['int64', 8],
  12: ['float64', 8],
};
const TYPED_ARRAYS = {
  0: Uint8Array,
  1: Int8Array,
  2: Uint16Array,
  3: Int16Array,
  4: Uint32Array,
  5: Int32Array,
  6: Float32Array,
  10: BigUint64Array,
  11: BigInt64Array,
  12: Float64Array,
};

// Reads the header front to back from a StreamReader, pulling more bytes only when needed.
class Cursor {
  constructor(fn, file, reader, size) {
    this.fn = fn;
    this.file = file;
    this.reader = reader;
    this.size = size; // the file's bytes, Infinity when unknown
    this.buf = new Uint8Array(0);
    this.pos = 0;
  }

  /** The file offset of the next byte. */
  get offset() {
    return this.reader.position - (this.buf.length - this.pos);
  }

  /** Bytes the header may still take: the file's rest, within the header's cap. */
  get left() {
    return Math.min(this.size, MAX_HEADER_BYTES) - this.offset;
  }

  /** What bounds `left`: the file's end, or the header's cap when that comes first. */
  get leftOf() {
    return this.size <= MAX_HEADER_BYTES ? 'file' : `header's ${MAX_HEADER_BYTES}-byte cap`;
  }

  async need(n, what) {
    if (this.buf.length - this.pos >= n) return;
    if (n > this.left) {
      throw rangeError(
        this.fn,
        this.size - this.offset < n
          ? `${this.file}: ${what} needs ${n} bytes at byte ${this.offset} but the file has ${this.size} (truncated?)`
          : `${this.file}: ${what} would take the header past ${MAX_HEADER_BYTES} bytes; a real GGUF header is at most a few tens of MB`,
      );
    }
    const rest = this.buf.subarray(this.pos);
    const want = Math.max(n - rest.length, Math.min(1 << 20, this.left - rest.length));
    await this.reader.fill(want);
    const got = Math.min(want, this.reader.available);
    if (rest.length + got < n)
      throw rangeError(
        this.fn,
        `${this.file} ended at byte ${this.offset + rest.length + got} inside ${what} (truncated?)`,
      );
    const next = new Uint8Array(rest.length + got);
    next.set(rest);
    next.set(this.reader.take(got), rest.length);
    this.buf = next;
    this.pos = 0;
  }

  view(n) {
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, n);
    this.pos += n;
    return v;
  }

  async u32(what) {
    await this.need(4, what);
    return this.view(4).getUint32(0, true);
  }

  // A uint64 as a Number; more than 2^53 is a RangeError (no count or offset is that large).
  async u64(what) {
    await this.need(8, what);
    const v = this.view(8);
    const value = v.getUint32(0, true) + v.getUint32(4, true) * 2 ** 32;
    if (!Number.isSafeInteger(value)) throw rangeError(this.fn, `${this.file}: ${what} is ${value}, past 2^53`);
    return value;
  }

  async string(what, limit = Infinity) {
    const n = await this.u64(`the length of ${what}`);
    if (n > limit) throw rangeError(this.fn, `${this.file}: ${what} is ${n} bytes long; at most ${limit} are allowed`);
    if (n > this.left)
      throw rangeError(
        this.fn,
        `${this.file}: ${what} claims ${n} bytes at byte ${this.offset} but only ${this.left} are left of the ${this.leftOf} (corrupt or truncated?)`,
      );
    await this.need(n, what);
    const bytes = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return this.decode(bytes, what);
  }

  decode(bytes, what) {
    // Short ASCII (most vocabulary pieces) without the decoder's per-call cost.
    if (bytes.length <= 32) {
      let text = '';
      for (let i = 0; i < bytes.length && text !== null; i++)
        text = bytes[i] < 0x80 ? text + String.fromCharCode(bytes[i]) : null;
      if (text !== null) return text;
    }
    try {
      return UTF8.decode(bytes);
    } catch {
      throw rangeError(this.fn, `${this.file}: ${what} is not valid UTF-8`);
    }
  }

  // A string whose length and bytes are already in the buffer (the common case: a vocabulary's
  // hundreds of thousands of pieces read without a promise each), else undefined, the position
  // unchanged, for string() to read (and to say what is wrong).
  stringNow(what, i) {
    const at = this.pos;
    if (this.buf.length - at < 8) return undefined;
    const n = this.buf[at] | (this.buf[at + 1] << 8) | (this.buf[at + 2] << 16);
    if (this.buf[at + 3] !== 0 || this.buf[at + 4] | this.buf[at + 5] | this.buf[at + 6] | this.buf[at + 7])
      return undefined;
    if (this.buf.length - at - 8 < n) return undefined;
    this.pos = at + 8 + n;
    return this.decode(this.buf.subarray(at + 8, at + 8 + n), `${what}[${i}]`);
  }

  async value(type, what) {
    const spec = VALUE_TYPES[type];
    if (spec === undefined)
      throw rangeError(this.fn, `${this.file}: ${what} has unknown value type ${type} (GGUF defines 0 to 12)`);
    if (type === 8) return this.string(what);
    if (type === 9) return this.array(what);
    await this.need(spec[1], what);
    const v = this.view(spec[1]);
    switch (type) {
      case 0:
        return v.getUint8(0);
      case 1:
        return v.getInt8(0);
      case 2:
        return v.getUint16(0, true);
      case 3:
        return v.getInt16(0, true);
      case 4:
        return v.getUint32(0, true);
      case 5:
        return v.getInt32(0, true);
      case 6:
        return shortestDecimal(v.getFloat32(0, true));
      case 7:
        return v.getUint8(0) !== 0;
      case 10:
        return safeNumber(v.getBigUint64(0, true));
      case 11:
        return safeNumber(v.getBigInt64(0, true));
      default:
        return v.getFloat64(0, true);
    }
  }

  // An array: element type (uint32), count (uint64), elements. Numbers come as a typed array,
  // strings and booleans as an Array; arrays of arrays are refused (ggml's reader does too).
  async array(what) {
    const type = await this.u32(`the element type of ${what}`);
    const n = await this.u64(`the length of ${what}`);
    const spec = VALUE_TYPES[type];
    if (spec === undefined || type === 9)
      throw rangeError(
        this.fn,
        `${this.file}: ${what} is an array of ${type === 9 ? 'arrays' : `unknown type ${type}`}; GGUF arrays hold numbers, booleans or strings`,
      );
    // Every element takes at least its own bytes (a string its 8-byte length).
    if (n * spec[1] > this.left)
      throw rangeError(
        this.fn,
        `${this.file}: ${what} claims ${n} elements (${n * spec[1]} bytes at least) but only ${this.left} bytes are left of the ${this.leftOf} (corrupt or truncated?)`,
      );
    if (type === 8) {
      const out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = this.stringNow(what, i) ?? (await this.string(`${what}[${i}]`));
      return out;
    }
    if (type === 7) {
      await this.need(n, what);
      const out = Array.from(this.buf.subarray(this.pos, this.pos + n), (b) => b !== 0);
      this.pos += n;
      return out;
    }
    const bytes = n * spec[1];
    await this.need(bytes, what);
    const copy = this.buf.slice(this.pos, this.pos + bytes); // aligned for the typed array
    this.pos += bytes;
    const out = new TYPED_ARRAYS[type](copy.buffer, 0, n);
    return type === 10 || type === 11 ? Array.from(out, safeNumber) : out;
  }
}

// A float32 value as the shortest decimal that rounds to it: the number the converter was given
// (config.json's 1e-06, not 9.99999997e-07), so that the config and descriptor are the folder's.
function shortestDecimal(x) {
  if (!Number.isFinite(x)) return x;
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(x.toPrecision(digits));
    if (Math.fround(candidate) === x) return candidate;
  }
  return x;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

const safeNumber = (big) => (big >= -(2n ** 53n) && big <= 2n ** 53n ? Number(big) : big);

/**
 * Reads and checks a GGUF header.
 * @param {string} fn @param {string} file the file's name in messages
 * @param {StreamReader} reader at the file's first byte
 * @param {number} size the file's bytes (Infinity when unknown)
 * @returns {Promise<{ version: number, metadata: Map<string, unknown>, tensors: Map<string, { type: number, dims: number[], count: number, begin: number, end: number }>, dataStart: number, dataEnd: number }>}
 *   begin/end: absolute byte offsets in the file
 */
export async function parseGguf(fn, file, reader, size) {
  const c = new Cursor(fn, file, reader, size);
  await c.need(4, 'the magic');
  if (!isGguf(c.buf)) throw rangeError(fn, `${file} does not start with 'GGUF'; it is not a GGUF file`);
  c.pos += 4;
  const version = await c.u32('the version');
  if (version !== 2 && version !== 3) {
    // A big-endian file's version 3 reads as 3 << 24 here.
    const bigEndian = version === 3 << 24 || version === 2 << 24;
    throw rangeError(
      fn,
      `${file}: GGUF version ${version}${bigEndian ? ' (a big-endian file, which this reader does not read)' : ''}; versions 2 and 3 are read`,
    );
  }
  const tensorCount = await c.u64('tensor_count');
  const kvCount = await c.u64('metadata_kv_count');
  if (tensorCount > MAX_TENSORS)
    throw rangeError(fn, `${file} claims ${tensorCount} tensors; at most ${MAX_TENSORS} are read`);
  if (kvCount > MAX_METADATA)
    throw rangeError(fn, `${file} claims ${kvCount} metadata entries; at most ${MAX_METADATA} are read`);
  // 1. Metadata.
  const metadata = new Map();
  for (let i = 0; i < kvCount; i++) {
    const key = await c.string(`the key of metadata entry ${i}`, 65_536);
    if (metadata.has(key)) throw rangeError(fn, `${file}: metadata key '${key}' appears twice`);
    const type = await c.u32(`the type of metadata '${key}'`);
    metadata.set(key, await c.value(type, `metadata '${key}'`));
  }
  const alignment = metadata.get('general.alignment') ?? 32;
  if (!Number.isInteger(alignment) || alignment < 1 || alignment > 1 << 20 || (alignment & (alignment - 1)) !== 0)
    throw rangeError(fn, `${file}: general.alignment must be a power of two up to 2^20, got ${String(alignment)}`);
  // 2. Tensor infos.
  const infos = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = await c.string(`the name of tensor ${i}`, MAX_NAME_BYTES - 1);
    const where = `${file}: tensor '${name}'`;
    const nDims = await c.u32(`the n_dims of tensor '${name}'`);
    if (nDims < 1 || nDims > MAX_DIMS)
      throw rangeError(fn, `${where} has ${nDims} dimensions; ggml has 1 to ${MAX_DIMS}`);
    const dims = [];
    for (let d = 0; d < nDims; d++) {
      const n = await c.u64(`dimension ${d} of tensor '${name}'`);
      if (n < 1 || n > MAX_DIM) throw rangeError(fn, `${where} has dimension ${d} of ${n}; it must be in [1, 2^31)`);
      dims.push(n);
    }
    const type = await c.u32(`the type of tensor '${name}'`);
    const spec = GGML_TYPES[type];
    if (spec === undefined) throw rangeError(fn, `${where} has unknown ggml type ${type}`);
    const offset = await c.u64(`the offset of tensor '${name}'`);
    if (offset % alignment !== 0)
      throw rangeError(fn, `${where} starts at data offset ${offset}, not a multiple of the alignment ${alignment}`);
    const count = dims.reduce((a, b) => a * b, 1);
    if (!Number.isSafeInteger(count) || count > 2 ** 40)
      throw rangeError(fn, `${where} has [${dims.join(', ')}] elements, too many`);
    if (dims[0] % spec.block !== 0 && !canDequantize(type))
      throw rangeError(
        fn,
        `${where} is ${spec.name}, which this reader does not read (GGUF weights must be ${READABLE_TYPES.join(', ')})`,
      );
    if (dims[0] % spec.block !== 0)
      throw rangeError(
        fn,
        `${where} is ${spec.name} with rows of ${dims[0]} elements; ${spec.name} needs whole blocks of ${spec.block}`,
      );
    infos.push({ name, type, dims, count, offset, bytes: typeBytes(type, count) });
  }
  // 3. The data section, after the padding: the tensors one after another in the order listed,
  //    each at the previous one's end rounded up to the alignment (as ggml writes them and as
  //    its reader requires), so that the header accounts for every byte read after it (a
  //    stream with no length is never read past the last tensor), and inside the file.
  const dataStart = Math.ceil(c.offset / alignment) * alignment;
  const tensors = new Map();
  let expected = 0;
  for (const t of infos) {
    if (tensors.has(t.name)) throw rangeError(fn, `${file}: tensor '${t.name}' appears twice`);
    if (t.offset !== expected)
      throw rangeError(
        fn,
        `${file}: tensor '${t.name}' starts at data offset ${t.offset}, but the tensors listed before it end at ${expected}; ggml writes each tensor right after the one before (aligned to ${alignment})`,
      );
    expected += Math.ceil(t.bytes / alignment) * alignment;
    const begin = dataStart + t.offset;
    const end = begin + t.bytes;
    if (end > size)
      throw rangeError(
        fn,
        `${file}: tensor '${t.name}' (${GGML_TYPES[t.type].name} [${t.dims.join(', ')}]) ends at byte ${end} but the file has ${size} (truncated or a bad offset?)`,
      );
    tensors.set(t.name, { type: t.type, dims: t.dims, count: t.count, begin, end });
  }
  // The reader stands where the header ends: what the cursor read past it goes back.
  reader.giveBack(c.buf.slice(c.pos));
  return { version, metadata, tensors, dataStart, dataEnd: dataStart + expected };
}

export { StreamReader };
