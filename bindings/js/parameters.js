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

export class Parameters {
  /** The wasm memory of weights of these shapes (name → shape), one block each. */
  static plan(owner, shapes) {
    const memory = new MemoryPlan(owner);
    for (const [name, shape] of Object.entries(shapes)) memory.tensor(`weight ${name}`, shape);
    return memory;
  }

  /**
   * @param {object} module the Emscripten module
   * @param {string} owner class name, for messages ('MultiHeadAttention')
   * @param {Record<string, number[]>} shapes name → shape
   */
  constructor(module, owner, shapes) {
    this.module = module;
    this.owner = owner;
    this.shapes = shapes;
    this.addresses = {};
    this.disposed = false;
    const memory = Parameters.plan(owner, shapes);
    checkBudget(module, memory);
    try {
      for (const name of Object.keys(shapes)) {
        const address = module._malloc(Math.max(4, 4 * sizeOf(shapes[name])));
        if (address === 0) throw new RangeError(`${owner}: out of wasm memory for ${formatBytes(memory.bytes)} of weights`);
        this.addresses[name] = address;
      }
    } catch (error) {
      for (const address of Object.values(this.addresses)) module._free(address);
      throw error;
    }
    this.token = {};
    finalizer.register(this, { module, addresses: Object.values(this.addresses) }, this.token);
  }

  /** Throws if dispose() was called. */
  check(method) {
    if (this.disposed) throw new Error(`${this.owner}.${method}: this object was disposed; create a new one`);
  }

  view(name) {
    const start = this.addresses[name] >> 2;
    return views(this.module).HEAPF32.subarray(start, start + sizeOf(this.shapes[name]));
  }

  /** Fills `name` with Xavier-uniform values: U(±sqrt(6 / (fanIn + fanOut))). */
  xavier(name, random) {
    const [fanIn, fanOut] = this.shapes[name];
    const bound = Math.sqrt(6 / (fanIn + fanOut));
    const v = this.view(name);
    for (let i = 0; i < v.length; i++) v[i] = (2 * random() - 1) * bound;
  }

  fill(name, value) {
    this.view(name).fill(value);
  }

  /** Checks every given tensor first, then copies them all in (all or nothing). */
  set(method, weights) {
    this.check(method);
    if (weights === null || typeof weights !== 'object' || Array.isArray(weights)) {
      throw typeError(`${this.owner}.${method}`, `weights must be an object { name: tensor }, got ${describe(weights)}`);
    }
    const checked = [];
    for (const [name, value] of Object.entries(weights)) {
      if (value === undefined) continue;
      if (!Object.hasOwn(this.shapes, name)) {
        throw rangeError(`${this.owner}.${method}`, `unknown weight '${name}' (this layer has: ${Object.keys(this.shapes).join(', ')})`);
      }
      const t = toTensor(`${this.owner}.${method}`, name, value);
      const expected = this.shapes[name];
      if (t.shape.length !== expected.length || t.shape.some((d, i) => d !== expected[i])) {
        throw rangeError(`${this.owner}.${method}`, `${name} has shape ${formatShape(t.shape)} but this layer needs ${formatShape(expected)}`);
      }
      checked.push([name, t.data]);
    }
    // All or nothing: a later weight's getter may have detached an earlier one's buffer.
    for (const [, data] of checked) intact(`${this.owner}.${method}`, data);
    for (const [name, data] of checked) this.view(name).set(data);
  }

  /** Copies every weight out as tensors. */
  get(method) {
    this.check(method);
    const out = {};
    for (const name of Object.keys(this.shapes)) out[name] = { data: this.view(name).slice(), shape: this.shapes[name].slice() };
    return out;
  }

  address(name) {
    return name in this.addresses ? this.addresses[name] : 0;
  }

  dispose() {
    if (this.disposed) return;
    for (const address of Object.values(this.addresses)) this.module._free(address);
    finalizer.unregister(this.token);
    this.disposed = true;
  }
}
