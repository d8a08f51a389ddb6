// The API fuzzer's generators (tests/api-fuzz.test.js): one seeded random stream per call
// (makeGen), and one generator per kind of argument: junk of any kind, bad numbers, tensors
// honest and mistaken (shifty, lying, foreign), masks, options and configs, and caller code
// that throws or lies (callerThrow records exactly the errors it threw, so the checks can
// accept those). Valid generators return [value, canonical]; the canonical form is what the
// references use ({ data: Float32Array, shape } for tensors). The properties, references and
// the checking loop stay in the test file.
import { inspect, types } from 'node:util';
import vm from 'node:vm';
import { rng } from './assert.js';

// ============================================================================================
// Random numbers: one mulberry32 stream per call.
// ============================================================================================

function fmix32(h) {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export function makeGen(seed, index) {
  const random = rng(fmix32((seed >>> 0) ^ fmix32(index + 1) ^ fmix32(Math.floor(seed / 2 ** 32))));
  return {
    float: (lo = -2, hi = 2) => random(lo, hi),
    int: (lo, hi) => lo + Math.floor(random(0, 1) * (hi - lo + 1)), // inclusive
    chance: (p) => random(0, 1) < p,
    pick: (list) => list[Math.floor(random(0, 1) * list.length)],
    inputs: [], // honest tensors made for this call, [value, canonical]: must be left unchanged
    canons: new WeakMap(), // honest tensor value → its canonical { data, shape }
    labels: new WeakMap(), // tricky objects → what they are, for the call's description
    evil: false, // an argument runs caller code or lies
  };
}

export const isProxy = (value) => types.isProxy(value);
export const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);
const TYPED = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
  ...(globalThis.Float16Array ? [globalThis.Float16Array] : []),
];
const BAD_NUMBERS = [
  -1,
  -0.5,
  0.5,
  1.5,
  NaN,
  Infinity,
  -Infinity,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 31),
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];
export const HUGE_DIMS = [2 ** 16, 2 ** 20, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 40, 2 ** 53];

// ============================================================================================
// Caller code that throws or lies.
// ============================================================================================

export class CallerError extends Error {}
export const callerErrors = new WeakSet(); // exactly the errors the fuzzer's own getters/traps threw

export function callerThrow(what) {
  const error = new CallerError(`the caller's own ${what} threw`);
  callerErrors.add(error);
  throw error;
}

export const detach = (buffer) => structuredClone(buffer, { transfer: [buffer] });
const otherRealm = vm.createContext();

export function throwingProxy(g, target) {
  const traps = g.pick([
    ['get'],
    ['ownKeys'],
    ['has', 'get'],
    ['getPrototypeOf'],
    ['get', 'ownKeys', 'has', 'getOwnPropertyDescriptor', 'getPrototypeOf'],
  ]);
  const handler = Object.fromEntries(traps.map((trap) => [trap, () => callerThrow(`Proxy ${trap} trap`)]));
  return label(g, new Proxy(target, handler), `Proxy whose ${traps.join('/')} trap throws`);
}

export function label(g, object, text) {
  g.labels.set(object, text);
  g.evil = true;
  return object;
}

// A Float32Array whose `length` getter lies (the buffer really holds `actual` values).
class LyingFloat32Array extends Float32Array {
  get length() {
    return this.claimed ?? super.length;
  }
}

function lyingFloats(g, claimed) {
  const actual = g.chance(0.5) ? claimed + g.pick([1, 64, 4096]) : Math.max(0, claimed - g.int(1, 3));
  const data = new LyingFloat32Array(actual).fill(0.25);
  data.claimed = claimed;
  return label(g, data, `Float32Array subclass holding ${actual} values whose length getter says ${claimed}`);
}

// ============================================================================================
// Generators, one per argument kind. Valid ones return [value, canonical]; the canonical form
// is what references use ({ data: Float32Array, shape } for tensors).
// ============================================================================================

