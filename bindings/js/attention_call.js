// An attention call as the core reads it (bindings/contract.h, ATTN_CALL_SLOTS): one heap
// block holding the call's 4-byte slots followed by its batch table. Shared by attention and
// attentionBackward, which call the plain wasm exports attention_run / attention_backward_run.
// The slots' order and which hold float32 bits come from the module (contract.js).
import { views } from './heap.js';
import { contractOf } from './contract.js';

/**
 * Columns of one batch-table row: q, k, v and mask offsets, the key limit and the causal
 * offset (src/attention.h).
 */
export const ENTRY_COLUMNS = 6;

// Slots whose absence is not 0: a window side of 0 keys would hide every other key.
const DEFAULTS = { windowLeft: -1, windowRight: -1 };

/** The elements of a call block with `batch` table rows (for memory plans). */
export function callBlockShape(module, batch) {
  return [contractOf(module).call.count + batch * ENTRY_COLUMNS];
}

/**
 * Copies a call into one heap block of `heap` and returns its address.
 *   call: { [slot]: address or integer; a slot left out is 0 }, `scale`, `softcap` and
 *   `dropout` floats, `causal` a boolean; `entries` is set here
 *   entries: [batch, ENTRY_COLUMNS] Int32Array
 * A key the module has no slot for is an internal error (JS and C++ disagree).
 */
export function writeCall(heap, call, entries) {
  const { count, slots, names, floats: floatSlots } = contractOf(heap.module).call;
  const block = new Int32Array(count + entries.length);
  const address = heap.alloc(block.length);
  let written = 0; // keys of `call` that are slots
  for (let i = 0; i < count; i++) {
    const name = names[i];
    if (name in call) written++;
    block[i] = call[name] ?? DEFAULTS[name] ?? 0;
  }
  if (written !== Object.keys(call).length) {
    throw new Error(
      `internal error: the attention call has keys the module has no slot for: ${Object.keys(call)
        .filter((k) => !(k in slots))
        .join(', ')}`,
    );
  }
  block[slots.entries] = address + 4 * count;
  block[slots.causal] = call.causal ? 1 : 0;
  const floats = new Float32Array(block.buffer, 0, count);
  for (const slot of floatSlots) floats[slot] = call[names[slot]] ?? 0;
  block.set(entries, count);
  views(heap.module).HEAP32.set(block, address >>> 2);
  return address;
}
