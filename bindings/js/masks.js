// Masks shared by attention() and MultiHeadAttention.forward(): checking a mask against the
// weights' shape, laying it out in the heap, key lengths, and DynamicViT keep-masks.
import { typeError, rangeError, describe, show } from './errors.js';
import { views } from './heap.js';
import { toMask, formatShape, sizeOf, broadcastStrides, intact, typedArrayKind, lengthOf } from './tensor.js';

// Marks masks this module built itself (already checked and converted).
const CHECKED = Symbol('checked mask');

/**
 * Checks `maskInput` against the weights' shape [...batch, seqQ, seqK] and says how to lay
 * it out: the key dim is always materialised (seqK floats a row); a query dim of 1 is
 * shared by every row (row stride 0); leading dims of 1 broadcast (offset stride 0). When
 * only the first `validKeys` keys of any sequence are real (key lengths), a key dim between
 * validKeys (at least 2) and seqK covers them and blocks the rest (ONNX Attention's masks
 * for padded caches).
 */
export function planMask(fn, maskInput, batch, seqQ, seqK, name = 'mask', { validKeys = seqK } = {}) {
  if (maskInput === undefined || maskInput === null) return null;
  const mask = maskInput[CHECKED] ? maskInput : toMask(fn, name, maskInput);
  const target = [...batch, seqQ, seqK];
  if (mask.shape.length > target.length) {
    throw rangeError(fn, `${name} ${formatShape(mask.shape)} has more dims than the weights ${formatShape(target)}`);
  }
  const shape = [...new Array(target.length - mask.shape.length).fill(1), ...mask.shape];
  shape.forEach((dim, axis) => {
    // A key axis shorter than seqK that covers every valid key (ONNX Attention's padded
    // caches): the keys past its end are padding anyway, and blocked.
    const short = axis === target.length - 1 && dim > 1 && dim < seqK && dim >= validKeys;
    if (dim !== target[axis] && dim !== 1 && !short) {
      throw rangeError(
        fn,
        `${name} ${formatShape(mask.shape)} does not broadcast to the weights ${formatShape(target)}`,
      );
    }
  });
  const maskQ = shape[shape.length - 2];
  const lead = shape.slice(0, -2);
  const blockSize = maskQ * seqK; // elements (bytes or floats) of one [Lq or 1, Lk] block
  return {
    mask,
    lead,
    blockSize,
    maskK: shape[shape.length - 1],
    rowStride: maskQ === 1 ? 0 : seqK,
    blocks: sizeOf(lead),
    leadStrides: broadcastStrides(lead, blockSize),
  };
}

/** Adds the heap copy of a planned mask (bytes or floats, see writeMask) to a MemoryPlan. */
export function planMaskMemory(memory, plan, name = 'mask') {
  if (plan) memory.tensor(name, [plan.blocks, plan.blockSize], plan.mask.boolean ? 1 : 4);
}

/** Offset (in floats) of the mask block of every flat batch index of `batch`. */
export function maskOffsets(plan, batch) {
  const count = sizeOf(batch);
  const offsets = new Int32Array(count);
  const index = new Array(batch.length).fill(0);
  for (let b = 0; b < count; b++) {
    let offset = 0;
    for (let a = 0; a < batch.length; a++) offset += index[a] * plan.leadStrides[a];
    offsets[b] = offset;
    for (let a = batch.length - 1; a >= 0; a--) {
      if (++index[a] < batch[a]) break;
      index[a] = 0;
    }
  }
  return offsets;
}

/**
 * Copies the mask into the heap, as bytes for a boolean mask (nonzero = may attend) or as
 * additive floats, repeating a key dim of 1 seqK times. Returns the call fields
 * { mask, allowed }: the address goes in one of them, 0 in the other.
 */
export function writeMask(heap, plan, seqK) {
  const { mask, maskK, blockSize, blocks } = plan;
  const total = blockSize * blocks;
  intact(heap.fn, mask.data);
  const address = mask.boolean ? heap.allocBytes(total) : heap.alloc(total);
  const out = mask.boolean
    ? views(heap.module).HEAPU8.subarray(address, address + total)
    : views(heap.module).HEAPF32.subarray(address >>> 2, (address >>> 2) + total);
  if (maskK === 1) {
    for (let i = 0; i < total; i++) out[i] = mask.data[Math.floor(i / seqK)];
  } else if (maskK < seqK) {
    // a short key axis: the keys past it are blocked
    out.fill(mask.boolean ? 0 : -Infinity);
    for (let row = 0; row < total / seqK; row++)
      out.set(mask.data.subarray(row * maskK, (row + 1) * maskK), row * seqK);
  } else {
    out.set(mask.data);
  }
  return mask.boolean ? { mask: 0, allowed: address } : { mask: address, allowed: 0 };
}