// --- junk: a value of any kind a caller might pass by mistake ------------------------------
export function junk(g, depth = 0) {
  const kinds = [
    () => undefined,
    () => null,
    () => g.chance(0.5),
    () => g.pick([0, -0, 1, 3, ...BAD_NUMBERS]),
    () =>
      g.pick([
        '',
        'x',
        '3',
        '2,2',
        '[[1, 2]]',
        'relu',
        'sum',
        'top-left',
        'post',
        'attention',
        'constructor',
        '__proto__',
        'x'.repeat(300),
      ]),
    () => Symbol('junk'),
    () => g.pick([0n, 3n, -(2n ** 70n)]),
    () =>
      g.pick([
        () => 1,
        function named() {},
        class Klass {},
        Math.max,
        Object.assign(() => 0, { data: new Float32Array(4), shape: [2, 2] }),
      ]),
    () =>
      g.pick([
        {},
        Object.create(null),
        { data: null, shape: null },
        { length: 2, 0: 1, 1: 2 },
        Object.freeze({ shape: [1] }),
      ]),
    () => (depth < 2 ? [junk(g, depth + 1), junk(g, depth + 1)] : []),
    () => g.pick([[1, , 3], new Array(4), [[1, 2], [3]], [[[]]], [NaN], [true, false], [1n], ['1', '2']]), // eslint-disable-line no-sparse-arrays
    () => {
      const cyclic = [1];
      cyclic[0] = cyclic;
      return cyclic;
    },
    () => deepArray(g.pick([64, 65, 300])),
    () => g.pick([new Number(3), new String('ab'), new Boolean(false), Object(2n), Object(Symbol('boxed'))]),
    () =>
      g.pick([
        new Map([[1, 2]]),
        new Set([1]),
        new Date(NaN),
        /re/g,
        Promise.resolve(1),
        new WeakMap(),
        new Error('not a tensor'),
        JSON,
        Math,
      ]),
    () => typedArray(g, g.pick(TYPED), g.int(0, 6)),
    () => g.pick([new ArrayBuffer(8), new SharedArrayBuffer(8), new DataView(new ArrayBuffer(16), 4)]),
    () => evilObject(g),
  ];
  return g.pick(kinds)();
}

function deepArray(depth) {
  let a = 1;
  for (let i = 0; i < depth; i++) a = [a];
  return a;
}

// Every TypedArray kind, possibly detached, SharedArrayBuffer-backed or a subarray at an offset.
function typedArray(g, T, n) {
  switch (g.int(0, 4)) {
    case 0: {
      const a = new T(n);
      detach(a.buffer);
      return a;
    }
    case 1:
      return new T(new SharedArrayBuffer(n * T.BYTES_PER_ELEMENT));
    case 2:
      return new T(n + 3).subarray(3);
    default:
      return new T(n);
  }
}

// Objects whose own code throws (CallerError) or converts badly.
export function evilObject(g) {
  return g.pick([
    () =>
      label(
        g,
        {
          get data() {
            return callerThrow('data getter');
          },
          get shape() {
            return callerThrow('shape getter');
          },
        },
        'object whose data/shape getters throw',
      ),
    () => throwingProxy(g, g.chance(0.5) ? {} : []),
    () =>
      label(
        g,
        {
          [Symbol.toPrimitive]() {
            return callerThrow('Symbol.toPrimitive');
          },
        },
        'object whose Symbol.toPrimitive throws',
      ),
    () =>
      label(g, { [Symbol.toPrimitive]: () => Symbol('primitive') }, 'object whose Symbol.toPrimitive returns a symbol'),
    () =>
      label(
        g,
        {
          toString() {
            return callerThrow('toString');
          },
          valueOf() {
            return callerThrow('valueOf');
          },
        },
        'object whose toString/valueOf throw',
      ),
  ])();
}

// --- numbers ---------------------------------------------------------------------------------
export function badNumber(g) {
  return g.chance(0.7)
    ? g.pick(BAD_NUMBERS)
    : g.pick(['3', null, undefined, 3n, true, {}, [3], new Number(3), Symbol('n')]);
}

// --- tensors ---------------------------------------------------------------------------------
export function randomFloats(g, n, lo = -2, hi = 2) {
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = g.float(lo, hi);
  return data;
}

// Whether nested arrays can express `shape` (a 0 before the last dim hides the dims after it).
export const nestable = (shape) => shape.length > 0 && shape.slice(0, -1).every((d) => d > 0);

// Nested arrays of a canonical tensor (built here, not by the library).
export function nest(data, shape, axis = 0, offset = 0) {
  if (axis === shape.length) return data[offset];
  const stride = sizeOf(shape.slice(axis + 1));
  return Array.from({ length: shape[axis] }, (_, i) => nest(data, shape, axis + 1, offset + i * stride));
}

// Float32Array `data` in one of the honest forms a caller may have it.
export function honestData(g, data) {
  switch (g.int(0, 5)) {
    case 0: {
      const shared = new Float32Array(new SharedArrayBuffer(data.byteLength));
      shared.set(data);
      return shared;
    }
    case 1: {
      const off = g.int(1, 5);
      const big = new Float32Array(data.length + off + 2);
      big.set(data, off);
      return big.subarray(off, off + data.length);
    }
    default:
      return data.slice();
  }
}

