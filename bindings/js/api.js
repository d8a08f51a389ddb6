// The public API object that init() resolves to. Shared by the Node and browser entries.
import { makeAttention } from './attention.js';
import { makeMatmul } from './matmul.js';
import { MultiHeadAttention } from './multi_head.js';
import { makePositional } from './positional.js';
import { makeBlock } from './block.js';
import { tensor, toNested } from './tensor.js';
import { VERSION } from './version.js';

/**
 * Wraps a loaded Emscripten module in the public API.
 * @param {object} module the instantiated module (dist/attention.js)
 */
export function createApi(module) {
  // The layer class bound to this module: `new attn.MultiHeadAttention(config)`.
  class BoundMultiHeadAttention extends MultiHeadAttention {
    constructor(config) {
      super(module, config);
    }
  }
  Object.defineProperty(BoundMultiHeadAttention, 'name', { value: 'MultiHeadAttention' });
  return Object.freeze({
    info: Object.freeze({ version: VERSION, simd: module._simdTarget() !== 'scalar', target: module._simdTarget() }),
    attention: makeAttention(module),
    matmul: makeMatmul(module),
    MultiHeadAttention: BoundMultiHeadAttention,
    ...makePositional(module),
    ...makeBlock(module),
    tensor,
    toNested,
    /**
     * Wasm memory: the heap's size, the bytes malloc has handed out now, and the most malloc
     * has ever taken from the heap (a high-water mark, scratch memory included).
     */
    memory() {
      return { heapBytes: module.HEAP8.length, inUseBytes: module._heapBytesInUse(), peakBytes: module._heapPeakBytes() };
    },
  });
}
