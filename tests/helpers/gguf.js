// A small GGUF writer for hostile files: every count, length and offset can be made to lie.
//   metadata: [{ key, type, value }] (type: 4 uint32, 6 float32, 8 string, 9 array with
//     value { type, items }, or any number with value a Uint8Array of its raw bytes)
//   tensors: [{ name, type, dims, offset?, bytes? }] (offset: the data-section offset; default
//     packed in order at 32-byte alignment)
//   version, tensorCount, kvCount override the header's; stringLength(key) overrides a key's length.
const enc = new TextEncoder();

function u32(n) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
}

function u64(n) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
}

const str = (s, length) => {
  const bytes = enc.encode(s);
  return [u64(length ?? bytes.length), bytes];
};

function value(type, v) {
  if (v instanceof Uint8Array) return [v];
  if (type === 4) return [u32(v)];
  if (type === 6) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    return [b];
  }
  if (type === 8) return str(v);
  if (type === 9) return [u32(v.type), u64(v.length ?? v.items.length), ...v.items.flatMap((x) => value(v.type, x))];
  throw new Error(`helper: value type ${type}`);
}

export function ggufBytes({ version = 3, tensorCount, kvCount, metadata = [], tensors = [] } = {}) {
  const parts = [enc.encode('GGUF'), u32(version), u64(tensorCount ?? tensors.length), u64(kvCount ?? metadata.length)];
  for (const m of metadata) parts.push(...str(m.key), u32(m.type), ...value(m.type, m.value));
  let offset = 0;
  const blobs = [];
  for (const t of tensors) {
    const bytes = t.bytes ?? new Uint8Array(0);
    parts.push(...str(t.name), u32(t.dims.length), ...t.dims.map(u64), u32(t.type), u64(t.offset ?? offset));
    blobs.push(bytes, new Uint8Array((32 - (bytes.length % 32)) % 32));
    offset += bytes.length + ((32 - (bytes.length % 32)) % 32);
  }
  const headLength = parts.reduce((n, p) => n + p.length, 0);
  parts.push(new Uint8Array((32 - (headLength % 32)) % 32), ...blobs);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
