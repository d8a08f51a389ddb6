// Test helpers: write safetensors files (the format: u64 little-endian header length, JSON
// header, data) from { name: { dtype, shape, data: Float32Array } }, read the fixtures' raw
// tensors, and round float32 values to bfloat16 / float16 exactly as PyTorch does.
import { readFileSync } from 'node:fs';

/** float32 → bfloat16 bits, round to nearest even (torch's .to(bfloat16)). */
export function toBf16Bits(x) {
  const u = new Uint32Array(new Float32Array([x]).buffer)[0];
  return ((u + 0x7fff + ((u >> 16) & 1)) >>> 16) & 0xffff;
}

/** Writes a safetensors file. dtype per tensor: F32 (data as is), BF16 (rounded), or raw bytes. */
export function writeSafetensors(tensors, { metadata, headerOverride } = {}) {
  const header = metadata ? { __metadata__: metadata } : {};
  const blobs = [];
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    let bytes;
    if (t.bytes) bytes = t.bytes;
    else if (t.dtype === 'BF16') bytes = new Uint8Array(Uint16Array.from(t.data, toBf16Bits).buffer);
    else bytes = new Uint8Array(Float32Array.from(t.data).buffer);
    header[name] = { dtype: t.dtype ?? 'F32', shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    blobs.push(bytes);
    offset += bytes.length;
  }
  const text = new TextEncoder().encode(JSON.stringify(headerOverride ? headerOverride(header) : header));
  const out = new Uint8Array(8 + text.length + offset);
  new DataView(out.buffer).setUint32(0, text.length, true);
  out.set(text, 8);
  let at = 8 + text.length;
  for (const b of blobs) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** The tensors of a safetensors file as { name: { dtype, shape, bytes } }. */
export function readSafetensors(bytes) {
  const n = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const out = {};
  for (const [name, e] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    out[name] = {
      dtype: e.dtype,
      shape: e.shape,
      bytes: bytes.slice(8 + n + e.data_offsets[0], 8 + n + e.data_offsets[1]),
    };
  }
  return out;
}

/** A fixture folder's files as a plain object of names to bytes. */
export function fixtureFiles(folder) {
  const files = {};
  for (const name of ['config.json', 'tokenizer.json', 'model.safetensors'])
    files[name] = new Uint8Array(readFileSync(`${folder}/${name}`));
  return files;
}
