// API fuzzer: 200,000 seeded calls of every public function, constructor and layer method
// with garbage and near-valid arguments: wrong types, every TypedArray kind, DataViews,
// detached and shared buffers, subarrays at offsets, negative/NaN/fractional/huge dims, sizes
// past the heap, unknown options, getters that throw, proxies, frozen objects, holes.
// The rule for each call: it returns (and, for valid small attention/matmul/layerNorm calls,
// equals the float64 reference), or it throws a TypeError/RangeError whose message starts with
// the public name ('attention:', 'MultiHeadAttention.forward:', ...). Two documented
// exceptions: an error thrown by the caller's own getter or proxy trap (class CallerError
// here) passes through unchanged, and a disposed layer's methods throw an Error named
// 'Class.method: this object was disposed'. Every 1,000 calls a fixed canary must give the
// same bits; at the end the heap's in-use bytes must be back where they started.
// Seed: printed; ATTN_FUZZ_SEED replays a run.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { refMatmul, refLayerNorm } from './helpers/reference-layers.js';
import { assertClose, rng } from './helpers/assert.js';

const attn = await init();
const SEED = Number(process.env.ATTN_FUZZ_SEED ?? 7_000_007);
const CALLS = Number(process.env.ATTN_FUZZ_CALLS ?? 200_000);
console.log(`api fuzzer: seed ${SEED} (set ATTN_FUZZ_SEED to replay)`);

class CallerError extends Error {}

// Reads a property of a generated argument in the test itself (undefined if it is missing or
// its getter or trap throws).
function read(get) {
  try {
    return get();
  } catch {
    return undefined;
  }
}

// Runs a result check; a caller trap met while reading the arguments again skips it.
function peek(read) {
  try {
    return read();
  } catch (e) {
    if (e instanceof CallerError) return undefined;
    throw e;
  }
}

// ---- Random values ----------------------------------------------------------------------

function makeGen(seed) {
  const random = rng(seed);
  const g = {
    float: (lo = -2, hi = 2) => random(lo, hi),
    int: (lo, hi) => Math.floor(random(lo, hi + 1)),  // inclusive
    chance: (p) => random(0, 1) < p,
    pick: (list) => list[Math.floor(random(0, list.length))],
  };
  return g;
}

const TYPED = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array];

// A value of any kind a caller might pass by mistake.
function junk(g) {
  switch (g.int(0, 19)) {
    case 0: return undefined;
    case 1: return null;
    case 2: return g.chance(0.5);
    case 3: return g.pick([0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 31, 2 ** 32, 2 ** 53, -0]);
    case 4: return g.pick(['', 'x', 'relu', 'top-left', '[1, 2]']);
    case 5: return Symbol('junk');
    case 6: return 10n;
    case 7: return () => 1;
    case 8: return {};
    case 9: return [];
    case 10: return [[1, 2], [3]];
    case 11: { const T = g.pick(TYPED); return new T(g.int(0, 6)); }
    case 12: return new DataView(new ArrayBuffer(8));
    case 13: return throwingGetters();
    case 14: return throwingProxy(g.chance(0.5) ? {} : []);
    case 15: return Object.freeze({ data: new Float32Array(2), shape: [2] });
    case 16: return [1, , 3];  // eslint-disable-line no-sparse-arrays
    case 17: { const cyclic = []; cyclic.push(cyclic); return cyclic; }
    case 18: return new Map();
    default: return { data: detachedFloats(4), shape: [2, 2] };
  }
}

function throwingGetters() {
  return {
    get data() { throw new CallerError('getter'); },
    get shape() { throw new CallerError('getter'); },
  };
}

function throwingProxy(target) {
  const fail = () => { throw new CallerError('proxy trap'); };
  return new Proxy(target, { get: fail, ownKeys: fail, has: fail, getOwnPropertyDescriptor: fail });
}

function detachedFloats(n) {
  const buffer = new ArrayBuffer(n * 4);
  const view = new Float32Array(buffer);
  structuredClone(buffer, { transfer: [buffer] });  // detaches: view.length is now 0
  return view;
}

