// Copy-in / copy-out of the wasm heap. A HeapScope owns every block it allocates and
// frees them all in release(), which callers put in `finally`, so nothing leaks even
// when a call fails. Heap views are re-read after every call that can grow memory.
// Callers check their MemoryPlan (memory.js) first; the checks here are the last guard.
import { formatBytes, heapMaxBytes } from './memory.js';
import { intact } from './tensor.js';

/**
 * The module with its heap views current. In the threaded builds the memory is shared and
 * a grow on any thread gives `wasmMemory.buffer` a new, longer SharedArrayBuffer while the
 * module's HEAP* views keep the old length; the kernels never grow memory off the calling
 * thread, and this makes sure of the rest.
 */
export function views(module) {
  const memory = module.wasmMemory;
  if (memory !== undefined && module.HEAP8.buffer !== memory.buffer) {
    const buffer = memory.buffer;
    module.HEAP8 = new Int8Array(buffer);
    module.HEAPU8 = new Uint8Array(buffer);
    module.HEAP32 = new Int32Array(buffer);
    module.HEAPF32 = new Float32Array(buffer);
  }
  return module;
}

export class HeapScope {
  /**
   * @param {object} module the Emscripten module
   * @param {string} fn the public function, for the out-of-memory message
   */
  constructor(module, fn) {
    this.module = module;
    this.fn = fn;
    this.blocks = [];
  }

  /** Allocates `count` bytes and returns the address (never 0). */
  allocBytes(count) {
    const max = heapMaxBytes(this.module);
    if (!Number.isSafeInteger(count) || count < 0 || count > max) {
      throw new RangeError(
        `${this.fn}: cannot allocate ${count} bytes; the wasm heap holds at most ${formatBytes(max, true)}`,
      );
    }
    const address = this.module._malloc(Math.max(1, count)) >>> 0; // unsigned: the heap passes 2 GiB
    if (address === 0)
      throw new RangeError(
        `${this.fn}: out of wasm memory allocating ${formatBytes(count)} (the heap holds at most ${formatBytes(max, true)}, ${formatBytes(this.module._heapBytesInUse())} in use)`,
      );
    this.blocks.push(address);
    return address;
  }

  /** Allocates `count` 4-byte elements (floats or ints) and returns the byte address. */
  alloc(count) {
    return this.allocBytes(count * 4);
  }

  /**
   * Copies several Float32Arrays in and returns their addresses, copying an array passed
   * more than once (self-attention's q = k = v) only once.
   */
  floatsOnce(arrays) {
    const seen = new Map();
    return arrays.map((data) => {
      if (!seen.has(data)) seen.set(data, this.floats(data));
      return seen.get(data);
    });
  }

  /** Allocates room for a Float32Array and copies it in (its real length, checked intact). */
  floats(data) {
    const address = this.alloc(intact(this.fn, data));
    views(this.module).HEAPF32.set(data, address >>> 2);
    return address;
  }

  /** Allocates room for an Int32Array and copies it in. */
  ints(data) {
    const address = this.alloc(intact(this.fn, data));
    views(this.module).HEAP32.set(data, address >>> 2);
    return address;
  }

  /** Allocates room for a Uint8Array's bytes and copies them in (8-byte aligned, as malloc's are). */
  bytes(data) {
    const address = this.allocBytes(data.length);
    views(this.module).HEAPU8.set(data, address);
    return address;
  }

  /** Copies `count` floats at `address` out into a new Float32Array. */
  read(address, count) {
    const start = address >>> 2;
    return views(this.module).HEAPF32.slice(start, start + count);
  }

  /** A view of `count` floats at `address` (valid until the next call that can grow memory). */
  view(address, count) {
    const start = address >>> 2;
    return views(this.module).HEAPF32.subarray(start, start + count);
  }

  /** Frees every block. */
  release() {
    for (const address of this.blocks) this.module._free(address);
    this.blocks = [];
  }
}
