// The threaded builds: init({ threads }) starts a pool of that many threads where threads are
// available (Node; cross-origin isolated pages and their Workers) and falls back to one
// thread, saying why, where not. Every thread count gives the same bits as one thread (the
// work is split so no sum depends on the split), in Node and in Chromium, for both SIMD
// builds. Speed is measured by `npm run bench`, not here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { init } from 'attention-wasm';
import { startServer } from '../scripts/server.js';
import { threadsSuite } from './helpers/threads-suite.js';
import { digests } from './helpers/digests.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const one = await init({ simd: 'baseline' });
const expected = digests(threadsSuite(one));

test('2 and 3 threads give the bits of one thread (baseline build, Node)', async () => {
  for (const threads of [2, 3]) {
    const attn = await init({ simd: 'baseline', threads });
    assert.deepEqual(
      { build: attn.info.build, threads: attn.info.threads, reason: attn.info.threadsReason },
      { build: 'baseline', threads, reason: null },
    );
    assert.deepEqual(digests(threadsSuite(attn)), expected, `${threads} threads`);
    assert.deepEqual(digests(threadsSuite(attn)), expected, `${threads} threads, again (the pool is reused)`);
  }
});

test('the relaxed threaded build gives the bits of the relaxed single-threaded one (Node, flagged child)', () => {
  const source = `
    import { init } from 'attention-wasm';
    import { threadsSuite } from './tests/helpers/threads-suite.js';
    import { digests } from './tests/helpers/digests.js';
    const single = await init({ simd: 'relaxed' });
    const threaded = await init({ simd: 'relaxed', threads: 2 });
    process.stdout.write(JSON.stringify({ info: threaded.info, single: digests(threadsSuite(single)), threaded: digests(threadsSuite(threaded)) }));`;
  const out = JSON.parse(
    execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', source], {
      encoding: 'utf8',
      cwd: root,
    }),
  );
  assert.equal(out.info.build, 'relaxed');
  assert.equal(out.info.threads, 2);
  assert.deepEqual(out.threaded, out.single);
  assert.notDeepEqual(out.single, expected, 'relaxed FMA really is another build');
});

test("threads: 'auto' takes the cores Node reports; the default is one thread", async () => {
  const auto = await init({ threads: 'auto' });
  const cores = availableParallelism();
  assert.equal(auto.info.threads, Math.min(cores, 64));
  assert.equal(auto.info.threadsReason, cores === 1 ? "threads: 'auto' found 1 core" : null);
  const plain = await init();
  assert.equal(plain.info.threads, 1);
  assert.equal(plain.info.threadsReason, null);
  assert.equal(await init({ threads: 1 }), plain, 'threads: 1 is the default instance');
});

test('bad threads options are refused, and wasm bytes must match the thread count', async () => {
  for (const [threads, type, pattern] of [
    [0, RangeError, /got 0$/],
    [1.5, RangeError, /got 1\.5$/],
    [65, RangeError, /got 65$/],
    [-2, RangeError, /got -2$/],
    ['2', TypeError, /got a string/],
    [null, TypeError, /got null/],
    [Number.NaN, RangeError, /got NaN$/],
  ]) {
    await assert.rejects(
      init({ threads }),
      (e) =>
        e instanceof type &&
        /^init: options\.threads must be 'auto' or an integer from 1 to 64, /.test(e.message) &&
        pattern.test(e.message),
      String(threads),
    );
  }
  const threadedBytes = readFileSync(new URL('../dist/attention-threads.wasm', import.meta.url));
  await assert.rejects(
    init({ wasmBinary: threadedBytes }),
    (e) =>
      e instanceof RangeError &&
      /^init: options\.wasmBinary is a threaded build: pass options\.threads/.test(e.message),
  );
  const viaBytes = await init({ wasmBinary: threadedBytes, threads: 2 });
  assert.equal(viaBytes.info.threads, 2);
  assert.deepEqual(digests(threadsSuite(viaBytes)), expected);
  const single = await init({
    wasmBinary: readFileSync(new URL('../dist/attention.wasm', import.meta.url)),
    threads: 2,
  });
  assert.deepEqual(
    [single.info.threads, single.info.threadsReason],
    [1, 'options.wasmBinary is a single-threaded build'],
  );
});

test('a Node script that used threads exits by itself', () => {
  const source =
    "import { init } from 'attention-wasm'; const a = await init({ threads: 2 }); const x = a.tensor(new Float32Array(512 * 64).fill(0.5), [512, 64]); a.attention(x, x, x); process.stdout.write('done');";
  assert.equal(
    execFileSync(process.execPath, ['--input-type=module', '-e', source], {
      encoding: 'utf8',
      cwd: root,
      timeout: 20_000,
    }),
    'done',
  );
});