// A valid tensor of `shape` in one of the honest forms (all valid): { data, shape } plain,
// frozen, with extra keys, inherited, behind a transparent Proxy, with Float64Array or
// number[] data, as a TensorFlow.js or onnxruntime-web tensor (duck-typed), or nested arrays.
export function tensorArg(g, shape, data = randomFloats(g, sizeOf(shape))) {
  const canon = { data, shape };
  const n = data.length;
  let value;
  const r = g.int(0, 14);
  if (r <= 1 && nestable(shape) && n <= 256) value = nest(data, shape);
  else if (r === 12) value = { data: g.chance(0.5) ? Float64Array.from(data) : Array.from(data), shape: shape.slice() };
  else if (r === 13) value = fakeTfjs(data.slice(), shape.slice());
  else if (r === 14)
    value = { dims: Object.freeze(shape.slice()), type: 'float32', data: data.slice(), location: 'cpu' };
  else if (r === 2) value = Object.freeze({ data: honestData(g, data), shape: Object.freeze(shape.slice()) });
  else if (r === 3) value = { data: honestData(g, data), shape: shape.slice(), name: 'x', dtype: 'float32' };
  else if (r === 4) value = Object.create({ data: honestData(g, data), shape: shape.slice() });
  else if (r === 5) value = new Proxy({ data: honestData(g, data), shape: shape.slice() }, {});
  else value = { data: honestData(g, data), shape: shape.slice() };
  g.inputs.push([value, canon]);
  g.canons.set(value, canon);
  return [value, canon];
}

// A duck-typed TensorFlow.js tensor.
function fakeTfjs(data, shape, dtype = 'float32') {
  return { shape, dtype, rank: shape?.length, dataSync: () => data, dispose() {} };
}

// A TensorFlow.js or onnxruntime-web tensor with one mistake.
function foreignMistake(g, shape) {
  const n = sizeOf(shape);
  return g.pick([
    () => fakeTfjs(new Float32Array(n), shape, g.pick(['string', 'complex64', 'float16', '', 'Float32'])),
    () =>
      fakeTfjs(
        g.pick([null, undefined, 'abc', 3, {}, [1, '2'], new Float32Array(n + 1), typedArray(g, g.pick(TYPED), n)]),
        shape,
      ),
    () =>
      label(
        g,
        { shape, dtype: 'float32', dataSync: () => callerThrow('dataSync') },
        'tfjs tensor whose dataSync() throws',
      ),
    () => fakeTfjs(new Float32Array(n), badShape(g, shape)),
    () => ({
      dims: shape,
      type: g.pick(['string', 'bool', 'int64', '']),
      data: g.pick([['a'], new Float32Array(n), [1, 2]]),
    }),
    () => ({
      dims: g.chance(0.5) ? badShape(g, shape) : shape,
      type: 'float32',
      data: g.pick([new Float32Array(n), null, typedArray(g, g.pick(TYPED), n), new DataView(new ArrayBuffer(4 * n))]),
    }),
  ])();
}

// A shape with one mistake.
export function badShape(g, shape) {
  const s = shape.slice();
  switch (g.int(0, 7)) {
    case 0:
      if (s.length) s[g.int(0, s.length - 1)] = badNumber(g);
      else s.push(badNumber(g));
      return s;
    case 1:
      return [...s, ...new Array(65 - s.length).fill(1)]; // rank 65
    case 2: {
      const holey = s.slice();
      holey.length = s.length + 1;
      return holey;
    } // a hole
    case 3:
      return Int32Array.from(s);
    case 4:
      return g.pick([s.join(','), sizeOf(s), { length: s.length, ...s }, null, new Set(s)]);
    case 5:
      return s.slice(1);
    case 6:
      return [...s, 1]; // one more dim (may still be valid)
    default:
      return [-0, ...s]; // -0 is a dim of 0
  }
}

