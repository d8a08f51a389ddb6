// The two builds and how init chooses between them: the relaxed-SIMD build where the engine
// validates relaxed SIMD, the SIMD128 build otherwise or on request. Node 20 validates
// relaxed SIMD only with --experimental-wasm-relaxed-simd, so the relaxed build's numeric
// tests run in a child process with that flag (node --test passes it on to every file).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { variantOfBytes, relaxedSimdSupported } from '../bindings/js/variants.js';

const RELAXED_FLAG = '--experimental-wasm-relaxed-simd';
const dist = (file) => readFileSync(new URL(`../dist/${file}`, import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));

// Runs ES module source in a child Node, with or without the flag; returns its stdout.
function nodeEval(source, { relaxed }) {
  const flags = relaxed ? [RELAXED_FLAG] : [];
  return execFileSync(process.execPath, [...flags, '--input-type=module', '-e', source], {
    encoding: 'utf8',
    cwd: root,
  });
}

test('each dist file is recognised as its build from its bytes', () => {
  assert.equal(variantOfBytes(dist('attention.wasm')), 'baseline');
  assert.equal(variantOfBytes(dist('attention-relaxed.wasm')), 'relaxed');
  assert.equal(variantOfBytes(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])), 'baseline', 'no custom section');
  assert.equal(
    variantOfBytes(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 0, 0x7f])),
    'baseline',
    'a truncated section',
  );
});

test('the relaxed probe validates only where the engine has relaxed SIMD', () => {
  assert.equal(relaxedSimdSupported(), false, 'plain Node 20');
  const probe =
    "import { relaxedSimdSupported } from './bindings/js/variants.js'; process.stdout.write(String(relaxedSimdSupported()));";
  assert.equal(nodeEval(probe, { relaxed: true }), 'true');
  // The probe is a real relaxed-SIMD module: the relaxed build itself validates under the flag.
  const whole =
    "import { readFileSync } from 'node:fs'; process.stdout.write(String(WebAssembly.validate(readFileSync('dist/attention-relaxed.wasm'))));";
  assert.equal(nodeEval(whole, { relaxed: true }), 'true');
  assert.equal(nodeEval(whole, { relaxed: false }), 'false');
});

test('init chooses the build: auto, baseline and relaxed', async () => {
  const auto = await init();
  assert.deepEqual(
    { ...auto.info, version: undefined },
    {
      version: undefined,
      build: 'baseline',
      target: 'wasm-simd128',
      simd: true,
      relaxedSimd: false,
      threads: 1,
      threadsReason: null,
      tileRows: 4,
    },
  );
  assert.equal(await init({ simd: 'baseline' }), auto, 'the default instance of the baseline build is shared');
  await assert.rejects(
    init({ simd: 'relaxed' }),
    (e) =>
      e instanceof RangeError &&
      /^init: options\.simd is 'relaxed' but this engine does not validate relaxed SIMD/.test(e.message),
  );
  // With the flag, auto picks the relaxed build.
  const info = JSON.parse(
    nodeEval(
      "import { init } from 'attention-wasm'; const a = await init(); const b = await init({ simd: 'baseline' }); process.stdout.write(JSON.stringify([a.info, b.info]));",
      { relaxed: true },
    ),
  );
  // Node keeps 4-row tiles in the relaxed build too (its V8 spills six; src/kernels/target.h).
  assert.deepEqual(
    info.map(({ build, target, relaxedSimd, tileRows }) => ({ build, target, relaxedSimd, tileRows })),
    [
      { build: 'relaxed', target: 'wasm-relaxed-simd', relaxedSimd: true, tileRows: 4 },
      { build: 'baseline', target: 'wasm-simd128', relaxedSimd: false, tileRows: 4 },
    ],
  );
});

test('init rejects bad simd options and relaxed bytes the engine cannot run', async () => {
  await assert.rejects(
    init({ simd: 'fast' }),
    (e) =>
      e instanceof RangeError && e.message === "init: options.simd must be 'auto', 'relaxed' or 'baseline', got 'fast'",
  );
  await assert.rejects(
    init({ simd: 1 }),
    (e) =>
      e instanceof TypeError && /^init: options\.simd must be 'auto', 'relaxed' or 'baseline', got /.test(e.message),
  );
  await assert.rejects(
    init({ wasmBinary: dist('attention-relaxed.wasm') }),
    (e) => e instanceof RangeError && /^init: .*relaxed/.test(e.message),
  );
  await assert.rejects(
    init({ wasmBinary: dist('attention.wasm'), simd: 'relaxed' }),
    (e) =>
      e instanceof RangeError &&
      e.message === "init: options.simd is 'relaxed' but options.wasmBinary is the baseline build",
  );
  // The module still loads afterwards.
  const attn = await init({ wasmBinary: dist('attention.wasm'), simd: 'baseline' });
  assert.equal(attn.info.build, 'baseline');
});

