// Named weight tensors that live in wasm memory for the lifetime of a layer object:
// allocated once, overwritten by setWeights, read back by getWeights, freed by dispose.
import { typeError, rangeError, describe } from './errors.js';
import { views } from './heap.js';
import { toTensor, formatShape, sizeOf, intact } from './tensor.js';
import { MemoryPlan, checkBudget, formatBytes } from './memory.js';

// Frees a layer's wasm memory if its JS object is collected without dispose().
const finalizer = new FinalizationRegistry(({ module, addresses }) => {
  for (const address of addresses) module._free(address);
});

/** Deterministic uniform numbers in [0, 1) (mulberry32), for seeded initialisation. */
export function seededRandom(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A [inner, cols] matrix stored as MatMul's panels (src/kernels/matmul.h): panel t holds
// columns 8t .. 8t + 7 of every row, [inner, 8], the columns past `cols` zero. The packed
// layers keep their projection matrices only in this form, so that a forward pass never
// packs them (38.2 → 36.1 ms for a dModel-512, N = 512 MultiHeadAttention.forward in Node).
const PANEL = 8;
const panelFloats = ([inner, cols]) => Math.ceil(cols / PANEL) * inner * PANEL;

// Row-major [inner, cols] → panels (every element of `panels` written).
function packPanels(data, [inner, cols], panels) {
  for (let t = 0, o = 0; t * PANEL < cols; t++) {
    for (let p = 0; p < inner; p++) {
      for (let j = 0; j < PANEL; j++, o++) {
        const col = t * PANEL + j;
        panels[o] = col < cols ? data[p * cols + col] : 0;
      }
    }
  }
}

// Panels → a new row-major [inner, cols] Float32Array.
function unpackPanels(panels, [inner, cols]) {
  const data = new Float32Array(inner * cols);
  for (let t = 0; t * PANEL < cols; t++) {
    for (let p = 0; p < inner; p++) {
      const o = (t * inner + p) * PANEL;
      for (let j = 0; j < PANEL && t * PANEL + j < cols; j++) data[p * cols + t * PANEL + j] = panels[o + j];
    }
  }
  return data;
}

export class Parameters {
  /**
   * The wasm memory of weights of these shapes (name → shape), one block each; the
   * matrices named in `packed` are stored as panels (their columns padded to a multiple of 8).
   */
  static plan(owner, shapes, packed = []) {
    const memory = new MemoryPlan(owner);
    for (const [name, shape] of Object.entries(shapes)) {
      memory.tensor(`weight ${name}`, shape);
      if (packed.includes(name)) memory.blocks.at(-1).bytes = 4 * panelFloats(shape);
    }
    return memory;
  }

  /**
   * @param {object} module the Emscripten module
   * @param {string} owner class name, for messages ('MultiHeadAttention')
   * @param {Record<string, number[]>} shapes name → shape
   * @param {string[]} packed the [inner, cols] matrices stored as MatMul's panels
   */
  constructor(module, owner, shapes, packed = []) {
    this.module = module;
    this.owner = owner;
    this.shapes = shapes;
    this.packed = new Set(packed);
    this.addresses = {};
    this.disposed = false;
    const memory = Parameters.plan(owner, shapes, packed);
    checkBudget(module, memory);
    try {
      for (const [name, shape] of Object.entries(shapes)) {
        const floats = this.packed.has(name) ? panelFloats(shape) : sizeOf(shape);
        const address = module._malloc(Math.max(4, 4 * floats)) >>> 0;
        if (address === 0)
          throw new RangeError(`${owner}: out of wasm memory for ${formatBytes(memory.bytes)} of weights`);
        this.addresses[name] = address;
      }
    } catch (error) {
      for (const address of Object.values(this.addresses)) module._free(address);
      throw error;
    }
    this.token = {};
    finalizer.register(this, { module, addresses: Object.values(this.addresses) }, this.token);
  }

  /**
   * Throws if dispose() was called. Methods call it on entry and again once all of the
   * caller's code (getters, iterators, valueOf) has run, just before wasm memory is touched:
   * a getter may dispose the object in between (`during`).
   */
  check(method, during = false) {
    if (this.disposed)
      throw new Error(
        `${this.owner}.${method}: this object was disposed${during ? " during the call (by the caller's own code, e.g. a getter)" : ''}; create a new one`,
      );
  }

  // The heap floats of `name`: its values, or its panels when packed.
  view(name) {
    const shape = this.shapes[name];
    const start = this.addresses[name] >>> 2;
    return views(this.module).HEAPF32.subarray(
      start,
      start + (this.packed.has(name) ? panelFloats(shape) : sizeOf(shape)),
    );
  }

  /** Writes row-major `data` into `name` (packing it if it is stored as panels). */
  write(name, data) {
    if (this.packed.has(name)) packPanels(data, this.shapes[name], this.view(name));
    else this.view(name).set(data);
  }

  /** A new row-major Float32Array of `name`'s values. */
  read(name) {
    return this.packed.has(name) ? unpackPanels(this.view(name), this.shapes[name]) : this.view(name).slice();
  }

  /** Fills `name` with Xavier-uniform values: U(±sqrt(6 / (fanIn + fanOut))). */
  xavier(name, random) {
    const [fanIn, fanOut] = this.shapes[name];
    const bound = Math.sqrt(6 / (fanIn + fanOut));
    const v = new Float32Array(sizeOf(this.shapes[name]));
    for (let i = 0; i < v.length; i++) v[i] = (2 * random() - 1) * bound;
    this.write(name, v);
  }

  fill(name, value) {
    this.write(name, new Float32Array(sizeOf(this.shapes[name])).fill(value));
  }

  /** Checks every given tensor first, then copies them all in (all or nothing). */
  set(method, weights) {
    this.check(method);
    if (weights === null || typeof weights !== 'object' || Array.isArray(weights)) {
      throw typeError(
        `${this.owner}.${method}`,
        `weights must be an object { name: tensor }, got ${describe(weights)}`,
      );
    }
    const checked = [];
    for (const [name, value] of Object.entries(weights)) {
      if (value === undefined) continue;
      if (!Object.hasOwn(this.shapes, name)) {
        throw rangeError(
          `${this.owner}.${method}`,
          `unknown weight '${name}' (this layer has: ${Object.keys(this.shapes).join(', ')})`,
        );
      }
      const t = toTensor(`${this.owner}.${method}`, name, value);
      const expected = this.shapes[name];
      if (t.shape.length !== expected.length || t.shape.some((d, i) => d !== expected[i])) {
        throw rangeError(
          `${this.owner}.${method}`,
          `${name} has shape ${formatShape(t.shape)} but this layer needs ${formatShape(expected)}`,
        );
      }
      checked.push([name, t.data]);
    }
    // All or nothing: a later weight's getter may have detached an earlier one's buffer.
    for (const [, data] of checked) intact(`${this.owner}.${method}`, data);
    this.check(method, true);
    for (const [name, data] of checked) this.write(name, data);
  }

  /** Copies every weight out as tensors. */
  get(method) {
    this.check(method);
    const out = {};
    for (const name of Object.keys(this.shapes))
      out[name] = { data: this.read(name), shape: this.shapes[name].slice() };
    return out;
  }

  /** The address of `name`'s values (0 when it is stored as panels, or absent). */
  address(name) {
    return name in this.addresses && !this.packed.has(name) ? this.addresses[name] : 0;
  }

  /** The address of `name`'s panels (0 when it is not stored as panels). */
  panelsAddress(name) {
    return this.packed.has(name) ? this.addresses[name] : 0;
  }

  dispose() {
    if (this.disposed) return;
    for (const address of Object.values(this.addresses)) this.module._free(address);
    finalizer.unregister(this.token);
    this.disposed = true;
  }
}