// A tensor argument with one mistake (invalid, or at least not the canonical value).
function nearTensor(g, shape) {
  const n = sizeOf(shape);
  const kinds = [
    () => ({ data: randomFloats(g, Math.max(0, n + g.pick([-1, 1, 7]))), shape }),
    () => ({ data: typedArray(g, g.pick(TYPED.filter((T) => T !== Float32Array)), n), shape }),
    () => ({
      data: g.pick([
        new DataView(new ArrayBuffer(4 * n)),
        Array.from(randomFloats(g, n)),
        new ArrayBuffer(4 * n),
        undefined,
        null,
        'data',
      ]),
      shape,
    }),
    () => ({ data: randomFloats(g, n), shape: badShape(g, shape) }),
    () => g.pick([{ data: randomFloats(g, n) }, { shape }, { data: randomFloats(g, n), shape: undefined }]),
    () => {
      const data = randomFloats(g, n);
      detach(data.buffer);
      return { data, shape };
    },
    () => zeroSizeHuge(g, Math.max(1, shape.length)),
    () => nestedMistake(g, shape),
    () => ({
      data: new Float32Array(new SharedArrayBuffer(4 * n + 4), 4),
      shape: g.chance(0.5) ? shape : badShape(g, shape),
    }),
    () => foreignMistake(g, shape),
    () => ({ data: g.pick([[1, '2'], [1, null], [1, undefined], new Array(n)]), shape }),
    () => junk(g),
  ];
  return g.pick(kinds)();
}

// Shapes of size 0 whose other dims are huge (the product needs > 2 GiB without the 0).
export function zeroSizeHuge(g, rank) {
  const shape = Array.from({ length: rank }, () => g.pick(HUGE_DIMS));
  shape[g.int(0, rank - 1)] = 0;
  return { data: new Float32Array(0), shape };
}

// Nested arrays that are ragged, have holes, junk leaves, are too deep or cyclic.
function nestedMistake(g, shape) {
  const s = shape.length ? shape.map((d) => Math.max(1, Math.min(d, 4))) : [2];
  const nested = nest(randomFloats(g, sizeOf(s)), s);
  const row = (a) => {
    let r = a;
    while (Array.isArray(r[0])) r = r[0];
    return r;
  };
  switch (g.int(0, 7)) {
    case 0:
      row(nested).pop();
      if (s.length === 1) nested.push(1);
      return [nested, [1]]; // ragged
    case 1:
      delete row(nested)[0];
      return nested; // hole
    case 2:
      row(nested)[0] = g.pick(['1', null, 1n, true, {}, [], new Number(1), undefined, Symbol('leaf')]);
      return nested;
    case 3:
      return deepArray(65);
    case 4: {
      const c = [nested];
      c.push(c);
      return c;
    }
    case 5:
      return s.length > 1 ? [Float32Array.from(row(nested)), Float32Array.from(row(nested))] : [new Float32Array(2)];
    case 6:
      return nest(
        Array.from({ length: sizeOf(s) }, () => g.chance(0.5)),
        s,
      ); // booleans
    default:
      return nest(
        Array.from({ length: sizeOf(s) }, () => g.pick([NaN, Infinity, -Infinity, -0])),
        s,
      ); // odd but valid numbers
  }
}

// A tensor argument whose own code throws or lies. Returns { value, keepsCanon }: for shifty
// values the honest (first-read) values are `canon`, so the reference still applies.
function evilTensor(g, canon) {
  const { data, shape } = canon;
  const n = data.length;
  const kinds = [
    () => ({ value: evilObject(g) }),
    () => ({ value: throwingProxy(g, { data: data.slice(), shape: shape.slice() }) }),
    () => ({
      value: label(
        g,
        {
          data: data.slice(),
          get shape() {
            return callerThrow('shape getter');
          },
        },
        'tensor whose shape getter throws',
      ),
    }),
    () => ({ value: shifty(g, canon), keepsCanon: true }),
    () => shiftyShapeArray(g, canon),
    () => ({ value: { data: lyingFloats(g, n), shape: shape.slice() } }),
    () => ({
      value: {
        data: label(g, new Proxy(data.slice(), {}), 'transparent Proxy of a Float32Array'),
        shape: shape.slice(),
      },
    }),
    () => ({
      value: {
        data: label(g, Object.create(Float32Array.prototype), 'Object.create(Float32Array.prototype)'),
        shape: shape.slice(),
      },
    }),
    () => ({
      value: {
        data: label(g, vm.runInContext(`new Float32Array(${n})`, otherRealm), 'Float32Array from another realm'),
        shape: shape.slice(),
      },
    }),
    () => nestedLiar(g, canon),
  ];
  return g.pick(kinds)();
}

