// An attention call as the core reads it (bindings/attention_bindings.cc, CallSlot): one heap
// block holding the call's 4-byte slots followed by its batch table. Shared by attention and
// attentionBackward, which call the plain wasm exports attention_run / attention_backward_run.
import { views } from './heap.js';

/**
 * Columns of one batch-table row: q, k, v and mask offsets, the key limit and the causal
 * offset (src/attention.h).
 */
export const ENTRY_COLUMNS = 6;

// The slots, in the order of CallSlot. Addresses and sizes are 32-bit integers, `scale` and
// `softcap` and `dropout` floats, `dropoutSeed` 32 bits. Strides of 0 mean contiguous rows;
// outOffsets 0 means b·seqQ·valueDim; windowLeft/windowRight -1 (the default) mean no limit.
const CALL_SLOTS = ['q', 'k', 'v', 'mask', 'allowed', 'entries', 'maskRowStride', 'batch', 'seqQ', 'seqK', 'headDim',
  'valueDim', 'scale', 'causal', 'out', 'weights', 'rawScores', 'scaledScores', 'maskedScores',
  'qStride', 'kStride', 'vStride', 'outStride', 'outOffsets', 'softcap', 'cappedScores',
  'windowLeft', 'windowRight', 'dropout', 'dropoutSeed', 'droppedWeights'];
const FLOAT_SLOTS = ['scale', 'softcap', 'dropout'].map((name) => CALL_SLOTS.indexOf(name));
// Slots whose absence is not 0: a window side of 0 keys would hide every other key.
const DEFAULTS = { windowLeft: -1, windowRight: -1 };

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
  for (let i = 0; i < CALL_SLOTS.length; i++) block[i] = slots[CALL_SLOTS[i]] ?? DEFAULTS[CALL_SLOTS[i]] ?? 0;
  const floats = new Float32Array(block.buffer, 0, CALL_SLOTS.length);
  for (const slot of FLOAT_SLOTS) floats[slot] = call[CALL_SLOTS[slot]] ?? 0;
  block.set(entries, CALL_SLOTS.length);
  views(heap.module).HEAP32.set(block, address >> 2);
  return address;
}
