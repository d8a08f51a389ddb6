// Tensors: { data: Float32Array, shape: number[] }, row-major. Every public function also
// accepts nested arrays ([[1, 2], [3, 4]]); these helpers check and convert inputs before
// anything touches wasm memory.
import { typeError, rangeError, describe } from './errors.js';

/** Product of the dims of `shape`. */
export function sizeOf(shape) {
  let n = 1;
  for (const dim of shape) n *= dim;
  return n;
}

/** Formats a shape as [2, 3, 4] for messages. */
export function formatShape(shape) {
  return `[${shape.join(', ')}]`;
}

// The most dims a tensor may have (PyTorch allows 64 too).
const MAX_RANK = 64;

/** Checks a shape: an array of at most MAX_RANK non-negative integers. */
export function checkShape(fn, name, shape) {
  if (!Array.isArray(shape)) throw typeError(fn, `${name}.shape must be an array of dims, got ${describe(shape)}`);
  if (shape.length > MAX_RANK) throw rangeError(fn, `${name}.shape has ${shape.length} dims; at most ${MAX_RANK} are supported`);
  shape.forEach((dim, axis) => {
    if (typeof dim !== 'number') throw typeError(fn, `${name}.shape[${axis}] must be a number, got ${describe(dim)}`);
    if (!Number.isInteger(dim) || dim < 0) {
      throw rangeError(fn, `${name}.shape[${axis}] is ${dim}; dims must be non-negative integers`);
    }
  });
}

// Walks a nested array to find its shape; checks that it is rectangular and that its
// leaves pass `isLeaf`.
function nestedShape(fn, name, x, isLeaf, leafKind) {
  const shape = [];
  let level = x;
  while (Array.isArray(level)) {
    // A deeper nesting is no tensor (and an array that contains itself would never end).
    if (shape.length === MAX_RANK) throw rangeError(fn, `${name} is nested more than ${MAX_RANK} deep`);
    shape.push(level.length);
    level = level[0];
  }
  const visit = (node, depth, path) => {
    if (depth === shape.length) {
      if (!isLeaf(node)) throw typeError(fn, `${name}${path} must be ${leafKind}, got ${describe(node)}`);
      return;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      throw rangeError(fn, `${name} is ragged: ${name}${path} should have ${shape[depth]} entries like ${name}${'[0]'.repeat(depth)}`);
    }
    // Every index, holes included (a hole is undefined, not a number).
    for (let i = 0; i < node.length; i++) visit(node[i], depth + 1, `${path}[${i}]`);
  };
  visit(x, 0, '');
  return shape;
}

function flatten(x, out, offset) {
  if (!Array.isArray(x)) {
    out[offset] = Number(x);
    return offset + 1;
  }
  for (const child of x) offset = flatten(child, out, offset);
  return offset;
}

// %TypedArray%.prototype.length: the real length, whatever a subclass's `length` says.
const typedArrayLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), 'length').get;

// Numeric data other than Float32Array that a tensor's `data` may be (converted once).
function isNumericArray(data) {
  return (ArrayBuffer.isView(data) && !(data instanceof DataView)) || (Array.isArray(data) && data.every((v) => typeof v === 'number'));
}

// Float32Array of numeric data (BigInt arrays through Number). Float32Arrays pass as they are.
function asFloats(data) {
  if (data instanceof Float32Array) return data;
  return data instanceof BigInt64Array || data instanceof BigUint64Array ? Float32Array.from(data, Number) : Float32Array.from(data);
}

/**
 * A tensor of another library as { data, shape }, or null: a TensorFlow.js Tensor (`shape`,
 * `dtype`, `dataSync()`) or an onnxruntime-web Tensor (`dims`, `type`, `data`).
 */
function fromForeign(fn, name, x) {
  if (typeof x.dataSync === 'function' && Array.isArray(x.shape) && typeof x.dtype === 'string') {
    if (!['float32', 'int32', 'bool'].includes(x.dtype)) throw typeError(fn, `${name} is a tfjs tensor of dtype '${x.dtype}'; numbers are needed`);
    return { data: asFloats(x.dataSync()), shape: x.shape.slice() };
  }
  if (Array.isArray(x.dims) && typeof x.type === 'string' && x.data !== undefined) {
    if (x.type === 'string' || !ArrayBuffer.isView(x.data)) throw typeError(fn, `${name} is an onnxruntime tensor of type '${x.type}'; numbers are needed`);
    return { data: asFloats(x.data), shape: x.dims.slice() };
  }
  return null;
}

/**
 * Checks a float tensor and returns { data: Float32Array, shape }. Accepted: { data, shape }
 * with Float32Array data (used as is) or any numeric TypedArray / number array (converted
 * once), a nested number array, a TensorFlow.js or an onnxruntime-web Tensor.
 * `name` is the tensor's name in messages (q, k, v, ...).
 */