// { data, shape } answering honestly the first `honest` reads of each property, then lying.
function shifty(g, canon) {
  const honest = g.int(1, 3);
  const lie = g.pick([
    'bigger shape',
    'smaller shape',
    'other rank',
    'null data',
    'short data',
    'long data',
    'Float64Array data',
    'detach data',
  ]);
  const data = canon.data.slice();
  const lieShape =
    lie === 'bigger shape'
      ? canon.shape.map((d) => Math.min(64, d * 4 + 4))
      : lie === 'smaller shape'
        ? canon.shape.map(() => 1)
        : [...canon.shape, 2];
  let dataReads = 0,
    shapeReads = 0;
  const object = {
    get data() {
      if (++dataReads <= honest || !lie.endsWith('data') || lie === 'detach data') return data;
      if (lie === 'null data') return null;
      if (lie === 'short data') return new Float32Array(Math.max(0, data.length - 1));
      if (lie === 'long data') return new Float32Array(data.length + 4096).fill(1);
      return Float64Array.from(data);
    },
    get shape() {
      if (++shapeReads === honest + 1 && lie === 'detach data' && data.buffer.byteLength > 0) detach(data.buffer);
      return shapeReads <= honest || (!lie.endsWith('shape') && lie !== 'other rank')
        ? canon.shape.slice()
        : lieShape.slice();
    },
  };
  return label(
    g,
    object,
    `shifty tensor ${inspect(canon.shape)}: honest for ${honest} read(s) of data/shape, then ${lie}`,
  );
}

// { data, shape } whose shape is an Array subclass with lying slice/forEach/iterator, or a Proxy
// whose length changes after the first read.
function shiftyShapeArray(g, canon) {
  const lieShape = canon.shape.map((d) => d * 3 + 5);
  const kind = g.pick(['slice', 'forEach', 'iterator', 'length']);
  let shape;
  if (kind === 'length') {
    let reads = 0;
    shape = new Proxy(canon.shape.slice(), {
      get: (t, k, r) => (k === 'length' ? (reads++ < 1 ? t.length : t.length + 1) : Reflect.get(t, k, r)),
    });
  } else {
    class LyingShape extends Array {}
    if (kind === 'slice') LyingShape.prototype.slice = () => lieShape.slice();
    if (kind === 'forEach') LyingShape.prototype.forEach = () => {};
    if (kind === 'iterator')
      LyingShape.prototype[Symbol.iterator] = function* () {
        yield* lieShape;
      };
    shape = LyingShape.from(canon.shape);
    if (kind === 'forEach') shape[0] = g.pick([-3, 1.5, 'x']) ?? 0; // only forEach would see it
  }
  const value = label(
    g,
    { data: canon.data.slice(), shape },
    `tensor ${inspect(canon.shape)} whose shape is an Array subclass/Proxy lying through ${kind}`,
  );
  // Read by index, the forEach variant has a bad dim: the call must throw. The others are honest.
  return kind === 'forEach' ? { value, mustThrow: true } : { value, keepsCanon: true };
}

// Nested arrays with a lying iterator, a throwing index getter, or a Proxy lying about length.
function nestedLiar(g, canon) {
  const { data, shape } = canon;
  if (!nestable(shape)) return { value: evilObject(g) };
  const nested = nest(data, shape);
  switch (g.int(0, 2)) {
    case 0: {
      // index reads are honest: the reference applies
      const lie = g.pick([[1, 2, 3], 'x', { valueOf: () => callerThrow('valueOf') }, 1e9, []]);
      class LyingRows extends Array {}
      LyingRows.prototype[Symbol.iterator] = function* () {
        yield lie;
      };
      const rows = LyingRows.from(nested);
      return {
        value: label(g, rows, `nested ${inspect(shape)} (Array subclass whose iterator yields ${inspect(lie)})`),
        keepsCanon: true,
      };
    }
    case 1: {
      Object.defineProperty(nested, 0, { get: () => callerThrow('index getter'), enumerable: true });
      return { value: label(g, nested, `nested ${inspect(shape)} whose [0] getter throws`) };
    }
    default: {
      const length = g.pick([-1, 1.5, NaN, 2 ** 32 - 1, nested.length + 1, '2']);
      return {
        value: label(
          g,
          new Proxy(nested, { get: (t, k, r) => (k === 'length' ? length : Reflect.get(t, k, r)) }),
          `nested ${inspect(shape)} behind a Proxy whose length is ${String(length)}`,
        ),
      };
    }
  }
}

