// Tensors: { data: Float32Array, shape: number[] }, row-major. Every public function also
// accepts nested arrays ([[1, 2], [3, 4]]); these helpers check and convert inputs before
// anything touches wasm memory.
import { typeError, rangeError, describe, show } from './errors.js';

/** Product of the dims of `shape` (0 if any dim is 0, even beside a dim of 1e308). */
export function sizeOf(shape) {
  let n = 1;
  for (const dim of shape) n *= dim;
  return shape.includes(0) ? 0 : n;
}

/** Formats a shape as [2, 3, 4] for messages. */
export function formatShape(shape) {
  return `[${shape.join(', ')}]`;
}

// The most dims a tensor may have (PyTorch allows 64 too).
const MAX_RANK = 64;

/**
 * Checks a shape and returns a copy of it: an array of at most MAX_RANK non-negative integers.
 * Its length and each dim are read once, by index (an Array subclass's iterator or a Proxy
 * cannot answer differently later).
 */
export function readShape(fn, name, shape) {
  if (!Array.isArray(shape)) throw typeError(fn, `${name}.shape must be an array of dims, got ${describe(shape)}`);
  const rank = shape.length;
  if (!Number.isInteger(rank) || rank < 0)
    throw rangeError(fn, `${name}.shape has length ${show(rank)}; an array length is needed`);
  if (rank > MAX_RANK) throw rangeError(fn, `${name}.shape has ${rank} dims; at most ${MAX_RANK} are supported`);
  const dims = new Array(rank);
  for (let axis = 0; axis < rank; axis++) {
    const dim = shape[axis];
    if (typeof dim !== 'number') throw typeError(fn, `${name}.shape[${axis}] must be a number, got ${describe(dim)}`);
    if (!Number.isSafeInteger(dim) || dim < 0) {
      throw rangeError(fn, `${name}.shape[${axis}] is ${dim}; dims must be non-negative integers (at most 2^53 - 1)`);
    }
    dims[axis] = dim;
  }
  return dims;
}

// The most values a nested array may hold: 2^29 floats are 2 GiB, more than the wasm heap
// takes, and a Proxy may claim any length without holding the values.
const MAX_NESTED_VALUES = 2 ** 29;

// An array's length, read once and checked (a Proxy's length trap may answer anything).
function arrayLength(fn, name, path, node) {
  const length = node.length;
  if (!Number.isInteger(length) || length < 0)
    throw rangeError(fn, `${name}${path} has length ${show(length)}; an array length is needed`);
  if (length > MAX_NESTED_VALUES)
    throw rangeError(fn, `${name}${path} has ${length} entries; nested arrays hold at most 2^29 values`);
  return length;
}

// Reads a nested array into a new typed array of kind `Out` in one pass: the shape from the
// first entries, then every entry exactly once by index (holes included: a hole is undefined,
// not a number), checking that it is rectangular and that its leaves pass `isLeaf`. Nothing
// is read twice, so a Proxy or getter cannot answer differently after it was checked.
function readNested(fn, name, x, isLeaf, leafKind, Out) {
  const shape = [];
  let level = x;
  while (Array.isArray(level)) {
    // A deeper nesting is no tensor (and an array that contains itself would never end).
    if (shape.length === MAX_RANK) throw rangeError(fn, `${name} is nested more than ${MAX_RANK} deep`);
    const length = arrayLength(fn, name, '[0]'.repeat(shape.length), level);
    shape.push(length);
    if (length === 0) break;
    level = level[0];
  }
  const count = sizeOf(shape);
  if (count > MAX_NESTED_VALUES) {
    throw rangeError(fn, `${name} ${formatShape(shape)} has ${count} values; nested arrays hold at most 2^29 values`);
  }
  const out = new Out(count);
  let offset = 0;
  const visit = (node, depth, path) => {
    if (depth === shape.length) {
      if (!isLeaf(node)) throw typeError(fn, `${name}${path} must be ${leafKind}, got ${describe(node)}`);
      out[offset++] = Number(node);
      return;
    }
    if (!Array.isArray(node) || arrayLength(fn, name, path, node) !== shape[depth]) {
      throw rangeError(
        fn,
        `${name} is ragged: ${name}${path} should have ${shape[depth]} entries like ${name}${'[0]'.repeat(depth)}`,
      );
    }
    for (let i = 0; i < shape[depth]; i++) visit(node[i], depth + 1, `${path}[${i}]`);
  };
  visit(x, 0, '');
  return { data: out, shape };
}