// Float32Array data of n values, in one of the forms a caller may have it.
function floats(g, n) {
  const fillRandom = (a) => { for (let i = 0; i < a.length; i++) a[i] = g.float(); return a; };
  switch (g.int(0, 5)) {
    case 0: return fillRandom(new Float32Array(new SharedArrayBuffer(4 * n)));
    case 1: { const big = fillRandom(new Float32Array(n + 3)); return big.subarray(3); }  // at an offset
    default: return fillRandom(new Float32Array(n));
  }
}

// A small valid tensor of `shape`, as { data, shape } or nested arrays.
function tensorOf(g, shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  const t = { data: floats(g, n), shape };
  return g.chance(0.15) && shape.length > 0 ? attn.toNested(t) : t;
}

// A dim: usually small and valid, sometimes not.
function dim(g) {
  if (g.chance(0.9)) return g.int(0, 6);
  return g.pick([-1, 1.5, NaN, Infinity, 2 ** 31, 2 ** 32 + 1, 2 ** 53, '3', null]);
}

// A tensor-like argument: valid, near-valid (wrong length, bad dims, wrong data type), huge
// in shape only, or junk.
function tensorArg(g, shape) {
  const r = g.int(0, 19);
  if (r < 12) return tensorOf(g, shape);
  if (r === 12) return { data: new Float32Array(1), shape };                       // wrong length
  if (r === 13) return { data: floats(g, 4), shape: shape.map((d) => (g.chance(0.3) ? dim(g) : d)) };
  if (r === 14) { const T = g.pick(TYPED); return { data: new T(shape.reduce((a, b) => a * b, 1)), shape }; }
  if (r === 15) return { data: new Float32Array(0), shape: [g.pick([0, 2 ** 20]), 2 ** 30] };  // empty, huge dims
  if (r === 16) return { data: floats(g, 4), shape: [2, 2], extra: 1 };
  return junk(g);
}

// Options: mostly valid keys with junk or valid values, sometimes unknown keys or junk.
function optionsArg(g, valid) {
  if (g.chance(0.1)) return junk(g);
  const out = {};
  for (const [key, make] of Object.entries(valid)) if (g.chance(0.3)) out[key] = g.chance(0.75) ? make() : junk(g);
  if (g.chance(0.05)) out[g.pick(['casual', 'Mask', 'weights', '__proto__x'])] = true;
  return out;
}

// ---- The calls --------------------------------------------------------------------------

// Each entry: [public name, (g, state) => { args, call, check? }].
function attentionCall(g) {
  const Lq = g.int(0, 6), Lk = g.int(0, 6), dk = g.int(1, 5), dv = g.int(0, 4);
  const lead = g.pick([[], [2], [1, 3], [0]]);
  const huge = g.chance(0.02);
  const q = huge ? { data: new Float32Array(65536), shape: [65536, 1] } : tensorArg(g, [...lead, Lq, dk]);
  const k = huge ? q : tensorArg(g, [...lead, Lk, dk]);
  const v = huge ? q : tensorArg(g, [...lead, Lk, dv]);
  const options = huge ? { returnWeights: true } : optionsArg(g, {
    mask: () => (g.chance(0.5)
      ? { data: Uint8Array.from({ length: Lk }, () => g.int(0, 1)), shape: [Lk] }
      : { data: floats(g, Lq * Lk), shape: [Lq, Lk] }),
    causal: () => g.chance(0.5),
    causalAlign: () => g.pick(['top-left', 'bottom-right', 'center']),
    scale: () => g.pick([0.5, -1, 0, NaN]),
    keyLengths: () => (lead.length ? Array.from({ length: lead[0] }, () => g.int(-1, Lk + 1)) : g.int(0, Lk)),
    returnWeights: () => g.chance(0.5),
    trace: () => g.chance(0.3),
    enableGqa: () => false,
  });
  return {
    call: () => attn.attention(q, k, v, options),
    check: (result) => {
      const plain = [q, k, v].every((t) => t?.data instanceof Float32Array) && (options?.mask == null || options.mask.shape.length === 2 || options.mask.data instanceof Uint8Array);
      if (!plain || options === null || typeof options !== 'object') return;
      const mask = options.mask == null ? undefined : { ...options.mask, boolean: options.mask.data instanceof Uint8Array };
      const keyLengths = typeof options.keyLengths === 'number' ? [options.keyLengths] : options.keyLengths ?? undefined;
      const ref = referenceAttention(q, k, v, { ...options, mask, keyLengths });
      assertClose(result.output, ref.output, { label: 'attention output' });
    },
  };
}

