// The quantized products in headless Chromium give Node's bits: every storage (Q8_0, Q4_0 from
// floats; Q4_K, Q6_K from GGUF blocks), 1 and 13 rows, through the baseline module and the
// relaxed one (whose nibble blocks take i16x8.relaxed_dot_i8x16_i7x16_s: Chromium's own
// lowering of it, not Node's), against Node's baseline module.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import createModule from '../dist/attention.js';
import { contractOf } from '../bindings/js/contract.js';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';
import { rng } from './helpers/assert.js';
import { halfBits, roundToHalf } from './helpers/quantized-reference.js';

// The cases, as plain arrays (they travel to the page as JSON): weights as floats (Q8_0, Q4_0)
// or GGUF blocks (Q4_K, Q6_K), and activations.
function cases() {
  const random = rng(1126);
  const out = [];
  for (const storage of ['kQ8_0', 'kQ4_0', 'kQ4_K', 'kQ6_K'])
    for (const [rows, inner, cols] of [
      [1, 512, 36],
      [13, 768, 21],
    ]) {
      const a = Array.from({ length: rows * inner }, () => random(-3, 3));
      if (storage === 'kQ8_0' || storage === 'kQ4_0') {
        out.push({ storage, rows, inner, cols, a, w: Array.from({ length: inner * cols }, () => random(-1, 1)) });
        continue;
      }
      const size = storage === 'kQ4_K' ? 144 : 210;
      const blocks = Array.from({ length: ((inner * cols) / 256) * size }, () => Math.floor(random(0, 256)));
      for (let at = 0; at < blocks.length; at += size) {
        const bits = halfBits(roundToHalf(1e-3 * random(0.5, 1.5)));
        for (const h of storage === 'kQ4_K' ? [at, at + 2] : [at + 208])
          [blocks[h], blocks[h + 1]] = [bits & 0xff, bits >> 8];
      }
      out.push({ storage, rows, inner, cols, a, blocks });
    }
  return out;
}

// Runs the cases in one module: each output as its float32 bits. (Also the page's code: it is
// sent there as source, so it names nothing outside itself.)
function runCases(module, storages, all) {
  const results = [];
  for (const c of all) {
    const code = storages[c.storage];
    const heap = () => ({ u8: new Uint8Array(module.HEAPU8.buffer), f32: new Float32Array(module.HEAPU8.buffer) });
    const bytes = module._quantBytes(code, c.inner, c.cols);
    const wq = module._malloc(bytes);
    const a = module._malloc(4 * c.a.length);
    const out = module._malloc(4 * c.rows * c.cols);
    heap().f32.set(c.a, a >>> 2);
    if (c.w) {
      const w = module._malloc(4 * c.w.length);
      heap().f32.set(c.w, w >>> 2);
      module._quantizeMatrix(w, c.cols, false, c.inner, c.cols, code, wq);
      module._free(w);
    } else {
      const src = module._malloc(c.blocks.length);
      heap().u8.set(c.blocks, src);
      module._packGgmlBlocks(src, c.inner, c.cols, code, wq);
      module._free(src);
    }
    const status = module._multiplyQuantized(a, c.rows, c.inner, wq, code, 0, c.cols, out);
    const values = heap().f32.slice(out >>> 2, (out >>> 2) + c.rows * c.cols);
    results.push({ status, bits: Array.from(new Uint32Array(values.buffer)) });
    for (const p of [wq, a, out]) module._free(p);
  }
  return results;
}

test(
  "the quantized products in Chromium (baseline and relaxed modules) are Node's, bit for bit",
  { timeout: 120_000 },
  async () => {
    const all = cases();
    const node = await createModule({ wasmBinary: readFileSync(new URL('../dist/attention.wasm', import.meta.url)) });
    const expected = runCases(node, contractOf(node).matrixStorages, all);
    assert.ok(expected.every((r) => r.status === 0));
    const { server, url } = await startServer({ port: 0, served: ['bindings', 'dist', 'tests'] });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${url}tests/helpers/blank.html`);
      const got = await page.evaluate(
        async ({ all, source }) => {
          const runCases = new Function(`return (${source})`)();
          const { contractOf } = await import('/bindings/js/contract.js');
          const out = {};
          for (const build of ['attention', 'attention-relaxed']) {
            const createModule = (await import(`/dist/${build}.js`)).default;
            const module = await createModule({ locateFile: (f) => `/dist/${f}` });
            out[build] = runCases(module, contractOf(module).matrixStorages, all);
          }
          return out;
        },
        { all, source: runCases.toString() },
      );
      for (const [build, results] of Object.entries(got)) {
        results.forEach((r, i) => {
          const c = all[i];
          assert.deepEqual(r, expected[i], `${build}: ${c.storage} ${c.rows}×${c.inner}×${c.cols}`);
        });
      }
    } finally {
      await browser.close();
      server.close();
    }
  },
);