// %TypedArray%.prototype's own getters: the real length and kind of a typed array, whatever a
// subclass's `length` says; the kind is undefined for anything else (a Proxy, a DataView,
// Object.create(Float32Array.prototype)), so it doubles as a brand check.
const typedArrayProto = Object.getPrototypeOf(Int8Array.prototype);
const typedArrayLength = Object.getOwnPropertyDescriptor(typedArrayProto, 'length').get;
const typedArrayTag = Object.getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag).get;

// A caller's array used as it is, remembered with its length for intact().
function caller(data, length) {
  callerLengths.set(data, length);
  return data;
}

/** 'Float32Array', 'Uint8Array', ... for a real typed array; undefined for anything else. */
export function typedArrayKind(value) {
  return typedArrayTag.call(value);
}

/** A real typed array's element count (0 once its buffer is detached). */
export function lengthOf(typedArray) {
  return typedArrayLength.call(typedArray);
}

// The caller's own arrays that a checked tensor uses as they are (no copy), with their
// length when checked. Caller code that runs later in the same call (a getter, a Proxy trap)
// could detach or resize their buffers; intact() finds that before the data is used.
const callerLengths = new WeakMap();

/**
 * Throws a RangeError naming `fn` if a caller's array checked earlier in this call has since
 * changed length (its buffer detached or resized by the caller's own code). Returns the
 * array's real length.
 */
export function intact(fn, data) {
  const length = lengthOf(data);
  const expected = callerLengths.get(data);
  if (expected !== undefined && expected !== length) {
    throw rangeError(
      fn,
      `an input's buffer was detached or resized during the call (by the caller's getter or Proxy): it had ${expected} values, now ${length}; nothing was computed`,
    );
  }
  return length;
}

/**
 * `data` as a Float32Array, or null if it is no numeric data: a Float32Array passes as it
 * is (a subclass is copied into a plain one, so its overrides play no part later); another numeric typed array or a plain array of numbers is converted once (BigInt
 * arrays through Number). An empty array (a detached buffer included) becomes a fresh one.
 */
function readData(fn, name, data) {
  const kind = typedArrayKind(data);
  if (kind !== undefined) {
    const length = lengthOf(data);
    if (length === 0) return new Float32Array(0);
    if (kind === 'Float32Array')
      return Object.getPrototypeOf(data) === Float32Array.prototype ? caller(data, length) : new Float32Array(data);
    if (kind !== 'BigInt64Array' && kind !== 'BigUint64Array') return new Float32Array(data);
    const out = new Float32Array(length);
    for (let i = 0; i < length; i++) out[i] = Number(data[i]);
    return out;
  }
  if (!Array.isArray(data)) return null;
  const length = arrayLength(fn, `${name}.data`, '', data);
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    const value = data[i];
    if (typeof value !== 'number') throw typeError(fn, `${name}.data[${i}] must be a number, got ${describe(value)}`);
    out[i] = value;
  }
  return out;
}

/**
 * Copies `rows` rows of `width` values, `rowStride` apart in `data` from index `from`, into
 * `target` from index `at`, one after another (one set() when the rows are contiguous).
 */
export function copyRows(target, at, data, from, rows, rowStride, width) {
  if (rowStride === width) {
    target.set(data.subarray(from, from + rows * width), at);
    return;
  }
  for (let r = 0; r < rows; r++)
    target.set(data.subarray(from + r * rowStride, from + r * rowStride + width), at + r * width);
}

/** IEEE 754 binary16 → number (exact). */
export function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

// The 16-bit float formats a tensor's `dtype` may name, for Uint16Array data holding their
// bits (as onnxruntime-web and safetensors store them).
const HALF_DTYPES = ['float16', 'bfloat16'];

// Uint16Array bits of float16 or bfloat16 values as a new Float32Array (exact: every such
// value is a float32).
function decodeHalves(halves, dtype) {
  const n = lengthOf(halves);
  const out = new Float32Array(n);
  if (dtype === 'bfloat16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < n; i++) bits[i] = halves[i] << 16;
  } else {
    for (let i = 0; i < n; i++) out[i] = halfToFloat(halves[i]);
  }
  return out;
}

// The dtype of { data, shape, dtype }: undefined or 'float32' (numbers as they are), or
// 'float16' / 'bfloat16' with Uint16Array data holding the bits.
function checkDtype(fn, name, dtype, data) {
  if (dtype === undefined || dtype === 'float32') return undefined;
  if (!HALF_DTYPES.includes(dtype)) {
    throw typeError(fn, `${name}.dtype must be 'float32', 'float16' or 'bfloat16', got ${describe(dtype)}`);
  }
  if (typedArrayKind(data) !== 'Uint16Array') {
    throw typeError(
      fn,
      `${name}.dtype is '${dtype}', so ${name}.data must be a Uint16Array of its bits, got ${describe(data)}`,
    );
  }
  return dtype;
}

