// Large scores (1e2 … 1e30, both signs) through the fused kernel, against the float64
// reference: softmax depends only on differences between scores, and the kernel must keep
// them when the scores themselves are large (ONNX's softmax_large_number: scores near 1e4).
// The kernel once multiplied every score by scale·log2(e) in float32 before subtracting the
// row max, which rounded 1e4-sized scores by ~1e-3 (2.7e-4 relative error at 1e4, 4e-3 at 1e5).
// Inputs are chosen so every score (and masked score) is exact in float32, so any error is
// the kernel's: q = ±1 or ±2, k a column of float32 values near ±B, scale a power of two
// (or the default 1/√1 = 1), or the magnitude in an additive mask over zero scores.
// Both builds: the baseline here, the relaxed one (FMA in the score tiles) in a child Node with
// --experimental-wasm-relaxed-simd running this same file.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { assertClose, rng, randomTensor } from './helpers/assert.js';

const build = process.env.ATTN_LARGE_SCORES_BUILD ?? 'baseline';
const attn = await init({ simd: build });
const LQ = 7,
  LK = 40; // a tail of query rows, and keys past one 32-key block
const MAGNITUDES = [1e2, 1e3, 1e4, 1e5, 1e6, 1e8, 1e12, 1e20, 1e30];
const random = rng(97);
const v = randomTensor(random, [LK, 3]);

// A column of LK float32 values sign·B·(1 + j·2^-20): distinct, increasing in j for B > 0.
const column = (sign, B) => Float32Array.from({ length: LK }, (_, j) => Math.fround(sign * B * (1 + j * 2 ** -20)));
const tensor = (data, shape) => ({ data, shape });

function check(q, k, options, label) {
  const got = attn.attention(q, k, v, options).output;
  // The reference reads a boolean mask from its `boolean` flag.
  const reference =
    options.mask?.data instanceof Uint8Array ? { ...options, mask: { ...options.mask, boolean: true } } : options;
  const expected = referenceAttention(q, k, v, reference).output;
  assertClose(got, expected, { atol: 1e-6, rtol: 2e-6, label: `${build} ${label}` });
}

for (const sign of [1, -1]) {
  for (const B of MAGNITUDES) {
    const name = `${sign < 0 ? '-' : ''}${B.toExponential(0)}`;
    test(`${build}: scores near ${name} (no mask, boolean mask, causal, scale 0.125 and -0.5), and an additive mask near ${name}`, () => {
      const q = tensor(
        Float32Array.from({ length: LQ }, (_, i) => [1, 2, -1, 1, 2, 1, -2][i]),
        [LQ, 1],
      );
      const k = tensor(column(sign, B), [LK, 1]);
      check(q, k, { scale: 1 }, 'no mask');
      check(q, k, {}, 'default scale');
      check(q, k, { scale: 0.125 }, 'scale 0.125');
      check(q, k, { scale: -0.5 }, 'scale -0.5');
      check(q, k, { causal: true, causalAlign: 'bottom-right', scale: 1 }, 'causal');
      const allowed = Uint8Array.from({ length: LQ * LK }, (_, i) => (i % 5 === 3 ? 0 : 1));
      check(q, k, { mask: tensor(allowed, [LQ, LK]), scale: 1 }, 'boolean mask');
      // The magnitude in the mask: zero scores, mask near sign·B, some keys blocked.
      const zeros = tensor(new Float32Array(LK), [LK, 1]);
      const mask = tensor(
        Float32Array.from({ length: LQ * LK }, (_, i) => (i % 7 === 2 ? -Infinity : column(sign, B)[i % LK])),
        [LQ, LK],
      );
      check(q, zeros, { mask, scale: 1 }, 'additive mask');
    });
  }
}

test(`${build}: ONNX softmax_large_number as attention: scores 10000 … 10003 weigh as 0 … 3`, () => {
  const k = tensor(new Float32Array([10000, 10001, 10002, 10003]), [4, 1]);
  const values = tensor(new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]), [4, 4]); // identity: output = weights
  const { output } = attn.attention(tensor(new Float32Array([1]), [1, 1]), k, values, { scale: 1 });
  const e = [0, 1, 2, 3].map((x) => Math.exp(x - 3));
  const z = e.reduce((a, b) => a + b);
  // softmax([0, 1, 2, 3]) = 0.0320586, 0.0871443, 0.2368828, 0.6439142 (ONNX's expected output)
  assertClose(
    output,
    tensor(
      Float64Array.from(e, (x) => x / z),
      [1, 4],
    ),
    { atol: 1e-7, rtol: 1e-6, label: 'softmax_large_number' },
  );
});

if (build === 'baseline') {
  test('the relaxed build passes the same cases', { timeout: 120_000 }, () => {
    const file = fileURLToPath(import.meta.url);
    // Without NODE_TEST_CONTEXT the child reports as a test run of its own (TAP on stdout).
    const { NODE_TEST_CONTEXT, ...env } = process.env;
    void NODE_TEST_CONTEXT;
    const run = spawnSync(
      process.execPath,
      ['--experimental-wasm-relaxed-simd', '--test', '--test-reporter=tap', file],
      {
        env: { ...env, ATTN_LARGE_SCORES_BUILD: 'relaxed' },
        encoding: 'utf8',
      },
    );
    assert.equal(
      run.status,
      0,
      `${run.stdout
        .split('\n')
        .filter((l) => /not ok|Error|expected|actual|mismatch/.test(l))
        .slice(0, 20)
        .join('\n')}`,
    );
    assert.match(run.stdout, /# pass 19\n# fail 0/);
  });
}