// A tensor argument with one mistake of any kind.
export function tensorMistake(g, value, canon, smallOnly) {
  const r = g.float(0, 1);
  if (r < 0.45) {
    const near = nearTensor(g, canon?.shape ?? [2, 2]);
    const shape =
      near !== null && typeof near === 'object' && !isProxy(near)
        ? Object.getOwnPropertyDescriptor(near, 'shape')?.value
        : undefined;
    const hugeEmpty = Array.isArray(shape) && shape.some((d) => typeof d === 'number' && d > 2 ** 12);
    return { value: smallOnly && hugeEmpty ? junk(g) : near };
  }
  if (r < 0.6) return { value: junk(g) };
  if (r < 0.9 && canon) return evilTensor(g, canon);
  return { value: smallOnly ? junk(g) : zeroSizeHuge(g, g.int(1, 4)) };
}

// --- masks -----------------------------------------------------------------------------------
// A valid mask broadcasting to `target` ([..., Lq, Lk]): boolean (Uint8Array, nested booleans)
// or additive (Float32Array with -Infinity, nested numbers).
export function maskArg(g, target) {
  const rank = g.int(Math.max(0, target.length - 3), target.length);
  const shape = target.slice(target.length - rank).map((d) => (g.chance(0.3) ? 1 : d));
  const n = sizeOf(shape);
  if (g.chance(0.5)) {
    const data = Uint8Array.from({ length: n }, () => (g.chance(0.7) ? g.pick([1, 1, 2, 255]) : 0));
    const canon = { data, shape, boolean: true };
    if (g.chance(0.3) && nestable(shape))
      return [
        nest(
          Array.from(data, (b) => b !== 0),
          shape,
        ),
        { ...canon, data: Uint8Array.from(data, (b) => (b ? 1 : 0)) },
      ];
    return [
      g.chance(0.2)
        ? Object.freeze({ data: data.slice(), shape: shape.slice() })
        : { data: data.slice(), shape: shape.slice() },
      canon,
    ];
  }
  const data = Float32Array.from({ length: n }, () => (g.chance(0.2) ? -Infinity : g.float(-3, 3)));
  const canon = { data, shape, boolean: false };
  if (g.chance(0.3) && nestable(shape)) return [nest(data, shape), canon];
  return [{ data: honestData(g, data), shape: shape.slice() }, canon];
}

// A mask with one mistake: a proxied or lying Uint8Array, another element type, ragged or
// mixed nested booleans, a bad shape.
class LyingUint8Array extends Uint8Array {
  get length() {
    return 1;
  }
}

function maskMistake(g) {
  return g.pick([
    () => ({ data: label(g, new Proxy(Uint8Array.of(1), {}), 'transparent Proxy of a Uint8Array'), shape: [1] }),
    () => ({ data: label(g, Object.create(Uint8Array.prototype), 'Object.create(Uint8Array.prototype)'), shape: [1] }),
    () => ({
      data: label(g, new LyingUint8Array(64), 'Uint8Array subclass of 64 bytes whose length getter says 1'),
      shape: [1],
    }),
    () => ({ data: typedArray(g, g.pick(TYPED), 4), shape: [4] }),
    () => g.pick([[[true, false], [true]], [[true, 1]], [[[true]], [[false, true]]], [true, , false]]), // eslint-disable-line no-sparse-arrays
    () => ({ data: new Uint8Array(4), shape: badShape(g, [2, 2]) }),
    () => junk(g),
  ])();
}

// --- options and configs -------------------------------------------------------------------------
// Some of the keys of `spec` (key → () => [value, canonical]) in an honest form: plain,
// frozen, null-prototype, or behind a transparent Proxy. Omitted (undefined) sometimes.
// options.out: a fresh Float32Array of the output's size, filled with NaN so that a value the
// call failed to write shows in the comparison with the reference.
export function outArg(shape) {
  return () => {
    const out = new Float32Array(sizeOf(shape)).fill(NaN);
    return [out, out];
  };
}

// A result that was asked to use options.out must be exactly that array.
export function sameOut(t, o) {
  if (o.out && t?.data !== o.out) throw new Error('options.out given but the output is another array');
  return undefined;
}

// A spec entry may be [probability, make] to give its key a probability of its own.
export function optionsArg(g, spec, p = 0.35) {
  const value = {},
    canon = {};
  for (const [key, entry] of Object.entries(spec)) {
    const [chance, make] = Array.isArray(entry) ? entry : [p, entry];
    if (!g.chance(chance)) continue;
    [value[key], canon[key]] = make();
  }
  if (Object.keys(value).length === 0 && g.chance(0.3)) return [undefined, {}];
  const r = g.int(0, 9);
  if (r === 0) return [Object.freeze(value), canon];
  if (r === 1) return [Object.assign(Object.create(null), value), canon];
  if (r === 2) return [new Proxy(value, {}), canon];
  return [value, canon];
}