function layerConfig(g, encoder) {
  const numHeads = g.pick([1, 2, 4]);
  const config = { dModel: numHeads * g.int(1, 4), numHeads };
  if (encoder) config.dFF = g.int(1, 16);
  if (g.chance(0.3)) config[g.pick(['dModel', 'numHeads', 'seed', 'bias', encoder ? 'norm' : 'numKvHeads', encoder ? 'dFF' : 'kDim'])] = junk(g);
  if (g.chance(0.02)) config.dModel = 2 ** 15;  // 4 GiB of weights
  return g.chance(0.05) ? junk(g) : config;
}

const CALLS_TABLE = [
  ['attention', attentionCall],
  ['matmul', (g) => {
    const m = g.int(0, 5), k = g.int(0, 5), n = g.int(0, 5);
    const a = tensorArg(g, [m, k]), b = tensorArg(g, [g.chance(0.9) ? k : k + 1, n]);
    return {
      call: () => attn.matmul(a, b),
      check: (r) => {
        if (!(a?.data instanceof Float32Array && b?.data instanceof Float32Array)) return;
        if (a.shape.at(-1) > 0) assertClose(r, refMatmul(a, b), { label: 'matmul' });
        else assert.ok(r.data.length === a.shape[0] * b.shape[1] && r.data.every((x) => x === 0), 'matmul with k = 0 gives zeros');
      },
    };
  }],
  ['layerNorm', (g) => {
    const x = tensorArg(g, [g.int(0, 4), g.int(0, 6)]);
    const options = optionsArg(g, { eps: () => g.pick([1e-5, 0, -1]), gamma: () => { const d = read(() => x.shape.at(-1)); return tensorArg(g, [Number.isInteger(d) && d >= 0 && d <= 8 ? d : 2]); } });
    return {
      call: () => attn.layerNorm(x, options),
      check: (r) => {
        if (x?.data instanceof Float32Array && x.shape.at(-1) > 0 && options && Object.keys(options).length === 0) assertClose(r, refLayerNorm(x), { atol: 1e-4, label: 'layerNorm' });
      },
    };
  }],
  ['feedForward', (g) => {
    const d = g.int(1, 4), f = g.int(0, 5);
    const x = tensorArg(g, [g.int(0, 3), d]);
    const options = optionsArg(g, { w1: () => tensorArg(g, [d, f]), w2: () => tensorArg(g, [f, d]), b1: () => tensorArg(g, [f]), activation: () => g.pick(['relu', 'gelu', 'tanh']) });
    return { call: () => attn.feedForward(x, options) };
  }],
  ['setPool', (g) => { const x = tensorArg(g, [g.int(0, 3), g.int(0, 3), g.int(0, 3)]); const op = g.chance(0.8) ? g.pick(['sum', 'mean', 'max']) : junk(g); return { call: () => attn.setPool(x, op) }; }],
  ['sinusoidalEncoding', (g) => { const a = [dim(g), g.chance(0.9) ? g.int(1, 8) : dim(g), optionsArg(g, { base: () => g.pick([100, 1, -5, Infinity]) })]; return { call: () => attn.sinusoidalEncoding(...a) }; }],
  ['addPositionalEncoding', (g) => { const x = tensorArg(g, [2, 3]), table = tensorArg(g, [g.int(0, 5), 3]); const o = optionsArg(g, { offset: () => g.int(-1, 3) }); return { call: () => attn.addPositionalEncoding(x, table, o) }; }],
  ['applyRope', (g) => { const x = tensorArg(g, [g.int(0, 3), 2 * g.int(0, 3)]); const o = optionsArg(g, { interleaved: () => g.chance(0.5), positions: () => [0, 1, 2], base: () => g.pick([10000, 0.5]) }); return { call: () => attn.applyRope(x, o) }; }],
  ['alibiSlopes', (g) => { const n = g.chance(0.95) ? g.int(1, 20) : g.pick([0, 2 ** 30, 2 ** 31, NaN, '8']); return { call: () => attn.alibiSlopes(n) }; }],
  ['alibiBias', (g) => { const a = [g.chance(0.9) ? g.int(1, 8) : dim(g), dim(g), g.chance(0.8) ? dim(g) : undefined]; if (g.chance(0.02)) a.splice(0, 3, 64, 8192); return { call: () => attn.alibiBias(...a) }; }],
  ['laplacianEncoding', (g) => {
    const n = g.chance(0.95) ? g.int(1, 8) : g.pick([0, 100000, -1, 2 ** 31]);
    const edges = g.chance(0.9) ? Array.from({ length: g.int(0, 6) }, () => [g.int(0, n), g.int(-1, n - 1)]) : junk(g);
    const graph = g.chance(0.9) ? { numNodes: n, edges } : junk(g);
    const k = g.chance(0.9) ? g.int(0, Math.max(0, Math.min(n, 8) - 1)) : junk(g);
    return { call: () => attn.laplacianEncoding(graph, k) };
  }],
  ['tensor', (g) => { const a = [g.chance(0.7) ? Array.from({ length: 4 }, () => g.float()) : junk(g), g.chance(0.7) ? [2, 2] : junk(g)]; return { call: () => attn.tensor(...a) }; }],
  ['toNested', (g) => { const t = tensorArg(g, [2, g.int(0, 3)]); return { call: () => attn.toNested(t) }; }],
  ['estimateMemory', (g) => {
    const inner = attentionCall(g);
    const name = g.chance(0.9) ? 'attention' : junk(g);
    return { call: () => attn.estimateMemory(name, ...inner.argsForEstimate ?? [tensorArg(g, [2, 2]), tensorArg(g, [2, 2]), tensorArg(g, [2, 2])]), alsoNamed: 'attention' };
  }],
  ['MultiHeadAttention', (g, state) => ({ call: () => state.keep(new attn.MultiHeadAttention(layerConfig(g, false))) })],
  ['TransformerEncoderLayer', (g, state) => ({ call: () => state.keep(new attn.TransformerEncoderLayer(layerConfig(g, true))) })],
  ['MultiHeadAttention.forward', (g, state) => layerMethod(g, state, 'MultiHeadAttention')],
  ['TransformerEncoderLayer.forward', (g, state) => layerMethod(g, state, 'TransformerEncoderLayer')],
];