test('the relaxed build agrees with the baseline to float32 rounding, not bit for bit', (t) => {
  // attention and matmul on both builds in one process (with the flag), max absolute error.
  const source = `
    import { init, tensor } from 'attention-wasm';
    const [relaxed, baseline] = [await init({ simd: 'relaxed' }), await init({ simd: 'baseline' })];
    let seed = 7;
    const random = (n) => Float32Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1);
    const cases = [];
    for (const [lq, lk, d] of [[3, 5, 4], [64, 64, 64], [130, 257, 40], [512, 512, 64]]) {
      const q = tensor(random(lq * d), [lq, d]), k = tensor(random(lk * d), [lk, d]), v = tensor(random(lk * d), [lk, d]);
      cases.push(['attention ' + lq + 'x' + lk + 'x' + d, (api) => api.attention(q, k, v, { causal: lq === lk }).output.data]);
    }
    const a = tensor(random(200 * 300), [200, 300]), b = tensor(random(300 * 100), [300, 100]);
    cases.push(['matmul 200x300x100', (api) => api.matmul(a, b).data]);
    const out = {};
    for (const [name, run] of cases) {
      const x = run(relaxed), y = run(baseline);
      let maxAbs = 0, differ = 0;
      for (let i = 0; i < x.length; i++) {
        maxAbs = Math.max(maxAbs, Math.abs(x[i] - y[i]));
        if (x[i] !== y[i]) differ++;
      }
      out[name] = { maxAbs, differ, n: x.length };
    }
    process.stdout.write(JSON.stringify(out));`;
  const out = JSON.parse(nodeEval(source, { relaxed: true }));
  t.diagnostic(
    Object.entries(out)
      .map(
        ([name, r]) =>
          `${name}: max |relaxed - baseline| ${r.maxAbs.toExponential(2)}, ${r.differ}/${r.n} values differ`,
      )
      .join('; '),
  );
  let anyDiffer = false;
  // Inputs in [-1, 1]: attention outputs are in [-1, 1], matmul sums of 300 products.
  for (const [name, { maxAbs, differ, n }] of Object.entries(out)) {
    const bound = name.startsWith('matmul') ? 300 * 2e-7 : 2e-6;
    assert.ok(maxAbs < bound, `${name}: max absolute difference ${maxAbs} (bound ${bound})`);
    anyDiffer ||= differ > 0;
    assert.ok(n > 0);
  }
  assert.ok(anyDiffer, `the builds differ somewhere (fused multiply-adds round once): ${JSON.stringify(out)}`);
});

test(
  'the numeric suites pass on the relaxed build (float64 references, closed forms, properties)',
  { timeout: 300_000 },
  () => {
    const files = [
      'attention-closed-forms',
      'attention-masks',
      'attention-sweep',
      'attention-properties',
      'block',
      'matmul',
      'multi-head',
      'positional',
      'pretrained-parity',
    ].map((name) => `tests/${name}.test.js`);
    // Throws (and shows the failures) if any test fails.
    const build = nodeEval("import { init } from 'attention-wasm'; process.stdout.write((await init()).info.build);", {
      relaxed: true,
    });
    assert.equal(build, 'relaxed', 'under the flag init() loads the relaxed build, so the suites below test it');
    try {
      // Without NODE_TEST_CONTEXT, or the nested runner reports to this one instead of running.
      const env = { ...process.env };
      delete env.NODE_TEST_CONTEXT;
      execFileSync(process.execPath, [RELAXED_FLAG, '--test', '--test-reporter=dot', ...files], {
        encoding: 'utf8',
        cwd: root,
        stdio: 'pipe',
        env,
      });
    } catch (error) {
      assert.fail(`the relaxed build fails the numeric suites:\n${error.stdout}\n${error.stderr}`);
    }
  },
);