// An options (or config, graph, weights) object with one mistake.
export function optionsMistake(g, value, canon, keys) {
  const base = value && typeof value === 'object' ? { ...value } : {};
  const someKey = () => g.pick(keys);
  switch (g.int(0, 9)) {
    case 0:
      return { value: junk(g) };
    case 1:
      return {
        value: {
          ...base,
          [g.pick(['casual', 'Mask', 'returnweights', 'constructor', 'toString', 'hasOwnProperty', '0', 'extra'])]:
            g.pick([true, 1, undefined]),
        },
      };
    case 2:
      return { value: JSON.parse(`{"__proto__": {"${someKey()}": true}}`) }; // an own key named __proto__
    case 3:
      return { value: Object.create({ ...base, [someKey()]: junk(g) }) }; // inherited keys
    case 4: {
      const key = someKey();
      return {
        value: label(
          g,
          Object.defineProperty({ ...base }, key, { get: () => callerThrow(`getter of ${key}`), enumerable: true }),
          `options whose ${key} getter throws`,
        ),
      };
    }
    case 5:
      return { value: throwingProxy(g, { ...base }) };
    case 6:
      return detachingOptions(g, base, canon, someKey());
    case 7:
      if (keys.includes('mask'))
        return { value: { ...base, [g.pick(keys.filter((k) => k === 'mask' || k === 'keepMask'))]: maskMistake(g) } };
    // falls through
    default: {
      const key = someKey();
      const bad =
        key === 'softcap' && g.chance(0.5) ? g.pick(OUT_OF_RANGE_SOFTCAPS) : g.chance(0.5) ? junk(g) : badNumber(g);
      return { value: { ...base, [key]: bad } };
    }
  }
}

// Options whose getter detaches the buffer of one of the call's honest tensors: the library
// must have copied (or must re-check) what it validated before. (This found KVCache.attend's
// k and v, and attention()'s k, v, pastKey and pastValue with nothing to compute, copied
// without a re-check: the engine's bare "Cannot perform Construct on a detached
// ArrayBuffer" instead of an error naming the function. Fixed.)
function detachingOptions(g, base, canon, key) {
  const victims = g.inputs.filter(
    ([v]) =>
      v &&
      !Array.isArray(v) &&
      v.data instanceof Float32Array &&
      !(v.data.buffer instanceof SharedArrayBuffer) &&
      v.data.length > 0,
  );
  if (victims.length === 0) return { value: { ...base, [key]: junk(g) } };
  const [victim] = g.pick(victims);
  const options = { ...base };
  const original = options[key];
  Object.defineProperty(options, key, {
    enumerable: true,
    get() {
      if (victim.data.buffer.byteLength > 0) detach(victim.data.buffer);
      return original;
    },
  });
  return {
    value: label(
      g,
      options,
      `options whose ${key} getter detaches the buffer of the tensor ${inspect(victim.shape)} passed in the same call`,
    ),
    keepsCanon: true,
  };
}

// A sliding window for attention(), attentionBackward and KVCache.attend: one side, both, or
// none, sometimes wider than any sequence here.
export const windowArg = (g) => () => {
  const w = g.pick([
    {},
    { left: 0 },
    { left: 2 },
    { right: 1 },
    { left: 1, right: 0 },
    { left: 3, right: 2 },
    { left: Infinity, right: 0 },
    { left: 2 ** 40 },
  ]);
  return [w, w];
};
// Dropout with its seed (so that the reference can replay it): p 0 (none) to 0.9.
export const dropoutArg = (g) => () => {
  const d = { p: g.pick([0, 0.1, 0.5, 0.9]), seed: g.pick([0, 7, 2 ** 32 - 1, g.int(0, 1e6)]) };
  return [d, d];
};

// Softcaps out of float32's range (a mistake in an options object).
export const OUT_OF_RANGE_SOFTCAPS = [1e-46, 2 ** -151, 3.5e38, 1e300];

// --- layers' configs, graphs, and a valid call turned into a mistaken one ---------------

