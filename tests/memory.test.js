// Sizes past the wasm heap: every public function and class refuses them with a RangeError
// naming the function, the tensor and the bytes, before allocating; the module keeps working
// (bit-identical results afterwards). attn.estimateMemory is compared with the heap's measured
// high-water mark in fresh module instances.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { init } from 'attention-wasm';
import { rng, randomTensor } from './helpers/assert.js';

const attn = await init();
const wasmBinary = readFileSync(new URL('../dist/attention.wasm', import.meta.url));
const GiB = 1024 ** 3;

// A fixed computation through attention (both paths), a layer and the encoder: its bytes.
function canary(api = attn) {
  const random = rng(7);
  const q = randomTensor(random, [2, 9, 8]),
    k = randomTensor(random, [2, 13, 8]),
    v = randomTensor(random, [2, 13, 5]);
  const mask = { data: Uint8Array.from({ length: 13 }, (_, j) => j % 3 !== 0), shape: [13] };
  const mha = new api.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 3 });
  const layer = new api.TransformerEncoderLayer({ dModel: 8, numHeads: 2, dFF: 16, seed: 4, norm: 'pre' });
  try {
    const parts = [
      api.attention(q, k, v, { mask }).output.data,
      api.attention(q, k, v, { mask, returnWeights: true }).weights.data,
      mha.forward(q, k, k, { causal: true }).output.data,
      layer.forward(q).data,
      api.laplacianEncoding(
        {
          numNodes: 6,
          edges: [
            [0, 1],
            [1, 2],
            [2, 3],
            [3, 4],
            [4, 5],
            [5, 0],
          ],
        },
        2,
      ).data,
    ];
    return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  } finally {
    mha.dispose();
    layer.dispose();
  }
}

// Asserts fn() throws a RangeError with exactly `message` and leaves the heap as it was.
function assertRefused(fn, message) {
  const before = attn.memory().inUseBytes;
  assert.throws(fn, (e) => {
    assert.ok(e instanceof RangeError, `expected a RangeError, got ${e?.constructor?.name}: ${e?.message ?? e}`);
    if (message instanceof RegExp) assert.match(e.message, message);
    else assert.equal(e.message, message);
    return true;
  });
  assert.equal(attn.memory().inUseBytes, before, 'heap in use after the refused call');
}

test("the issue's three calls are RangeErrors with the bytes needed; results afterwards are bit-identical", () => {
  const reference = canary();
  const tall = { data: new Float32Array(65536), shape: [65536, 1] };
  assertRefused(
    () => attn.attention(tall, tall, tall, { returnWeights: true }),
    'attention: the weights [65536, 65536] need 16.0 GiB; the wasm heap holds at most 4.0 GiB',
  );
  const one = { data: new Float32Array(1), shape: [1, 1] };
  const big = { data: new Float32Array(2 ** 30), shape: [2 ** 30, 1] }; // 4 GiB of JS memory
  assertRefused(
    () => attn.attention(one, big, big, { returnWeights: true }),
    'attention: the k [1073741824, 1] need 4.0 GiB; the wasm heap holds at most 4.0 GiB',
  );
  assertRefused(
    () => attn.laplacianEncoding({ numNodes: 100000, edges: [[0, 1]] }, 2),
    'laplacianEncoding: the Laplacian [100000, 100000] (float64) and eigensolver need 149.1 GiB; the wasm heap holds at most 4.0 GiB',
  );
  assert.ok(canary().equals(reference), 'canary differs after the refused calls');
});