/**
 * A tensor of another library as { data, shape } (unchecked), or null: a TensorFlow.js
 * Tensor (`shape`, `dtype`, `dataSync()`) or an onnxruntime-web Tensor (`dims`, `type`,
 * `data`). Each property is read once.
 */
function fromForeign(fn, name, x) {
  const dataSync = x.dataSync;
  if (typeof dataSync === 'function') {
    const dtype = x.dtype;
    if (typeof dtype === 'string') {
      if (!['float32', 'int32', 'bool'].includes(dtype))
        throw typeError(fn, `${name} is a tfjs tensor of dtype '${dtype}'; numbers are needed`);
      const shape = readShape(fn, name, x.shape);
      const values = Reflect.apply(dataSync, x, []);
      if (typedArrayKind(values) === undefined)
        throw typeError(fn, `${name} is a tfjs tensor whose dataSync() gave ${describe(values)}, not a typed array`);
      return { data: values, shape };
    }
  }
  const dims = x.dims;
  const type = x.type;
  if (Array.isArray(dims) && typeof type === 'string') {
    const data = x.data;
    if (type === 'string' || typedArrayKind(data) === undefined)
      throw typeError(fn, `${name} is an onnxruntime tensor of type '${type}'; numbers are needed`);
    const dtype = HALF_DTYPES.includes(type) && typedArrayKind(data) === 'Uint16Array' ? type : undefined;
    return { data, dtype, shape: readShape(fn, `${name}.dims`, dims) };
  }
  return null;
}

// A typed array where a tensor belongs: its shape cannot be guessed, so say how to give one.
function bareTypedArray(fn, name, x) {
  const kind = typedArrayKind(x);
  return typeError(
    fn,
    `${name} is a bare ${kind} of ${lengthOf(x)} values, which has no shape: pass { data: ${name}, shape: [rows, cols] } or tensor(${name}, [rows, cols])`,
  );
}

/**
 * Checks a float tensor and returns { data: Float32Array, shape }. Accepted: { data, shape }
 * with Float32Array data (used as is) or any numeric TypedArray / number array (converted
 * once), { data: Uint16Array, shape, dtype: 'float16' | 'bfloat16' } (the bits, decoded
 * exactly), a nested number array, a TensorFlow.js or an onnxruntime-web Tensor (float16
 * ones included).
 * `name` is the tensor's name in messages (q, k, v, ...).
 */
export function toTensor(fn, name, x) {
  if (Array.isArray(x)) return readNested(fn, name, x, (leaf) => typeof leaf === 'number', 'a number', Float32Array);
  if (x === null || typeof x !== 'object') {
    throw typeError(fn, `${name} must be a tensor { data: Float32Array, shape } or a nested array, got ${describe(x)}`);
  }
  if (typedArrayKind(x) !== undefined) throw bareTypedArray(fn, name, x);
  // Each property is read once: a getter may not answer differently after the checks.
  const foreign = fromForeign(fn, name, x);
  const rawData = foreign ? foreign.data : x.data;
  const dtype = foreign ? foreign.dtype : checkDtype(fn, name, x.dtype, rawData);
  const data = dtype ? decodeHalves(rawData, dtype) : readData(fn, name, rawData);
  if (data === null) {
    throw typeError(
      fn,
      `${name}.data must be a Float32Array (or another numeric TypedArray or number array), got ${describe(rawData)}`,
    );
  }
  const shape = foreign ? foreign.shape : readShape(fn, name, x.shape);
  return checkedLength(fn, name, data, shape);
}

/**
 * Checks a tensor of integer indices (position ids): a nested number array, or { data, shape }
 * with any numeric TypedArray (BigInt64Array included) or number array, or a tfjs / ort
 * tensor. Returns { data: Float64Array, shape }, exact for every integer up to 2^53; the
 * caller checks that each value is an integer in its range.
 */
