// How fast can wasm SIMD multiply int16 pairs here? Compiles bench/int16-peak/peak.c with emcc
// into build/bench/int16-peak.wasm and times its two loops (12 independent i32x4.dot_i16x8_s +
// i32x4.add chains: operands in registers, then one operand loaded per product) in Node and in
// headless Chromium; medians of 7. Prints a markdown table in GMAC/s (8 multiply-adds a
// product). The quantized prefill's matrices run at 19–22 GMAC/s; onnxruntime-web's int8
// prefill as a whole at 19–27 (docs/quantization.md, "Why not faster").
//   node bench/int16-peak.js
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { launchChromium } from '../tests/helpers/chromium.js';

const root = new URL('../', import.meta.url);
const out = new URL('build/bench/int16-peak.wasm', root);
mkdirSync(new URL('build/bench/', root), { recursive: true });
execFileSync(
  'emcc',
  [
    '-O2',
    '-msimd128',
    '--no-entry',
    '-sSTANDALONE_WASM',
    '-o',
    out.pathname,
    new URL('bench/int16-peak/peak.c', root).pathname,
  ],
  { stdio: 'inherit' },
);
const bytes = readFileSync(out);

// Runs in either engine (serialized into the page as is).
async function measure(bytes) {
  const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes));
  const e = instance.exports;
  const n = 20_000_000;
  const rows = [];
  for (const [name, f] of [
    ['operands in registers', (k) => e.dots(k, 7)],
    ['one operand loaded per product', (k) => e.dotsLoaded(k, 4096, 7)],
  ]) {
    f(1000);
    const t = [];
    for (let r = 0; r < 7; r++) {
      const t0 = performance.now();
      f(n);
      t.push(performance.now() - t0);
    }
    t.sort((a, b) => a - b);
    rows.push({ name, gmacs: (n * 12 * 8) / t[3] / 1e6 });
  }
  return rows;
}

const node = await measure(Array.from(bytes));
const browser = await launchChromium();
const page = await browser.newPage();
const chromium = await page.evaluate(`(${measure.toString()})(${JSON.stringify(Array.from(bytes))})`);
const version = browser.version();
await browser.close();
console.log(
  `\nint16 dot products (i32x4.dot_i16x8_s + i32x4.add, 12 chains), Node ${process.versions.node} and Chromium ${version}:\n`,
);
console.log('| loop | Node (GMAC/s) | Chromium (GMAC/s) |\n|---|---:|---:|');
for (let i = 0; i < node.length; i++) {
  console.log(`| ${node[i].name} | ${node[i].gmacs.toFixed(1)} | ${chromium[i].gmacs.toFixed(1)} |`);
}
