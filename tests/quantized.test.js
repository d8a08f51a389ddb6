// Quantized matrices (src/kernels/quantized.h): ggml's Q8_0 / Q4_0 quantizers, GGUF's block
// layouts and the integer-dot product, each against the float32-exact reference of
// tests/helpers/quantized-reference.js, bit for bit; the same bits in the relaxed build and
// on two threads; and against the float64 product of the dequantized weights within the
// bound the activations' 8-bit codes allow.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import createModule from '../dist/attention.js';
import { contractOf } from '../bindings/js/contract.js';
import { HeapScope, views } from '../bindings/js/heap.js';
import { rng } from './helpers/assert.js';
import {
  quantizeMatrix,
  multiplyQuantized,
  dequantized,
  ggufBytes,
  roundToHalf,
  halfBits,
  codesBound,
} from './helpers/quantized-reference.js';

const wasmBinary = readFileSync(new URL('../dist/attention.wasm', import.meta.url));
const module = await createModule({ wasmBinary });
const storages = contractOf(module).matrixStorages;
const STORAGE = { q8_0: storages.kQ8_0, q4_0: storages.kQ4_0 };

// A [rows, cols] float32 matrix of normal values times a per-row scale, with an all-zero
// block and a block of exact ties (k + ½)·(max / 127) where the rounding rule shows.
function matrix(random, rows, cols, special = true) {
  const w = new Float32Array(rows * cols);
  for (let i = 0; i < w.length; i++) w[i] = (random(-1, 1) + random(-1, 1)) * (1 + (i % 7));
  if (special && rows >= 64) {
    for (let p = 0; p < 32; p++) w[p * cols] = 0; // column 0, block 0: all zero
    for (let p = 32; p < 64; p++) w[p * cols + 1] = p === 32 ? 127 : (p % 9) + 0.5; // ties
  }
  return w;
}

// Runs the module's quantizer and product on one case; returns its bytes and output.
function run(mod, { w, inner, cols, storage, a, rows, bias }) {
  const scope = new HeapScope(mod, 'test');
  try {
    const bytes = mod._quantBytes(STORAGE[storage], inner, cols);
    const wq = scope.allocBytes(bytes);
    mod._quantizeMatrix(scope.floats(w), cols, false, inner, cols, STORAGE[storage], wq);
    const out = scope.alloc(rows * cols);
    const status = mod._multiplyQuantized(
      scope.floats(a),
      rows,
      inner,
      wq,
      STORAGE[storage],
      bias ? scope.floats(bias) : 0,
      cols,
      out,
    );
    assert.equal(status, 0);
    const m = views(mod);
    return {
      packed: m.HEAPU8.slice(wq, wq + bytes),
      out: m.HEAPF32.slice(out >>> 2, (out >>> 2) + rows * cols),
    };
  } finally {
    scope.release();
  }
}

// The packed layout read back (quantized.h): panel p (groups 2p, 2p + 1 of 4 columns) holds
// [blocks] of { group 2p's codes [4 · q] and scales [4] float32, then group 2p + 1's }; in a
// block, column j's weight 4v + 2h + i is byte 16v + 8h + 2j + i (Q4_0: weights 16..31 in the
// high nibbles of weights 0..15's).
function unpacked(packed, inner, cols, storage) {
  const blocks = Math.ceil(inner / 32),
    q = storage === 'q8_0' ? 32 : 16;
  const stride = 4 * q + 16; // one group's block
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const weight = (p, c) => {
    const g = Math.floor(c / 4),
      j = c % 4,
      b = Math.floor(p / 32),
      k = p % 32;
    const block = (Math.floor(g / 2) * blocks + b) * 2 * stride + (g % 2) * stride;
    const d = view.getFloat32(block + 4 * q + 4 * j, true);
    const at = (v) => block + 16 * v + 8 * Math.floor((k % 4) / 2) + 2 * j + (k % 2);
    if (storage === 'q8_0') return d * view.getInt8(at(Math.floor(k / 4)));
    const byte = packed[at(Math.floor((k % 16) / 4))];
    return d * ((k < 16 ? byte & 15 : byte >> 4) - 8);
  };
  return weight;
}

const CASES = [
  { inner: 96, cols: 12, rows: 1 },
  { inner: 70, cols: 11, rows: 7, bias: true }, // a short last block and a short last group
  { inner: 256, cols: 40, rows: 33, bias: true },
];