export function toIndexTensor(fn, name, x) {
  if (Array.isArray(x)) return readNested(fn, name, x, (leaf) => typeof leaf === 'number', 'a number', Float64Array);
  if (x === null || typeof x !== 'object') {
    throw typeError(fn, `${name} must be a tensor { data, shape } or a nested array of integers, got ${describe(x)}`);
  }
  if (typedArrayKind(x) !== undefined) throw bareTypedArray(fn, name, x);
  const foreign = fromForeign(fn, name, x);
  const raw = foreign ? foreign.data : x.data;
  let data;
  if (typedArrayKind(raw) !== undefined) {
    const length = lengthOf(raw);
    data = new Float64Array(length);
    for (let i = 0; i < length; i++) data[i] = Number(raw[i]);
  } else if (Array.isArray(raw)) {
    const length = arrayLength(fn, `${name}.data`, '', raw);
    data = new Float64Array(length);
    for (let i = 0; i < length; i++) {
      const value = raw[i];
      if (typeof value !== 'number') throw typeError(fn, `${name}.data[${i}] must be a number, got ${describe(value)}`);
      data[i] = value;
    }
  } else {
    throw typeError(fn, `${name}.data must be a numeric TypedArray or a number array, got ${describe(raw)}`);
  }
  const shape = foreign ? foreign.shape : readShape(fn, name, x.shape);
  return checkedLength(fn, name, data, shape);
}

// { data, shape } once data holds exactly the values the shape needs (its real length).
function checkedLength(fn, name, data, shape) {
  const length = lengthOf(data);
  const expected = sizeOf(shape);
  if (length !== expected) {
    throw rangeError(fn, `${name} has ${length} values but shape ${formatShape(shape)} needs ${expected}`);
  }
  return { data, shape };
}

/** Is `f` a constructor (callable with `new`)? Calls nothing of `f`'s. */
function isConstructor(f) {
  if (typeof f !== 'function') return false;
  try {
    Reflect.construct(String, [], f);
    return true;
  } catch {
    return false;
  }
}

/** A TensorFlow.js tensor of `t`, made with the caller's own `tf` module. */
export function toTfjs(t, tf) {
  const { data, shape } = toTensor('toTfjs', 'tensor', t);
  const make = tf !== null && (typeof tf === 'object' || typeof tf === 'function') ? tf.tensor : undefined;
  if (typeof make !== 'function')
    throw typeError('toTfjs', `tf must be the TensorFlow.js module (with tf.tensor), got ${describe(tf)}`);
  return Reflect.apply(make, tf, [data, shape, 'float32']);
}

/** An onnxruntime-web tensor of `t`, made with the caller's own `ort` module. */
export function toOrt(t, ort) {
  const { data, shape } = toTensor('toOrt', 'tensor', t);
  const Tensor = ort !== null && (typeof ort === 'object' || typeof ort === 'function') ? ort.Tensor : undefined;
  if (!isConstructor(Tensor))
    throw typeError(
      'toOrt',
      `ort must be the onnxruntime-web module (with the class ort.Tensor), got ${describe(ort)}`,
    );
  return new Tensor('float32', data, shape);
}

/**
 * Checks a mask: boolean ({ data: Uint8Array } or nested booleans; true/1 = may attend) or
 * additive float ({ data: Float32Array } or nested numbers). Returns
 * { data, shape, boolean: true|false }.
 */
export function toMask(fn, name, x) {
  if (typeof x === 'string') {
    const hint = /causal/i.test(x)
      ? ": for a causal mask pass the option { causal: true } (with causalAlign: 'bottom-right' when the queries are the last of the keys)"
      : '';
    throw typeError(
      fn,
      `${name} must be a tensor or a nested array, got the string ${JSON.stringify(x.slice(0, 40))}${hint}`,
    );
  }
  if (Array.isArray(x)) {
    let first = x;
    for (let depth = 0; Array.isArray(first) && depth <= MAX_RANK; depth++) first = first[0];
    if (typeof first === 'boolean') {
      return {
        ...readNested(fn, name, x, (leaf) => typeof leaf === 'boolean', 'a boolean', Uint8Array),
        boolean: true,
      };
    }
    return { ...toTensor(fn, name, x), boolean: false };
  }
  if (x === null || typeof x !== 'object') return { ...toTensor(fn, name, x), boolean: false };
  if (typedArrayKind(x) !== undefined) throw bareTypedArray(fn, name, x);
  // Each property is read once. A tfjs 'bool' tensor is a boolean mask, other foreign
  // tensors additive ones.
  const foreign = fromForeign(fn, name, x);
  const data = foreign ? foreign.data : x.data;
  const kind = typedArrayKind(data);
  const dtype = foreign ? foreign.dtype : checkDtype(fn, name, x.dtype, data);
  if (dtype)
    return {
      ...checkedLength(fn, name, decodeHalves(data, dtype), foreign ? foreign.shape : readShape(fn, name, x.shape)),
      boolean: false,
    };
  if (kind !== 'Uint8Array' && kind !== 'Float32Array' && !(foreign && kind !== undefined)) {
    throw typeError(
      fn,
      `${name}.data must be a Uint8Array (boolean mask) or a Float32Array (additive mask), got ${describe(data)}`,
    );
  }
  const shape = foreign ? foreign.shape : readShape(fn, name, x.shape);
  if (kind === 'Uint8Array') {
    const length = lengthOf(data);
    const own =
      length === 0
        ? new Uint8Array(0)
        : Object.getPrototypeOf(data) === Uint8Array.prototype
          ? caller(data, length)
          : new Uint8Array(data);
    return { ...checkedLength(fn, name, own, shape), boolean: true };
  }
  return { ...checkedLength(fn, name, readData(fn, name, data), shape), boolean: false };
}

