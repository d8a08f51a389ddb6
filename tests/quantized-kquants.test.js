// GGUF's K-quants (Q4_K, Q6_K) kept as their blocks (src/kernels/quantized.h): random
// super-blocks repacked by the module, then its integer product against the float32-exact
// reference of tests/helpers/quantized-reference.js (written from ggml-common.h's structs,
// element by element), bit for bit; the reference's weights against the loader's dequantizer
// (gguf_quants.js, ggml's loops transliterated), exactly; the product within the activation
// codes' bound of the float64 product of the dequantized weights. (The same bits in the
// relaxed build and on two threads: quantized.test.js, with helpers/print-quantized.js.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import createModule from '../dist/attention.js';
import { contractOf } from '../bindings/js/contract.js';
import { HeapScope, views } from '../bindings/js/heap.js';
import { dequantize } from '../bindings/js/models/gguf_quants.js';
import { parseGguf, StreamReader } from '../bindings/js/models/gguf.js';
import { rng } from './helpers/assert.js';
import {
  kQuantRow,
  kQuantWeight,
  multiplyQuantized,
  roundToHalf,
  halfBits,
  codesBound,
} from './helpers/quantized-reference.js';

const module = await createModule({ wasmBinary: readFileSync(new URL('../dist/attention.wasm', import.meta.url)) });
const storages = contractOf(module).matrixStorages;
const TYPES = {
  q4_k: { storage: storages.kQ4_K, ggml: 12, bytes: 144 },
  q6_k: { storage: storages.kQ6_K, ggml: 14, bytes: 210 },
};

// `cols` GGUF rows of `inner` weights in random super-blocks: every byte random but the
// float16 scales (small positive normals, as real files have).
function randomRows(random, type, inner, cols) {
  const { bytes } = TYPES[type];
  const out = new Uint8Array((cols * inner * bytes) / 256);
  for (let i = 0; i < out.length; i++) out[i] = Math.floor(random(0, 256));
  const setHalf = (at, value) => {
    const bits = halfBits(roundToHalf(value));
    out[at] = bits & 0xff;
    out[at + 1] = bits >> 8;
  };
  for (let at = 0; at < out.length; at += bytes) {
    if (type === 'q4_k') {
      setHalf(at, random(0.5, 1.5) * 2e-3); // d
      setHalf(at + 2, random(0.5, 1.5) * 1e-3); // dmin
    } else {
      setHalf(at + 208, random(0.5, 1.5) * 1e-3);
    }
  }
  return out;
}

// The reference's blocks[c][b] of those rows.
const referenceBlocks = (rows, type, inner, cols) => {
  const rowBytes = (inner / 256) * TYPES[type].bytes;
  return Array.from({ length: cols }, (_, c) =>
    kQuantRow(rows.subarray(c * rowBytes, (c + 1) * rowBytes), inner, type),
  );
};

// Packs the rows with the module, then multiplies: the output.
function run(mod, { type, gguf, inner, cols, a, rows, bias }) {
  const { storage } = TYPES[type];
  const scope = new HeapScope(mod, 'test');
  try {
    const src = scope.allocBytes(gguf.length);
    views(mod).HEAPU8.set(gguf, src);
    const packed = scope.allocBytes(mod._quantBytes(storage, inner, cols));
    mod._packGgmlBlocks(src, inner, cols, storage, packed);
    const out = scope.alloc(rows * cols);
    const status = mod._multiplyQuantized(
      scope.floats(a),
      rows,
      inner,
      packed,
      storage,
      bias ? scope.floats(bias) : 0,
      cols,
      out,
    );
    assert.equal(status, 0);
    return views(mod).HEAPF32.slice(out >>> 2, (out >>> 2) + rows * cols);
  } finally {
    scope.release();
  }
}

const activations = (random, rows, inner) =>
  Float32Array.from({ length: rows * inner }, (_, i) => (random(-1, 1) + random(-1, 1)) * (1 + (i % 5)));

// Panels of 8 columns: a lone last group (cols 12), a short one (cols 9, 33), one column; rows
// in tiles of 4 and the rest one by one.
const CASES = [
  { inner: 256, cols: 1, rows: 1 },
  { inner: 256, cols: 12, rows: 4, bias: true },
  { inner: 512, cols: 9, rows: 7 },
  { inner: 768, cols: 33, rows: 9, bias: true },
];