test('every public function and class refuses sizes past the heap, naming itself and the tensor', () => {
  const reference = canary();
  const x = (shape) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)), shape });
  const row = x([1, 2 ** 16]);
  const cases = [
    [
      () => attn.attention(x([4096, 1]), x([65536, 1]), x([65536, 1]), { trace: true }),
      /^attention: the weights \[4096, 65536\] need 1\.0 GiB; .*|^attention: this call needs 4\.0 GiB of wasm memory in all \(the largest part: the weights \[4096, 65536\], 1\.0 GiB\); the wasm heap holds at most 4.0 GiB$/,
    ],
    [
      () =>
        attn.attention(x([1, 1]), x([1, 1]), x([1, 1]), {
          mask: { data: new Uint8Array(1), shape: [1] },
          keepMask: undefined,
          causal: true,
          returnWeights: true,
        }),
      null,
    ],
    [() => attn.matmul(x([1, 2 ** 15]), { data: new Float32Array(0), shape: [2 ** 15, 0] }), null],
    [
      () =>
        attn.matmul({ data: new Float32Array(0), shape: [3, 0] }, { data: new Float32Array(0), shape: [0, 2 ** 30] }),
      'matmul: the output [3, 1073741824] would need 12.0 GiB; results are limited to what the wasm heap holds, 4.0 GiB',
    ],
    [() => attn.matmul(row, { data: new Float32Array(2 ** 16), shape: [2 ** 16, 1] }), null],
    [
      () => attn.matmul(x([2 ** 13, 1]), x([1, 2 ** 17])),
      'matmul: the output [8192, 131072] need 4.0 GiB; the wasm heap holds at most 4.0 GiB',
    ],
    [
      () => new attn.MultiHeadAttention({ dModel: 2 ** 15, numHeads: 1 }),
      'MultiHeadAttention: the weight wq [32768, 32768] need 4.0 GiB; the wasm heap holds at most 4.0 GiB',
    ],
    [
      () => new attn.TransformerEncoderLayer({ dModel: 64, numHeads: 1, dFF: 2 ** 24 }),
      'TransformerEncoderLayer: the weight w1 [64, 16777216] need 4.0 GiB; the wasm heap holds at most 4.0 GiB',
    ],
    [
      () => attn.sinusoidalEncoding(2 ** 20, 2 ** 10),
      'sinusoidalEncoding: the encoding [1048576, 1024] need 4.0 GiB; the wasm heap holds at most 4.0 GiB',
    ],
    [
      () => attn.alibiBias(64, 8192),
      'alibiBias: the bias [64, 8192, 8192] need 16.0 GiB; the wasm heap holds at most 4.0 GiB',
    ],
    [
      () => attn.alibiSlopes(2 ** 30),
      'alibiSlopes: the slopes (float64) [1073741824] need 8.0 GiB; the wasm heap holds at most 4.0 GiB',
    ],
    [
      () => attn.laplacianEncoding({ numNodes: 20000, edges: [] }, 1),
      'laplacianEncoding: the Laplacian [20000, 20000] (float64) and eigensolver need 6.0 GiB; the wasm heap holds at most 4.0 GiB',
    ],
    [
      () => attn.feedForward(x([256, 64]), { w1: x([64, 2 ** 22]), w2: x([2 ** 22, 64]) }),
      'feedForward: the hidden layer and packed weights need 5.0 GiB; the wasm heap holds at most 4.0 GiB',
    ],
    [
      () => attn.setPool({ data: new Float32Array(0), shape: [2 ** 21, 0, 2 ** 12] }),
      'setPool: the output [2097152, 4096] would need 32.0 GiB; results are limited to what the wasm heap holds, 4.0 GiB',
    ],
  ];
  for (const [fn, message] of cases) {
    if (message === null) {
      fn();
      continue;
    } // valid small calls between the refused ones
    assertRefused(fn, message);
  }
  // MultiHeadAttention.forward and the encoder layer: a sequence whose weights need 16 GiB.
  const mha = new attn.MultiHeadAttention({ dModel: 2, numHeads: 1 });
  const layer = new attn.TransformerEncoderLayer({ dModel: 2, numHeads: 1, dFF: 4 });
  try {
    const long = x([65536, 2]);
    assertRefused(
      () => mha.forward(long, long, long, { returnWeights: true }),
      'MultiHeadAttention.forward: the weights [1, 1, 65536, 65536] need 16.0 GiB; the wasm heap holds at most 4.0 GiB',
    );
    const huge = x([1, 2 ** 28, 2]); // 2 GiB of input
    assertRefused(
      () => layer.forward(huge),
      'TransformerEncoderLayer.forward: the sub-layer streams and kernel workspace need 18.0 GiB; the wasm heap holds at most 4.0 GiB',
    );
  } finally {
    mha.dispose();
    layer.dispose();
  }
  assert.ok(canary().equals(reference), 'canary differs after the refused calls');
});

test('a call larger than the free heap says how much is free; after dispose() it runs', async () => {
  const api = await init({ wasmBinary }); // a fresh instance: its heap is ours alone
  const reference = canary(api);
  const layers = [];
  // Fill about 3.5 GiB of the 4 GiB heap with layers' weights (each dModel 4096: 4 × 64 MiB).
  for (let i = 0; i < 14; i++) layers.push(new api.MultiHeadAttention({ dModel: 4096, numHeads: 8, bias: false }));
  const x = { data: new Float32Array(2 ** 27), shape: [2 ** 15, 2 ** 12] }; // 512 MiB
  assert.throws(
    () => api.layerNorm(x),
    (e) =>
      e instanceof RangeError &&
      /^layerNorm: this call needs 512\.0 MiB of wasm memory but only \d+\.\d MiB of the 4\.0 GiB heap are free/.test(
        e.message,
      ),
  );
  const estimate = api.estimateMemory('layerNorm', x);
  assert.equal(estimate.bytes, 2 ** 29);
  assert.equal(estimate.fits, false);
  for (const layer of layers.splice(0, 3)) layer.dispose();
  assert.equal(api.estimateMemory('layerNorm', x).fits, true);
  const out = api.layerNorm(x);
  assert.equal(out.data[0], 0); // a zero row normalises to zeros
  for (const layer of layers) layer.dispose();
  assert.ok(canary(api).equals(reference), 'canary differs after the full heap');
});