export function layerConfig(g, cls) {
  const numKvHeads = g.pick([1, 1, 2]),
    numHeads = numKvHeads * g.pick([1, 2]);
  const c = { dModel: numHeads * g.int(1, 3), numHeads };
  if (g.chance(0.3) || numKvHeads !== numHeads) c.numKvHeads = numKvHeads;
  if (g.chance(0.3)) c.bias = g.chance(0.5);
  if (g.chance(0.4)) c.seed = g.pick([0, 1, -7, 2 ** 40, 123456789]);
  if (cls === 'MultiHeadAttention') {
    if (g.chance(0.3)) c.kDim = g.int(1, 6);
    if (g.chance(0.3)) c.vDim = g.int(1, 6);
  } else {
    c.dFF = g.int(1, 12);
    if (g.chance(0.4)) c.norm = g.pick(['pre', 'post']);
    if (g.chance(0.4)) c.activation = g.pick(['relu', 'gelu']);
    if (g.chance(0.3)) c.eps = g.pick([1e-5, 1e-3, 0.5]);
  }
  return c;
}

export function hugeConfig(g, cls) {
  const c = g.pick([
    { dModel: 2 ** 15, numHeads: 1 },
    { dModel: 2 ** 31, numHeads: 1 },
    { dModel: 2 ** 53, numHeads: 2 },
    { dModel: 4, numHeads: 2, kDim: 2 ** 31 },
    { dModel: 2 ** 16, numHeads: 2 ** 16 },
  ]);
  if (cls === 'TransformerEncoderLayer') {
    delete c.kDim;
    c.dFF = g.pick([8, 2 ** 31, 2 ** 40]);
  }
  return c;
}

// A graph whose edges hold one bad node or a malformed edge.
export function graphMistake(g, graph) {
  const n = graph?.numNodes ?? 3;
  const edges = [...(graph?.edges ?? []).map((e) => e.slice())];
  const bad = g.pick([Symbol('node'), 1n, 1.5, -1, n, '1', null, NaN, {}, [0], undefined]);
  if (g.chance(0.7)) edges.push(g.chance(0.5) ? [0, bad] : [bad, 0]);
  else edges.push(g.pick([[1], [0, 1, 2], 'ab', {}, new Int32Array([0, 1]), null]));
  return { value: { numNodes: n, edges } };
}

export function perturb(g, call, canons = call.canons) {
  const i = g.int(0, call.args.length);
  if (i === call.args.length) {
    if (g.chance(0.5)) {
      // an extra argument past the parameters is ignored: still valid
      while (call.args.length < (call.kinds?.length ?? 0)) call.args.push(undefined);
      call.args.push(junk(g));
    } else {
      call.args.pop();
      call.check = null;
    }
    return;
  }
  const kind = call.kinds?.[i] ?? 'junk';
  const value = call.args[i];
  let out;
  switch (kind) {
    case 'tensor':
      out = tensorMistake(
        g,
        value,
        (value !== null && typeof value === 'object' && canons?.get(value)) || undefined,
        call.smallOnly,
      );
      break;
    case 'graph':
      out = g.chance(0.5) ? graphMistake(g, value) : optionsMistake(g, value, undefined, call.keys?.[i] ?? ['x']);
      break;
    case 'options':
    case 'weights':
    case 'config':
      out = optionsMistake(g, value, undefined, call.keys?.[i] ?? ['x']);
      break;
    case 'int':
    case 'count':
      out = { value: g.chance(0.7) ? badNumber(g) : junk(g) };
      break;
    case 'op':
      out = { value: g.chance(0.5) ? g.pick(['Sum', 'min', 'avg', '', 'max ']) : junk(g) };
      break;
    case 'this':
      out = { value: g.chance(0.5) ? junk(g) : g.pick([{}, Object.create(null), { params: null }]) };
      break;
    case 'data':
      out = {
        value: g.chance(0.5)
          ? junk(g)
          : g.pick([
              [1, '2', 3],
              [1n],
              [Symbol('x')],
              [1, , 3],
              [{}],
              [evilObject(g)],
              Float64Array.of(1, 2),
              new DataView(new ArrayBuffer(8)),
            ]),
      };
      break; // eslint-disable-line no-sparse-arrays
    case 'shape':
      out = { value: g.chance(0.5) ? junk(g) : badShape(g, [2, 2]) };
      break;
    case 'module':
      out = {
        value: g.chance(0.5)
          ? junk(g)
          : g.pick([
              {},
              { tensor: 'x', Tensor: 'x' },
              {
                tensor: () => callerThrow('tf.tensor'),
                Tensor: class {
                  constructor() {
                    callerThrow('new ort.Tensor');
                  }
                },
              },
              throwingProxy(g, {}),
              { Tensor: () => 1, tensor: 1 },
            ]),
      };
      break;
    default:
      out = { value: junk(g) };
  }
  call.args[i] = out.value;
  if (!out.keepsCanon) call.check = null;
  if (out.mustThrow) call.mustThrow = true;
}
