// name → sha256 (hex) of each Float32Array's bytes, for bit-for-bit comparisons.
import { createHash } from 'node:crypto';

/** @param {Array<[string, Float32Array]>} parts */
export function digests(parts) {
  return Object.fromEntries(
    parts.map(([name, data]) => [
      name,
      createHash('sha256')
        .update(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
        .digest('hex'),
    ]),
  );
}