test("memory estimates count each thread's scratch, and a long run of threaded calls keeps the heap flat", async () => {
  const attn = await init({ simd: 'baseline', threads: 2 });
  const q = attn.tensor(new Float32Array(8 * 128 * 32).fill(0.25), [8, 128, 32]);
  const single = one.estimateMemory('attention', q, q, q).bytes;
  const threaded = attn.estimateMemory('attention', q, q, q).bytes;
  assert.ok(threaded > single, `two workspaces (${threaded} bytes) against one (${single})`);
  attn.attention(q, q, q);
  const before = attn.memory().inUseBytes;
  for (let i = 0; i < 300; i++) attn.attention(q, q, q, { causal: i % 2 === 0 });
  assert.equal(attn.memory().inUseBytes, before);
});

// Runs the suite in a page of a server with or without cross-origin isolation.
async function inChromium({ isolated, worker }) {
  const { server, url } = await startServer({ port: 0, served: ['bindings', 'dist', 'tests'], isolated });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}tests/helpers/blank.html`);
    const run = async () => {
      const { init } = await import('/bindings/js/browser.js');
      const { threadsSuite } = await import('/tests/helpers/threads-suite.js');
      const hex = async (data) =>
        Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', data)), (b) =>
          b.toString(16).padStart(2, '0'),
        ).join('');
      const out = { isolated: globalThis.crossOriginIsolated };
      for (const [name, options] of [
        ['single', { simd: 'baseline' }],
        ['threaded', { simd: 'baseline', threads: 2 }],
        ['relaxed', { simd: 'relaxed' }],
        ['relaxedThreaded', { threads: 2 }],
      ]) {
        const attn = await init(options);
        out[name] = { info: attn.info, digests: {} };
        for (const [case_, data] of threadsSuite(attn)) out[name].digests[case_] = await hex(data);
      }
      return out;
    };
    const result = worker
      ? await page.evaluate(
          (source) =>
            new Promise((resolve) => {
              const w = new Worker('/tests/helpers/run-in-worker.js', { type: 'module' });
              w.onmessage = (e) => resolve(e.data);
              w.postMessage(source);
            }),
          run.toString(),
        )
      : await page.evaluate(run);
    return { result, errors };
  } finally {
    await browser.close();
    server.close();
  }
}

test(
  'Chromium, cross-origin isolated: 2 threads, the relaxed build by default, the same bits as Node',
  { timeout: 120_000 },
  async () => {
    const { result, errors } = await inChromium({ isolated: true });
    assert.deepEqual(errors, []);
    assert.equal(result.isolated, true);
    assert.equal(result.threaded.info.threads, 2);
    assert.deepEqual([result.relaxedThreaded.info.build, result.relaxedThreaded.info.threads], ['relaxed', 2]);
    assert.deepEqual(result.single.digests, expected, 'baseline, 1 thread: the bits of Node');
    assert.deepEqual(result.threaded.digests, expected, 'baseline, 2 threads: the bits of Node');
    assert.deepEqual(
      result.relaxedThreaded.digests,
      result.relaxed.digests,
      'relaxed, 2 threads: the bits of 1 thread',
    );
  },
);

test('Chromium, not isolated: threads fall back to one, and info says why', { timeout: 120_000 }, async () => {
  const { result, errors } = await inChromium({ isolated: false });
  assert.deepEqual(errors, []);
  assert.equal(result.isolated, false);
  assert.equal(result.threaded.info.threads, 1);
  assert.match(
    result.threaded.info.threadsReason,
    /not cross-origin isolated.*Cross-Origin-Opener-Policy: same-origin.*Cross-Origin-Embedder-Policy: require-corp/,
  );
  assert.deepEqual(result.threaded.digests, expected);
});

test(
  'Chromium, inside a module Worker of an isolated page: 2 threads, the same bits',
  { timeout: 120_000 },
  async () => {
    const { result, errors } = await inChromium({ isolated: true, worker: true });
    assert.deepEqual(errors, []);
    assert.equal(result.error, undefined, result.error);
    assert.equal(result.isolated, true);
    assert.equal(result.threaded.info.threads, 2);
    assert.deepEqual(result.threaded.digests, expected);
    assert.deepEqual(result.relaxedThreaded.digests, result.relaxed.digests);
  },
);