for (const type of Object.keys(TYPES)) {
  test(`${type}: the product of the repacked blocks is the reference's, bit for bit`, () => {
    const random = rng(type === 'q4_k' ? 411 : 611);
    for (const c of CASES) {
      const rows = randomRows(random, type, c.inner, c.cols);
      const a = activations(random, c.rows, c.inner);
      const bias = c.bias ? Float32Array.from({ length: c.cols }, () => random(-1, 1)) : null;
      const got = run(module, { ...c, type, gguf: rows, a, bias });
      const want = multiplyQuantized(
        a,
        c.rows,
        c.inner,
        referenceBlocks(rows, type, c.inner, c.cols),
        type,
        bias,
        c.cols,
      );
      assert.deepEqual(got, want, `${type} ${c.rows}×${c.inner}×${c.cols}`);
    }
  });

  test(`${type}: the reference's weights are the loader's ggml dequantizer's, exactly`, () => {
    const random = rng(type === 'q4_k' ? 5 : 6);
    const inner = 1024;
    const rows = randomRows(random, type, inner, 1);
    const ggml = dequantize(TYPES[type].ggml, rows, new Float32Array(inner));
    const blocks = kQuantRow(rows, inner, type);
    for (let e = 0; e < inner; e++) {
      assert.equal(kQuantWeight(blocks[Math.floor(e / 32)], e % 32, type), ggml[e], `${type} weight ${e}`);
    }
    // Not a vacuous equality: the weights spread over many values of both signs.
    assert.ok(new Set(ggml).size > 100 && Math.min(...ggml) < 0 && Math.max(...ggml) > 0);
  });

  test(`${type}: within the 8-bit activation codes' bound of the float64 product of the dequantized weights`, () => {
    const random = rng(type === 'q4_k' ? 77 : 78);
    const inner = 512,
      cols = 16,
      nrows = 5;
    const rows = randomRows(random, type, inner, cols);
    const a = activations(random, nrows, inner);
    const out = run(module, { type, gguf: rows, inner, cols, a, rows: nrows });
    const rowBytes = (inner / 256) * TYPES[type].bytes;
    let worst = 0;
    for (let c = 0; c < cols; c++) {
      const w = dequantize(TYPES[type].ggml, rows.subarray(c * rowBytes, (c + 1) * rowBytes), new Float64Array(inner));
      for (let r = 0; r < nrows; r++) {
        const { exact, bound } = codesBound(a, inner, r, (p) => w[p]);
        const err = Math.abs(out[r * cols + c] - exact);
        assert.ok(err <= bound * 1.001 + 1e-5, `(${r}, ${c}): |${out[r * cols + c]} − ${exact}| > ${bound}`);
        worst = Math.max(worst, err / bound);
      }
    }
    assert.ok(worst > 0.01, `the bound is not vacuous: the worst error is ${worst} of it`);
  });
}

test("kquants.gguf (scripts/make-gguf-fixtures.py): the reference's weights are the fixture's float64 ones, the module's product the reference's", async () => {
  const url = new URL('./fixtures/gguf/kquants.gguf', import.meta.url);
  const bytes = new Uint8Array(readFileSync(url));
  const expected = JSON.parse(readFileSync(new URL('./fixtures/gguf/kquants.json', import.meta.url), 'utf8'));
  const { tensors } = await parseGguf(
    'test',
    'kquants.gguf',
    new StreamReader(
      (async function* () {
        yield bytes;
      })(),
    ),
    bytes.length,
  );
  const random = rng(3);
  for (const type of Object.keys(TYPES)) {
    const t = tensors.get(type); // q4_k: one row of 512; q6_k: two rows of 256
    const [inner, cols] = type === 'q4_k' ? [512, 1] : [256, 2];
    const gguf = bytes.subarray(t.begin, t.end);
    const blocks = referenceBlocks(gguf, type, inner, cols);
    for (let e = 0; e < inner * cols; e++) {
      const c = Math.floor(e / inner),
        p = e % inner;
      const want = Math.fround(Number(expected[type][e]));
      assert.equal(kQuantWeight(blocks[c][Math.floor(p / 32)], p % 32, type), want, `${type} weight ${e}`);
    }
    const a = activations(random, 3, inner);
    const got = run(module, { type, gguf, inner, cols, a, rows: 3 });
    assert.deepEqual(got, multiplyQuantized(a, 3, inner, blocks, type, null, cols), type);
  }
});
