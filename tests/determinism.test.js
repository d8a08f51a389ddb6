// Determinism: the same inputs give bit-identical outputs run to run, in a fresh instance or
// after thousands of other calls (other sizes, failures, freed layers: a different heap
// layout and different kernel workspaces), and in Chromium as in Node, for each build (the
// same wasm; the relaxed build runs in Node with --experimental-wasm-relaxed-simd).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { init } from 'attention-wasm';
import { startServer } from '../scripts/server.js';
import { determinismSuite } from './helpers/determinism-suite.js';
import { digests } from './helpers/digests.js';
import { rng, randomTensor } from './helpers/assert.js';

const attn = await init({ simd: 'baseline' });
const wasmBinary = readFileSync(new URL('../dist/attention.wasm', import.meta.url));

// The suite's digests for one build, computed in a child Node process.
function nodeDigests(build) {
  const script = fileURLToPath(new URL('./helpers/print-digests.js', import.meta.url));
  const flags = build === 'relaxed' ? ['--experimental-wasm-relaxed-simd'] : [];
  const out = JSON.parse(execFileSync(process.execPath, [...flags, script, build], { encoding: 'utf8' }));
  assert.equal(out.build, build);
  return out.digests;
}

// Many calls of other sizes, some failing, layers created and dropped.
function churn(api, calls, seed) {
  const random = rng(seed);
  for (let i = 0; i < calls; i++) {
    const L = 1 + Math.floor(random(0, 1) * 90),
      d = 1 + Math.floor(random(0, 1) * 40);
    const q = randomTensor(random, [L, d]);
    try {
      if (i % 3 === 0) api.attention(q, q, q, { returnWeights: i % 2 === 0, causal: i % 5 === 0 });
      else if (i % 3 === 1) api.matmul(q, randomTensor(random, [d, 1 + (i % 17)]));
      else api.attention(q, randomTensor(random, [L, d + 1]), q); // a RangeError: dk differs
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
    }
    if (i % 50 === 0) new api.MultiHeadAttention({ dModel: 8 * (1 + (i % 4)), numHeads: 2 }).dispose();
  }
}

test('bit-identical run to run, in a fresh instance, and after 3,000 other calls', async () => {
  const first = digests(determinismSuite(attn));
  assert.deepEqual(digests(determinismSuite(attn)), first, 'second run in the same instance');
  const fresh = await init({ wasmBinary });
  assert.deepEqual(digests(determinismSuite(fresh)), first, 'a fresh instance');
  churn(attn, 3000, 99);
  assert.deepEqual(digests(determinismSuite(attn)), first, 'after 3,000 other calls');
  assert.notDeepEqual(digests(determinismSuite(attn, 2)), first, 'another seed gives other numbers');
});

test('the relaxed build is bit-identical run to run and across processes, and really another build', () => {
  const relaxed = nodeDigests('relaxed');
  assert.deepEqual(nodeDigests('relaxed'), relaxed, 'a second process');
  // Fused multiply-adds round once: the attention results differ from the baseline's bits.
  assert.notDeepEqual(relaxed, digests(determinismSuite(attn)), 'the relaxed build gives the baseline bits');
  assert.deepEqual(nodeDigests('baseline'), digests(determinismSuite(attn)), 'the baseline in a child process');
});

// The relaxed build runs 6-row register tiles in Chromium and 4-row ones in Node
// (src/kernels/target.h): equal digests also say the tile height changes no bit.
test(
  'Chromium computes the same bits as Node, for each build (relaxed: 6-row tiles against 4)',
  { timeout: 120_000 },
  async () => {
    const expected = { baseline: digests(determinismSuite(attn)), relaxed: nodeDigests('relaxed') };
    const { server, url } = await startServer({ port: 0, served: ['bindings', 'dist', 'tests'] });
    const browser = await launchChromium(['--disable-quic', '--disable-sync']);
    try {
      const page = await browser.newPage();
      await page.goto(`${url}tests/helpers/determinism-suite.js`); // any page of the origin
      const inBrowser = await page.evaluate(async () => {
        const { init } = await import('/bindings/js/browser.js');
        const { determinismSuite } = await import('/tests/helpers/determinism-suite.js');
        const hex = async (data) =>
          Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', data)), (b) =>
            b.toString(16).padStart(2, '0'),
          ).join('');
        const out = { tileRows: {} };
        for (const simd of ['baseline', 'relaxed']) {
          const api = await init({ simd });
          out.tileRows[api.info.build] = api.info.tileRows;
          out[api.info.build] = {};
          for (const [name, data] of determinismSuite(api)) out[api.info.build][name] = await hex(data);
        }
        out.defaultBuild = (await init()).info.build; // Chromium validates relaxed SIMD
        return out;
      });
      assert.equal(inBrowser.defaultBuild, 'relaxed');
      assert.deepEqual(inBrowser.tileRows, { baseline: 4, relaxed: 6 });
      assert.deepEqual(inBrowser.baseline, expected.baseline);
      assert.deepEqual(inBrowser.relaxed, expected.relaxed);
    } finally {
      await browser.close();
      server.close();
    }
  },
);