for (const storage of ['q8_0', 'q4_0']) {
  test(`${storage}: codes and scales are ggml's, the product is the reference's, bit for bit`, () => {
    const random = rng(20261126);
    for (const c of CASES) {
      const w = matrix(random, c.inner, c.cols);
      const a = matrix(random, c.rows, c.inner, false);
      const bias = c.bias ? Float32Array.from({ length: c.cols }, () => random(-1, 1)) : null;
      const got = run(module, { ...c, w, a, bias, storage });
      const blocks = quantizeMatrix(w, c.inner, c.cols, storage);
      // Every stored weight is the reference's d · q (padding reads 0).
      const weight = unpacked(got.packed, c.inner, c.cols, storage);
      for (let col = 0; col < c.cols; col++)
        for (let p = 0; p < Math.ceil(c.inner / 32) * 32; p++) {
          const want = dequantized(blocks[col][Math.floor(p / 32)], p % 32, storage);
          assert.equal(weight(p, col), want, `${storage} ${c.inner}×${c.cols} weight (${p}, ${col})`);
        }
      const want = multiplyQuantized(a, c.rows, c.inner, blocks, storage, bias, c.cols);
      assert.deepEqual(got.out, want, `${storage} ${c.rows}×${c.inner}×${c.cols}`);
    }
  });

  test(`${storage}: GGUF's blocks repack to the same bytes as quantizing the same weights`, () => {
    const random = rng(7);
    const inner = 128,
      cols = 9;
    const w = matrix(random, inner, cols);
    const blocks = quantizeMatrix(w, inner, cols, storage);
    const scope = new HeapScope(module, 'test');
    try {
      const bytes = module._quantBytes(STORAGE[storage], inner, cols);
      const fromFloats = scope.allocBytes(bytes),
        fromGguf = scope.allocBytes(bytes);
      module._quantizeMatrix(scope.floats(w), cols, false, inner, cols, STORAGE[storage], fromFloats);
      const gguf = ggufBytes(blocks, storage);
      const src = scope.allocBytes(gguf.length);
      views(module).HEAPU8.set(gguf, src);
      module._packGgmlBlocks(src, inner, cols, STORAGE[storage], fromGguf);
      const heap = views(module).HEAPU8;
      assert.deepEqual(heap.slice(fromGguf, fromGguf + bytes), heap.slice(fromFloats, fromFloats + bytes));
    } finally {
      scope.release();
    }
  });

  test(`${storage}: within the 8-bit activation codes' bound of the float64 product of the dequantized weights`, () => {
    const random = rng(99);
    const inner = 512,
      cols = 24,
      rows = 5;
    const w = matrix(random, inner, cols, false);
    const a = matrix(random, rows, inner, false);
    const { out } = run(module, { w, a, inner, cols, rows, storage });
    const blocks = quantizeMatrix(w, inner, cols, storage);
    let worst = 0;
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) {
        const { exact, bound } = codesBound(a, inner, r, (p) => dequantized(blocks[c][p >> 5], p % 32, storage));
        const err = Math.abs(out[r * cols + c] - exact);
        assert.ok(err <= bound * 1.001 + 1e-4, `(${r}, ${c}): |${out[r * cols + c]} − ${exact}| > ${bound}`);
        worst = Math.max(worst, err / bound);
      }
    assert.ok(worst > 0.01, 'the bound is not vacuous: some error comes near it');
  });
}

test('NaN and infinite activations reach the outputs they touch', () => {
  const inner = 64,
    cols = 4;
  const w = Float32Array.from({ length: inner * cols }, (_, i) => ((i % 13) - 6) / 7);
  const a = new Float32Array(2 * inner).fill(0.25);
  a[3] = NaN; // row 0, block 0
  a[inner + 40] = Infinity; // row 1, block 1
  for (const storage of ['q8_0', 'q4_0']) {
    const { out } = run(module, { w, a, inner, cols, rows: 2, storage });
    for (const v of out) assert.ok(!Number.isFinite(v), `${storage}: ${v}`);
  }
});

test('float16 scales: the reference rounding agrees with known values', () => {
  // Closed forms: 1/3 → 0x3555 (0.333251953125); 65504 max; 2^-24 least subnormal; 65520 → ∞.
  assert.equal(roundToHalf(Math.fround(1 / 3)), 0.333251953125);
  assert.equal(halfBits(0.333251953125), 0x3555);
  assert.equal(roundToHalf(65504), 65504);
  assert.equal(roundToHalf(65520), Infinity);
  assert.equal(roundToHalf(2 ** -24), 2 ** -24);
  assert.equal(roundToHalf(2 ** -25), 0); // a tie, to even (0)
  assert.equal(roundToHalf(3 * 2 ** -25), 2 ** -23); // a tie, to even (2)
  assert.equal(halfBits(-2), 0xc000);
});

// The same cases through another build, printed as the outputs' bits.
function digestsOf(build) {
  const script = fileURLToPath(new URL('./helpers/print-quantized.js', import.meta.url));
  const flags = build === 'relaxed' ? ['--experimental-wasm-relaxed-simd'] : [];
  return JSON.parse(execFileSync(process.execPath, [...flags, script, build], { encoding: 'utf8' }));
}

test('the same bits in the relaxed build (its i8 dot product) and on two threads', () => {
  const baseline = digestsOf('baseline');
  assert.equal(Object.keys(baseline.kernels).length, 8);
  assert.equal(Object.keys(baseline.model).length, 6);
  // The products alone: the relaxed build's other kernels (fused attention's FMA) differ.
  assert.deepEqual(digestsOf('relaxed').kernels, baseline.kernels, 'relaxed SIMD');
  assert.deepEqual(digestsOf('threads').model, baseline.model, 'two threads, a whole model');
});