// The peak of the heap during one call, measured in a fresh instance (the high-water mark of
// dlmalloc's footprint), against the estimate: within 4% + 16 KiB (page granularity).
test('estimateMemory matches the measured peak of each call', async () => {
  const random = rng(11);
  const t = (shape) => randomTensor(random, shape);
  const q = t([2, 4, 300, 64]),
    k = t([2, 4, 500, 64]),
    v = t([2, 4, 500, 48]);
  const A = t([700, 300]),
    B = t([300, 500]);
  const x = t([3, 200, 64]);
  const w1 = t([64, 256]),
    w2 = t([256, 64]);
  const edges = Array.from({ length: 399 }, (_, i) => [i, i + 1]);
  const cases = [
    ['attention', [q, k, v]],
    ['attention', [q, k, v, { returnWeights: true }]],
    ['attention', [q, k, v, { trace: true, causal: true }]],
    ['matmul', [A, B]],
    ['feedForward', [x, { w1, w2, activation: 'gelu' }]],
    ['layerNorm', [x]],
    ['applyRope', [x]],
    ['setPool', [x, 'mean']],
    ['sinusoidalEncoding', [1000, 256]],
    ['alibiBias', [8, 300, 300]],
    ['laplacianEncoding', [{ numNodes: 400, edges }, 4]],
  ];
  const layers = [
    ['MultiHeadAttention', { dModel: 64, numHeads: 4, numKvHeads: 2 }, [{}, { returnWeights: true }, { trace: true }]],
    ['TransformerEncoderLayer', { dModel: 64, numHeads: 4, dFF: 256, norm: 'pre' }, [{}]],
    ['TransformerEncoderLayer', { dModel: 64, numHeads: 4, dFF: 256, norm: 'post' }, [{ causal: true }]],
  ];
  const measure = async (label, name, args, run) => {
    const api = await init({ wasmBinary });
    const setup = run.setup?.(api);
    const estimate = api.estimateMemory(name, ...(setup ? [setup, ...args] : args));
    const before = api.memory();
    run(api, setup);
    const after = api.memory();
    const peak = after.peakBytes - before.peakBytes;
    assert.ok(estimate.complete && estimate.bytes > 0);
    assert.ok(
      Math.abs(peak - estimate.bytes) <= 0.04 * estimate.bytes + 16384,
      `${label}: estimated ${estimate.bytes} bytes, measured peak ${peak}`,
    );
    assert.equal(after.inUseBytes, before.inUseBytes, `${label}: heap in use after the call`);
    setup?.dispose();
  };
  for (const [name, args] of cases) {
    await measure(
      `${name} ${JSON.stringify(args.slice(1).filter((a) => typeof a !== 'object' || !a.data))}`,
      name,
      args,
      (api) => api[name](...args),
    );
  }
  for (const [cls, config, optionSets] of layers) {
    for (const options of optionSets) {
      const run = (api, layer) =>
        cls === 'MultiHeadAttention' ? layer.forward(x, x, x, options) : layer.forward(x, options);
      run.setup = (api) => new api[cls](config);
      const args = cls === 'MultiHeadAttention' ? [x, x, x, options] : [x, options];
      await measure(`${cls}.forward ${JSON.stringify(options)}`, `${cls}.forward`, args, run);
    }
    const api = await init({ wasmBinary });
    const before = api.memory();
    const estimate = api.estimateMemory(cls, config);
    const layer = new api[cls](config);
    const held = api.memory().inUseBytes - before.inUseBytes;
    assert.ok(Math.abs(held - estimate.bytes) <= 64 * 16, `${cls} weights: estimated ${estimate.bytes}, held ${held}`);
    layer.dispose();
  }
});

test('estimateMemory checks arguments as the call does, and names unknown functions', () => {
  const q = { data: new Float32Array(6), shape: [2, 3] };
  assert.throws(() => attn.estimateMemory('attention', q, { data: new Float32Array(4), shape: [2, 2] }, q), {
    name: 'RangeError',
    message: 'attention: k has 2 columns but q has 3 (dk must match)',
  });
  assert.throws(() => attn.estimateMemory('dropout', q), {
    name: 'RangeError',
    message: /^estimateMemory: unknown function 'dropout' \(known: attention, matmul, /,
  });
  assert.throws(() => attn.estimateMemory(42), {
    name: 'TypeError',
    message: 'estimateMemory: fnName must be a string, got a number (42)',
  });
  const small = attn.estimateMemory('attention', q, q, q);
  assert.deepEqual(
    small.blocks.map((b) => b.name),
    ['q', 'batch table', 'output', 'kernel workspace'],
  ); // q = k = v copied once
  assert.equal(small.blocks[0].bytes, 24);
  assert.equal(small.heapMaxBytes, 4 * GiB - 65536); // 65,535 wasm pages
  const huge = attn.estimateMemory(
    'attention',
    { data: new Float32Array(65536), shape: [65536, 1] },
    { data: new Float32Array(65536), shape: [65536, 1] },
    { data: new Float32Array(65536), shape: [65536, 1] },
    { returnWeights: true },
  );
  assert.equal(huge.fits, false);
  assert.equal(huge.complete, false); // the core's scratch is not asked for when the tensors cannot fit
  assert.equal(huge.blocks.find((b) => b.name === 'weights').bytes, 16 * GiB);
  assert.equal(
    attn.estimateMemory(
      'addPositionalEncoding',
      [[1, 2]],
      [
        [0, 0],
        [1, 1],
      ],
    ).bytes,
    0,
  ); // runs in JS
});
