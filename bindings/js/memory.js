// Memory budgets. Every public call first lists the blocks of wasm memory it will take (its
// tensors as copied in, its outputs, and the core's own scratch, whose size the core reports),
// all in exact JS arithmetic; checkBudget compares them with the heap before anything is
// allocated, and attn.estimateMemory returns the same list without running the call.
import { rangeError } from './errors.js';
import { formatShape, sizeOf } from './tensor.js';

const KiB = 1024,
  MiB = 1024 ** 2,
  GiB = 1024 ** 3;

/** 16.0 GiB, 3.5 MiB, 120 bytes; with `whole`, 2 GiB rather than 2.0 GiB. */
export function formatBytes(bytes, whole = false) {
  for (const [unit, size] of [
    ['GiB', GiB],
    ['MiB', MiB],
    ['KiB', KiB],
  ]) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${whole && Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}

/**
 * The most one tensor may take, whatever the heap: the core's buffers are sized in 31 bits
 * (src/sizes.h kMaxBufferBytes), and a result copied out to JS is one typed array. The heap (4 GiB)
 * holds several such tensors, not one larger.
 */
export const TENSOR_MAX_BYTES = 2 ** 31 - 1;

/** The list of wasm blocks one call takes. */
export class MemoryPlan {
  /** @param {string} fn the public function, for messages */
  constructor(fn) {
    this.fn = fn;
    this.blocks = [];
  }

  /** A tensor of `shape` with `elementBytes` per element (4: float32/int32, 1: bytes). */
  tensor(name, shape, elementBytes = 4) {
    this.blocks.push({ name, shape: shape.slice(), bytes: sizeOf(shape) * elementBytes });
    return this;
  }

  /**
   * The core's scratch memory (its own allocations during the call). `compute()` asks the
   * core, whose sizes are int32: it runs only once every tensor of the plan fits the heap
   * (so every size it sees is small), in resolve().
   */
  scratch(name, compute) {
    this.blocks.push({ name, bytes: null, compute });
    return this;
  }

  /**
   * Asks the core for its scratch sizes when the tensors fit in `heapMax` bytes; otherwise
   * leaves them null (the call cannot run anyway). Returns whether every size is known.
   */
  resolve(heapMax) {
    const most = Math.min(heapMax, TENSOR_MAX_BYTES);
    const tensorsFit = this.blocks.every((block) => block.compute || block.bytes <= most);
    for (const block of this.blocks) {
      if (block.compute && tensorsFit) block.bytes = block.compute();
    }
    return this.blocks.every((block) => block.bytes !== null);
  }

  /** Total bytes of the blocks whose size is known. */
  get bytes() {
    return this.blocks.reduce((sum, block) => sum + (block.bytes ?? 0), 0);
  }
}

/** The most the module's heap can grow to (the build's MAXIMUM_MEMORY), read from the module. */
export function heapMaxBytes(module) {
  module.heapMaxBytes ??= module._heapMaxBytes();
  return module.heapMaxBytes;
}

/** What estimateMemory returns for a plan. */
export function describePlan(module, plan) {
  const heapMax = heapMaxBytes(module);
  const complete = plan.resolve(heapMax);
  const freeBytes = heapMax - module._heapBytesInUse();
  return {
    bytes: plan.bytes,
    complete,
    blocks: plan.blocks.map(({ name, shape, bytes }) => (shape ? { name, shape, bytes } : { name, bytes })),
    heapMaxBytes: heapMax,
    freeBytes,
    fits: complete && plan.bytes <= freeBytes && plan.blocks.every((block) => block.bytes <= TENSOR_MAX_BYTES),
  };
}

function blockName(block) {
  return block.shape ? `${block.name} ${formatShape(block.shape)}` : block.name;
}

/**
 * Throws a RangeError naming the function and the tensor when the plan cannot fit: a block
 * larger than the whole heap, or a total larger than what is free now.
 */
export function checkBudget(module, plan) {
  const heapMax = heapMaxBytes(module);
  const limit = `the wasm heap holds at most ${formatBytes(heapMax, true)}`;
  plan.resolve(heapMax);
  for (const block of plan.blocks) {
    if (block.bytes > heapMax)
      throw rangeError(plan.fn, `the ${blockName(block)} need ${formatBytes(block.bytes)}; ${limit}`);
    if (block.bytes > TENSOR_MAX_BYTES)
      throw rangeError(
        plan.fn,
        `the ${blockName(block)} need ${formatBytes(block.bytes)}; one tensor must stay under 2 GiB (the heap holds ${formatBytes(heapMax, true)} in all)`,
      );
  }
  const total = plan.bytes;
  if (total > heapMax) {
    const largest = plan.blocks.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    throw rangeError(
      plan.fn,
      `this call needs ${formatBytes(total)} of wasm memory in all (the largest part: the ${blockName(largest)}, ${formatBytes(largest.bytes)}); ${limit}`,
    );
  }
  // Bytes in use never exceed the memory committed so far: a call that fits beside all of
  // it needs no count of the heap (mallinfo walks every chunk: ~11 µs with 2,000 blocks).
  const committed = module.wasmMemory ? module.wasmMemory.buffer.byteLength : module.HEAP8.length;
  if (total <= heapMax - committed) return;
  const free = heapMax - module._heapBytesInUse();
  if (total > free) {
    throw rangeError(
      plan.fn,
      `this call needs ${formatBytes(total)} of wasm memory but only ${formatBytes(free)} of the ${formatBytes(heapMax, true)} heap are free (the rest holds layers' weights and other live data; dispose() what you no longer use)`,
    );
  }
}