// forward / setWeights / getWeights / dispose on a live (or disposed) layer.
function layerMethod(g, state, cls) {
  const layer = state.any(cls);
  if (!layer) return { call: () => state.keep(cls === 'MultiHeadAttention' ? new attn.MultiHeadAttention({ dModel: 4, numHeads: 2 }) : new attn.TransformerEncoderLayer({ dModel: 4, numHeads: 2, dFF: 8 })), name: cls };
  const d = layer.dModel;
  const x = tensorArg(g, g.chance(0.5) ? [g.int(0, 4), d] : [g.int(0, 2), g.int(0, 4), d]);
  const method = g.pick(['forward', 'forward', 'forward', 'setWeights', 'getWeights', 'dispose']);
  const name = `${cls}.${method}`;
  if (method === 'dispose') return { call: () => state.dispose(layer), name };
  if (method === 'getWeights') return { call: () => layer.getWeights(), name };
  if (method === 'setWeights') {
    const w = g.chance(0.7) ? { wq: tensorArg(g, [d, d]), ...(g.chance(0.2) ? { wz: 1 } : {}) } : junk(g);
    return { call: () => layer.setWeights(w), name };
  }
  const options = optionsArg(g, { causal: () => g.chance(0.5), keyLengths: () => [g.int(-1, 4)], mask: () => ({ data: new Uint8Array(4), shape: [4] }), returnWeights: () => true });
  return { call: () => (cls === 'MultiHeadAttention' ? layer.forward(x, x, x, options) : layer.forward(x, options)), name };
}