export function toTensor(fn, name, x) {
  if (Array.isArray(x)) {
    const shape = nestedShape(fn, name, x, (leaf) => typeof leaf === 'number', 'a number');
    const data = new Float32Array(sizeOf(shape));
    flatten(x, data, 0);
    return { data, shape };
  }
  if (x === null || typeof x !== 'object') {
    throw typeError(fn, `${name} must be a tensor { data: Float32Array, shape } or a nested array, got ${describe(x)}`);
  }
  // Each property is read once: a getter may not answer differently after the checks.
  const t = fromForeign(fn, name, x) ?? { data: x.data, shape: x.shape };
  if (!isNumericArray(t.data)) {
    throw typeError(fn, `${name}.data must be a Float32Array (or another numeric TypedArray or number array), got ${describe(t.data)}`);
  }
  checkShape(fn, name, t.shape);
  const shape = Array.from(t.shape);
  const data = asFloats(t.data);
  // The typed array's own length, not a subclass getter's: the heap copy uses the real one.
  const length = typedArrayLength.call(data);
  const expected = sizeOf(shape);
  if (length !== expected) {
    throw rangeError(fn, `${name} has ${length} values but shape ${formatShape(shape)} needs ${expected}`);
  }
  return { data, shape };
}

/** A TensorFlow.js tensor of `t`, made with the caller's own `tf` module. */
export function toTfjs(t, tf) {
  const { data, shape } = toTensor('toTfjs', 'tensor', t);
  if (tf === null || typeof tf?.tensor !== 'function') throw typeError('toTfjs', `tf must be the TensorFlow.js module (with tf.tensor), got ${describe(tf)}`);
  return tf.tensor(data, shape, 'float32');
}

/** An onnxruntime-web tensor of `t`, made with the caller's own `ort` module. */
export function toOrt(t, ort) {
  const { data, shape } = toTensor('toOrt', 'tensor', t);
  if (ort === null || typeof ort?.Tensor !== 'function') throw typeError('toOrt', `ort must be the onnxruntime-web module (with ort.Tensor), got ${describe(ort)}`);
  return new ort.Tensor('float32', data, shape);
}

/**
 * Checks a mask: boolean ({ data: Uint8Array } or nested booleans; true/1 = may attend) or
 * additive float ({ data: Float32Array } or nested numbers). Returns
 * { data, shape, boolean: true|false }.
 */
export function toMask(fn, name, x) {
  if (Array.isArray(x)) {
    let first = x;
    for (let depth = 0; Array.isArray(first) && depth <= MAX_RANK; depth++) first = first[0];
    if (typeof first === 'boolean') {
      const shape = nestedShape(fn, name, x, (leaf) => typeof leaf === 'boolean', 'a boolean');
      const data = new Uint8Array(sizeOf(shape));
      flatten(x, data, 0);
      return { data, shape, boolean: true };
    }
    return { ...toTensor(fn, name, x), boolean: false };
  }
  if (x !== null && typeof x === 'object' && x.data instanceof Uint8Array) {
    checkShape(fn, name, x.shape);
    const expected = sizeOf(x.shape);
    if (x.data.length !== expected) {
      throw rangeError(fn, `${name} has ${x.data.length} values but shape ${formatShape(x.shape)} needs ${expected}`);
    }
    return { data: x.data, shape: x.shape.slice(), boolean: true };
  }
  if (x !== null && typeof x === 'object' && x.data !== undefined && !(x.data instanceof Float32Array)) {
    throw typeError(fn, `${name}.data must be a Uint8Array (boolean mask) or a Float32Array (additive mask), got ${describe(x.data)}`);
  }
  return { ...toTensor(fn, name, x), boolean: false };
}

/**
 * A zero-filled result of an empty computation (a 0 in the inputs' inner dims does not make
 * the result small), held to the rule every other result meets: at most `maxBytes` (the wasm
 * heap's limit), else a RangeError naming the function and the tensor.
 */
export function zeros(fn, name, shape, maxBytes) {
  const bytes = 4 * sizeOf(shape);
  if (bytes > maxBytes) {
    throw rangeError(fn, `the ${name} ${formatShape(shape)} would need ${(bytes / 2 ** 30).toFixed(1)} GiB; results are limited to what the wasm heap holds, ${maxBytes / 2 ** 30} GiB`);
  }
  return { data: new Float32Array(bytes / 4), shape };
}

/** Makes a tensor from a flat array (or typed array) and a shape. */
export function tensor(data, shape) {
  const fn = 'tensor';
  const values = data instanceof Float32Array ? data : Array.isArray(data) ? Float32Array.from(data) : null;
  if (values === null) throw typeError(fn, `data must be a Float32Array or an array of numbers, got ${describe(data)}`);
  const dims = shape ?? [values.length];
  return toTensor(fn, 'tensor', { data: values, shape: dims });
}

/** Turns a tensor into nested arrays of numbers (a rank-0 tensor gives a number). */
export function toNested(t) {
  const { data, shape } = toTensor('toNested', 'tensor', t);
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
      throw rangeError(fn, `${what} of ${name} ${formatShape(shape)} do not broadcast with ${owner[axis]} (size ${out[axis]} vs ${dim})`);
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
