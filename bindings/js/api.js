// The public API object that init() resolves to. Shared by the Node and browser entries.
import { makeAttention } from './attention.js';
import { makeMatmul } from './matmul.js';
import { tensor, toNested } from './tensor.js';
import { VERSION } from './version.js';

/**
 * Wraps a loaded Emscripten module in the public API.
 * @param {object} module the instantiated module (dist/attention.js)
 */
export function createApi(module) {
  return Object.freeze({
    info: Object.freeze({ version: VERSION, simd: module._simdTarget() !== 'scalar', target: module._simdTarget() }),
    attention: makeAttention(module),
    matmul: makeMatmul(module),
    tensor,
    toNested,
    /** Wasm memory now: the heap's size and the bytes malloc has handed out. */
    memory() {
      return { heapBytes: module.HEAP8.length, inUseBytes: module._heapBytesInUse() };
    },
  });
}