/**
 * Results of empty computations (a 0 in the inputs' inner dims does not make the result
 * small) are made in JS, held to the rule every other result meets: at most `maxBytes` (the
 * wasm heap's limit), else a RangeError naming the function and the tensor.
 */
export function checkResultSize(fn, name, shape, maxBytes) {
  const bytes = 4 * sizeOf(shape);
  if (bytes > maxBytes) {
    throw rangeError(
      fn,
      `the ${name} ${formatShape(shape)} would need ${(bytes / 2 ** 30).toFixed(1)} GiB; results are limited to what the wasm heap holds, ${(maxBytes / 2 ** 30).toFixed(1)} GiB`,
    );
  }
}

/** A zero-filled result of an empty computation, checked by checkResultSize. */
export function zeros(fn, name, shape, maxBytes) {
  checkResultSize(fn, name, shape, maxBytes);
  return { data: new Float32Array(sizeOf(shape)), shape };
}

/** Makes a tensor from flat data (a number array or numeric typed array) and a shape. */
export function tensor(data, shape) {
  const fn = 'tensor';
  const values = readData(fn, 'tensor', data);
  if (values === null) throw typeError(fn, `data must be a Float32Array or an array of numbers, got ${describe(data)}`);
  const dims = shape === undefined ? [lengthOf(values)] : readShape(fn, 'tensor', shape);
  return checkedLength(fn, 'tensor', values, dims);
}

// toNested builds one JS array per row of every axis and one number per value; past this many
// the engine would run out of memory (and abort the process) instead of throwing.
const MAX_NESTED_NODES = 2 ** 26;

/** Turns a tensor into nested arrays of numbers (a rank-0 tensor gives a number). */
export function toNested(t) {
  const { data, shape } = toTensor('toNested', 'tensor', t);
  let nodes = 1;
  let rows = 1;
  for (const dim of shape) {
    rows *= dim;
    nodes += rows;
  }
  if (nodes > MAX_NESTED_NODES) {
    throw rangeError(
      'toNested',
      `tensor ${formatShape(shape)} would make ${nodes} nested arrays and numbers; at most 2^26 (use tensor.data instead)`,
    );
  }
  const build = (axis, offset) => {
    if (axis === shape.length) return data[offset];
    const stride = sizeOf(shape.slice(axis + 1));
    return Array.from({ length: shape[axis] }, (_, i) => build(axis + 1, offset + i * stride));
  };
  return build(0, 0);
}

/**
 * Broadcasts shapes NumPy-style (aligned on the right). `named` is a list of
 * [name, shape]; the error names the two tensors that disagree.
 */
export function broadcastShapes(fn, named, what = 'leading dims') {
  const rank = Math.max(0, ...named.map(([, s]) => s.length));
  const out = new Array(rank).fill(1);
  const owner = new Array(rank).fill(null);
  for (const [name, shape] of named) {
    for (let i = 0; i < shape.length; i++) {
      const axis = rank - shape.length + i;
      const dim = shape[i];
      if (dim === out[axis] || dim === 1) continue;
      if (out[axis] === 1) {
        out[axis] = dim;
        owner[axis] = name;
        continue;
      }
      throw rangeError(
        fn,
        `${what} of ${name} ${formatShape(shape)} do not broadcast with ${owner[axis]} (size ${out[axis]} vs ${dim})`,
      );
    }
  }
  return out;
}

/** Row-major strides of `shape`, with 0 for axes of size 1 (so they broadcast). */
export function broadcastStrides(shape, innerSize) {
  const strides = new Array(shape.length);
  let stride = innerSize;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = shape[i] === 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}
