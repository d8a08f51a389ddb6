// The package ships two builds of the same module, chosen at init:
//   baseline: dist/attention.{js,wasm}          WebAssembly SIMD128 (every engine since 2021)
//   relaxed:  dist/attention-relaxed.{js,wasm}  SIMD128 + relaxed-SIMD FMA in the kernels
// 'auto' takes the relaxed build where the engine validates f32x4.relaxed_madd (Chromium
// 114+, Firefox 120+ behind no flag; Node 20 only with --experimental-wasm-relaxed-simd).
import { typeError, rangeError, describe } from './errors.js';

export const VARIANTS = ['baseline', 'relaxed'];

// A module with one function: v128.const ×3, f32x4.relaxed_madd (fd 85 02), end.
const ZERO_V128 = [0xfd, 0x0c, ...new Array(16).fill(0)];
const RELAXED_PROBE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // magic, version 1
  0x01,
  0x05,
  0x01,
  0x60,
  0x00,
  0x01,
  0x7b, // type section: () -> v128
  0x03,
  0x02,
  0x01,
  0x00, // function section: one function of type 0
  0x0a,
  0x3d,
  0x01,
  0x3b,
  0x00, // code section: one body of 59 bytes, no locals
  ...ZERO_V128,
  ...ZERO_V128,
  ...ZERO_V128,
  0xfd,
  0x85,
  0x02,
  0x0b,
]);

/** Does this engine run relaxed SIMD? */
export function relaxedSimdSupported() {
  return WebAssembly.validate(RELAXED_PROBE);
}

/** Checks init's `simd` option: 'auto' (default), 'relaxed' or 'baseline'. */
export function checkSimdOption(simd) {
  if (simd === undefined) return 'auto';
  const message = `options.simd must be 'auto', 'relaxed' or 'baseline', got`;
  if (typeof simd !== 'string') throw typeError('init', `${message} ${describe(simd)}`);
  if (simd !== 'auto' && !VARIANTS.includes(simd)) throw rangeError('init', `${message} '${simd}'`);
  return simd;
}

/** The build to load when the package chooses its own files. */
export function chooseVariant(simd) {
  if (simd === 'baseline') return 'baseline';
  const supported = relaxedSimdSupported();
  if (simd === 'relaxed' && !supported) {
    throw rangeError(
      'init',
      "options.simd is 'relaxed' but this engine does not validate relaxed SIMD (Node 20 needs --experimental-wasm-relaxed-simd; Chromium has it from 114)",
    );
  }
  return supported ? 'relaxed' : 'baseline';
}

// LEB128 unsigned at bytes[at]: [value, next offset].
function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    if (byte === undefined) return [NaN, at];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

/**
 * The build given bytes are, from the module's `target_features` custom section (which
 * wasm-ld writes and only the relaxed build keeps): 'relaxed' if it lists relaxed-simd.
 */
export function variantOfBytes(bytes) {
  const decoder = new TextDecoder();
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, start] = leb(bytes, at + 1);
    if (!Number.isFinite(size)) break;
    const end = start + size;
    if (id === 0) {
      const [nameLength, nameStart] = leb(bytes, start);
      const name = decoder.decode(bytes.subarray(nameStart, nameStart + nameLength));
      if (name === 'target_features') {
        const features = decoder.decode(bytes.subarray(nameStart + nameLength, end));
        return features.includes('relaxed-simd') ? 'relaxed' : 'baseline';
      }
    }
    at = end;
  }
  return 'baseline';
}

/**
 * The variant of wasm bytes a caller gave (wasmBinary or wasmUrl), checked against the
 * `simd` option and the engine.
 */
export function variantForBytes(simd, bytes, what) {
  const variant = variantOfBytes(bytes);
  if (simd !== 'auto' && simd !== variant) {
    throw rangeError('init', `options.simd is '${simd}' but ${what} is the ${variant} build`);
  }
  return variant;
}

/**
 * Whether wasm bytes are a threaded build: it imports a shared memory (the import section's
 * memory limits have the shared flag, 0x02).
 */
export function isThreadedBytes(bytes) {
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, start] = leb(bytes, at + 1);
    if (!Number.isFinite(size)) return false;
    if (id === 2) return importsSharedMemory(bytes, start);
    at = start + size;
  }
  return false;
}

// Walks an import section from `at` (its entry count) to a memory import.
function importsSharedMemory(bytes, at) {
  let [count, next] = leb(bytes, at);
  for (let i = 0; i < count && Number.isFinite(next); i++) {
    for (let name = 0; name < 2; name++) {
      // module name, field name
      const [length, from] = leb(bytes, next);
      next = from + length;
    }
    const kind = bytes[next++];
    if (kind === 0)
      [, next] = leb(bytes, next); // function: type index
    else if (kind === 1 || kind === 2) {
      // table (reference type first) or memory: limits
      if (kind === 1) next++;
      const flags = bytes[next++];
      if (kind === 2) return (flags & 2) !== 0;
      [, next] = leb(bytes, next);
      if (flags & 1) [, next] = leb(bytes, next);
    } else if (kind === 3)
      next += 2; // global: value type, mutability
    else return false;
  }
  return false;
}