// ---- The canary ---------------------------------------------------------------------------

function canary() {
  const g = makeGen(1);
  const q = { data: floats({ ...g, int: () => 2 }, 64).slice(), shape: [8, 8] };
  for (let i = 0; i < 64; i++) q.data[i] = Math.sin(i);
  const mask = { data: Uint8Array.from({ length: 64 }, (_, i) => (i % 5 !== 0 ? 1 : 0)), shape: [8, 8] };
  const layer = new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 9 });
  try {
    const parts = [attn.attention(q, q, q, { mask }).output.data, layer.forward(q).output.data, attn.layerNorm(q).data];
    return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  } finally {
    layer.dispose();
  }
}

// ---- The run ------------------------------------------------------------------------------

function allowedError(error, names) {
  if (error instanceof CallerError) return true;
  if (error instanceof TypeError || error instanceof RangeError) return names.some((n) => error.message.startsWith(`${n}:`));
  return error?.constructor === Error && names.some((n) => error.message.startsWith(`${n}: this object was disposed`));
}

test(`API fuzzer: ${CALLS.toLocaleString('en')} calls, typed errors naming the function, canary bits and heap unchanged`, { timeout: 600_000 }, () => {
  const g = makeGen(SEED);
  const live = [];
  const state = {
    keep: (layer) => { live.push(layer); if (live.length > 4) live.shift().dispose(); return layer; },
    any: (cls) => g.pick(live.filter((l) => l.constructor.name === cls).concat([undefined])),
    dispose: (layer) => { layer.dispose(); },  // stays in `live`: later calls meet a disposed layer
  };
  const reference = canary();
  const startHeap = attn.memory().inUseBytes;
  const stats = {};
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const [fnName, make] = CALLS_TABLE[i % CALLS_TABLE.length];
    const c = make(g, state);
    const name = c.name ?? fnName;
    const s = (stats[name] ??= { returned: 0, threw: 0 });
    let result, error, threw = false;
    if (process.env.ATTN_FUZZ_TRACE) console.error(`call ${i}: ${name} ${c.call}`);
    try {
      result = c.call();
    } catch (e) {
      error = e;
      threw = true;
    }
    const describeCall = () => `call ${i} (seed ${SEED}): ${name}`;
    if (threw) {
      s.threw++;
      assert.ok(allowedError(error, [name, c.alsoNamed].filter(Boolean)),
        `${describeCall()} threw ${error?.constructor?.name ?? typeof error}: ${String(error?.message ?? error)}`);
    } else {
      s.returned++;
      try {
        peek(() => c.check?.(result));
      } catch (e) {
        assert.fail(`${describeCall()} returned a wrong result: ${e.message}`);
      }
    }
    if (i % 1000 === 999) assert.ok(canary().equals(reference), `canary differs after ${describeCall()}`);
  }
  for (const layer of live) layer.dispose();
  const endHeap = attn.memory().inUseBytes;
  console.log(`api fuzzer: ${CALLS} calls in ${((performance.now() - t0) / 1000).toFixed(1)} s; heap in use ${startHeap} → ${endHeap} bytes`);
  for (const [name, s] of Object.entries(stats)) console.log(`  ${name.padEnd(34)} returned ${String(s.returned).padStart(6)}  threw ${String(s.threw).padStart(6)}`);
  assert.equal(endHeap, startHeap);
  for (const [name, s] of Object.entries(stats)) {
    if (name.endsWith('.dispose') || name.endsWith('.getWeights')) continue;
    assert.ok(s.returned > 0 && s.threw > 0, `${name}: the fuzzer should reach both outcomes (returned ${s.returned}, threw ${s.threw})`);
  }
});