/** Checks per-sequence key lengths: one integer in [0, seqK] per entry of batch[0]. */
export function checkKeyLengths(fn, keyLengths, batch, seqK) {
  if (keyLengths === undefined || keyLengths === null) return null;
  const values = typeof keyLengths === 'number' ? [keyLengths] : keyLengths;
  if (!Array.isArray(values) && !ArrayBuffer.isView(values)) {
    throw typeError(fn, `options.keyLengths must be an array of integers, got ${describe(keyLengths)}`);
  }
  const expected = batch.length > 0 ? batch[0] : 1;
  // The length and each entry are read once, by index (a typed array's real length).
  const count = typedArrayKind(values) !== undefined ? lengthOf(values) : values.length;
  if (count !== expected) {
    throw rangeError(
      fn,
      `options.keyLengths has ${show(count)} entries but the batch ${formatShape(batch)} needs ${expected} (one per sequence)`,
    );
  }
  const lengths = new Int32Array(expected);
  for (let i = 0; i < expected; i++) {
    const n = values[i];
    if (typeof n !== 'number') throw typeError(fn, `options.keyLengths[${i}] must be a number, got ${describe(n)}`);
    if (!Number.isInteger(n) || n < 0 || n > seqK) {
      throw rangeError(fn, `options.keyLengths[${i}] is ${n}; it must be an integer in [0, ${seqK}]`);
    }
    lengths[i] = n;
  }
  return lengths;
}

// Offset function of a right-aligned, broadcasting tensor of `shape` for a multi-index of
// `target` (axes of size 1 broadcast).
function broadcastReader(shape, target) {
  const padded = [...new Array(target.length - shape.length).fill(1), ...shape];
  const strides = broadcastStrides(padded, 1);
  return (index) => index.reduce((offset, i, axis) => offset + i * strides[axis], 0);
}

/**
 * DynamicViT keep-mask as a boolean mask: G_ij = 1 if i = j, else keep_j, so a dropped
 * token still attends to itself while no other token attends to it. Combined with `mask`
 * (AND for boolean, -Infinity for additive) when both are given. keepMask: [..., L].
 * Checks now; the combined [...batch, L, L] data is built on first use of `.data`, so a call
 * whose memory plan is refused never builds it.
 */
export function keepMaskToMask(fn, keepInput, maskInput, batch, seqQ, seqK) {
  const keep = toMask(fn, 'keepMask', keepInput);
  if (seqQ !== seqK) throw rangeError(fn, `keepMask needs self-attention (Lq = Lk), got Lq ${seqQ} and Lk ${seqK}`);
  const L = seqK;
  if (keep.shape.length < 1 || keep.shape.at(-1) !== L) {
    throw rangeError(fn, `keepMask ${formatShape(keep.shape)} must have shape [..., ${L}] (one flag per token)`);
  }
  const keepLead = keep.shape.slice(0, -1);
  if (
    keepLead.length > batch.length ||
    keepLead.some((d, i) => d !== 1 && d !== batch[batch.length - keepLead.length + i])
  ) {
    throw rangeError(fn, `keepMask ${formatShape(keep.shape)} does not broadcast to the batch ${formatShape(batch)}`);
  }
  for (let i = 0, n = sizeOf(keep.shape); i < n; i++) {
    if (keep.data[i] !== 0 && keep.data[i] !== 1)
      throw rangeError(fn, `keepMask values must be 0 or 1, got ${keep.data[i]} at ${i}`);
  }
  const user = maskInput === undefined || maskInput === null ? null : toMask(fn, 'mask', maskInput);
  if (user) planMask(fn, user, batch, seqQ, seqK); // shape check only
  // The combined mask: [...batch, L, L], block by block.
  const keepRow = broadcastReader(keepLead, batch);
  const userAt = user ? broadcastReader(user.shape, [...batch, L, L]) : null;
  const additive = user !== null && !user.boolean;
  const blocks = sizeOf(batch);
  const build = () => {
    intact(fn, keep.data);
    if (user) intact(fn, user.data);
    const data = additive ? new Float32Array(blocks * L * L) : new Uint8Array(blocks * L * L);
    const index = new Array(batch.length).fill(0);
    for (let b = 0; b < blocks; b++) {
      const kept = keep.data.subarray(keepRow(index) * L, keepRow(index) * L + L);
      for (let i = 0; i < L; i++) {
        for (let j = 0; j < L; j++) {
          const allowed = i === j || kept[j] === 1; // G_ij
          const f = (b * L + i) * L + j;
          if (additive) data[f] = allowed ? user.data[userAt([...index, i, j])] : -Infinity;
          else data[f] = allowed && (!user || user.data[userAt([...index, i, j])]) ? 1 : 0;
        }
      }
      for (let a = batch.length - 1; a >= 0; a--) {
        if (++index[a] < batch[a]) break;
        index[a] = 0;
      }
    }
    return data;
  };
  let data = null;
  return {
    get data() {
      return (data ??= build());
    },
    shape: [...batch, L, L],
    boolean: !additive,
    [CHECKED]: true,
  };
}
