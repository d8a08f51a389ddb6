// Masks shared by attention() and MultiHeadAttention.forward(): checking a mask against the
// weights' shape, laying it out in the heap, key lengths, and DynamicViT keep-masks.
import { typeError, rangeError, describe } from './errors.js';
import { toMask, formatShape, sizeOf, broadcastStrides } from './tensor.js';

// Marks masks this module built itself (already checked and converted).
const CHECKED = Symbol('checked mask');

/**
 * Checks `maskInput` against the weights' shape [...batch, seqQ, seqK] and says how to lay
 * it out: the key dim is always materialised (seqK floats a row); a query dim of 1 is
 * shared by every row (row stride 0); leading dims of 1 broadcast (offset stride 0).
 */
export function planMask(fn, maskInput, batch, seqQ, seqK, name = 'mask') {
  if (maskInput === undefined || maskInput === null) return null;
  const mask = maskInput[CHECKED] ? maskInput : toMask(fn, name, maskInput);
  const target = [...batch, seqQ, seqK];
  if (mask.shape.length > target.length) {
    throw rangeError(fn, `${name} ${formatShape(mask.shape)} has more dims than the weights ${formatShape(target)}`);
  }
  const shape = [...new Array(target.length - mask.shape.length).fill(1), ...mask.shape];
  shape.forEach((dim, axis) => {
    if (dim !== target[axis] && dim !== 1) {
      throw rangeError(fn, `${name} ${formatShape(mask.shape)} does not broadcast to the weights ${formatShape(target)}`);
    }
  });
  const maskQ = shape[shape.length - 2];
  const lead = shape.slice(0, -2);
  const blockFloats = maskQ * seqK;
  return {
    mask, lead, blockFloats,
    maskK: shape[shape.length - 1],
    rowStride: maskQ === 1 ? 0 : seqK,
    blocks: sizeOf(lead),
    leadStrides: broadcastStrides(lead, blockFloats),
  };
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
  const { mask, maskK, blockFloats, blocks } = plan;
  const total = blockFloats * blocks;
  const src = mask.data;
  if (mask.boolean) {
    const address = heap.allocBytes(total);
    const out = heap.module.HEAPU8.subarray(address, address + total);
    if (maskK === 1) for (let i = 0; i < total; i++) out[i] = src[Math.floor(i / seqK)];
    else out.set(src);
    return { mask: 0, allowed: address };
  }
  const address = heap.alloc(total);
  const out = heap.module.HEAPF32.subarray(address >> 2, (address >> 2) + total);
  if (maskK === 1) for (let i = 0; i < total; i++) out[i] = src[Math.floor(i / seqK)];
  else out.set(src);
  return { mask: address, allowed: 0 };
}

/** Checks per-sequence key lengths: one integer in [0, seqK] per entry of batch[0]. */
export function checkKeyLengths(fn, keyLengths, batch, seqK) {
  if (keyLengths === undefined || keyLengths === null) return null;
  const values = typeof keyLengths === 'number' ? [keyLengths] : keyLengths;
  if (!Array.isArray(values) && !ArrayBuffer.isView(values)) {
    throw typeError(fn, `options.keyLengths must be an array of integers, got ${describe(keyLengths)}`);
  }
  const expected = batch.length > 0 ? batch[0] : 1;
  if (values.length !== expected) {
    throw rangeError(fn, `options.keyLengths has ${values.length} entries but the batch ${formatShape(batch)} needs ${expected} (one per sequence)`);
  }
  return Int32Array.from(values, (n, i) => {
    if (typeof n !== 'number') throw typeError(fn, `options.keyLengths[${i}] must be a number, got ${describe(n)}`);
    if (!Number.isInteger(n) || n < 0 || n > seqK) {
      throw rangeError(fn, `options.keyLengths[${i}] is ${n}; it must be an integer in [0, ${seqK}]`);
    }
    return n;
  });
}

// Value of a right-aligned, broadcasting tensor at the multi-index `index` of `target`.
function broadcastReader(shape, target) {
  const padded = [...new Array(target.length - shape.length).fill(1), ...shape];
  const strides = broadcastStrides(padded, 1);
  return (index) => index.reduce((offset, i, axis) => offset + i * strides[axis], 0);
}

/**
 * DynamicViT keep-mask as a boolean mask: G_ij = 1 if i = j, else keep_j, so a dropped
 * token still attends to itself while no other token attends to it. Combined with `mask`
 * (AND for boolean, -Infinity for additive) when both are given. keepMask: [..., L].
 */
export function keepMaskToMask(fn, keepInput, maskInput, batch, seqQ, seqK) {
  const keep = toMask(fn, 'keepMask', keepInput);
  if (seqQ !== seqK) throw rangeError(fn, `keepMask needs self-attention (Lq = Lk), got Lq ${seqQ} and Lk ${seqK}`);
  if (keep.shape.length < 1 || keep.shape.at(-1) !== seqK) {
    throw rangeError(fn, `keepMask ${formatShape(keep.shape)} must have shape [..., ${seqK}] (one flag per token)`);
  }
  for (let i = 0; i < keep.data.length; i++) {
    if (keep.data[i] !== 0 && keep.data[i] !== 1) throw rangeError(fn, `keepMask values must be 0 or 1, got ${keep.data[i]} at ${i}`);
  }
  const keepLead = keep.shape.slice(0, -1);
  const user = maskInput === undefined || maskInput === null ? null : toMask(fn, 'mask', maskInput);
  // The combined mask has the full broadcast shape of whatever broadcasts among the two.
  planMask(fn, { data: new Uint8Array(sizeOf(keepLead) * seqK * seqK), shape: [...keepLead, seqK, seqK], boolean: true, [CHECKED]: true }, batch, seqQ, seqK, 'keepMask');
  if (user) planMask(fn, user, batch, seqQ, seqK);
  const target = [...batch, seqQ, seqK];
  const readKeep = broadcastReader([...keepLead, 1, seqK], target);
  const readUser = user ? broadcastReader(user.shape, target) : null;
  const additive = user !== null && !user.boolean;
  const data = additive ? new Float32Array(sizeOf(target)) : new Uint8Array(sizeOf(target));
  const index = new Array(target.length).fill(0);
  for (let f = 0; f < data.length; f++) {
    const i = index[target.length - 2], j = index[target.length - 1];
    const allowed = i === j || keep.data[readKeep(index)] === 1;
    if (additive) data[f] = allowed ? user.data[readUser(index)] : -Infinity;
    else data[f] = allowed && (!user || user.data[readUser(index)]) ? 1 : 0;
    for (let a = target.length - 1; a >= 0; a--) {
      if (++index[a] < target[a]) break;
      index[a] = 0;
    }
  }
  return { data, shape: target, boolean: !additive, [CHECKED]: true };
}
