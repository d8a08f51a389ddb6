// An attention call as the core reads it (bindings/attention_bindings.cc, CallSlot): one heap
// block holding the call's 4-byte slots followed by its batch table. Shared by attention and
// attentionBackward, which call the plain wasm exports attention_run / attention_backward_run.
import { views } from './heap.js';

/** Columns of one batch-table row: q, k, v and mask offsets, and the key limit (src/attention.h). */
export const ENTRY_COLUMNS = 5;

// The slots, in the order of CallSlot. Addresses and sizes are 32-bit integers, `scale` a float.
const CALL_SLOTS = ['q', 'k', 'v', 'mask', 'allowed', 'entries', 'maskRowStride', 'batch', 'seqQ', 'seqK', 'headDim',
  'valueDim', 'scale', 'causal', 'causalOffset', 'out', 'weights', 'rawScores', 'scaledScores', 'maskedScores'];
const SCALE_SLOT = CALL_SLOTS.indexOf('scale');

/** The elements of a call block with `batch` table rows (for memory plans). */
export function callBlockShape(batch) {
  return [CALL_SLOTS.length + batch * ENTRY_COLUMNS];
}

/**
 * Copies a call into one heap block of `heap` and returns its address.
 *   call: { [slot]: address or integer; a slot left out is 0 }, `scale` a float, `causal` a
 *   boolean; `entries` is set here   entries: [batch, ENTRY_COLUMNS] Int32Array
 */
export function writeCall(heap, call, entries) {
  const block = new Int32Array(CALL_SLOTS.length + entries.length);
  const address = heap.alloc(block.length);
  const slots = { ...call, entries: address + 4 * CALL_SLOTS.length, causal: call.causal ? 1 : 0 };
  for (let i = 0; i < CALL_SLOTS.length; i++) block[i] = slots[CALL_SLOTS[i]] ?? 0;
  new Float32Array(block.buffer, 4 * SCALE_SLOT, 1)[0] = call.scale;
  block.set(entries, CALL_SLOTS.length);
  views(heap.module).HEAP32.set(block, address >> 2);
  return address;
}
