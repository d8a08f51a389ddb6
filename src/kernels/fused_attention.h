// Fused attention: softmax(q·kᵀ·scale + mask)·v for one head without ever storing the
// seq_q × seq_k score matrix (FlashAttention-style tiles with an online softmax).
#ifndef ATTENTION_WASM_SRC_KERNELS_FUSED_ATTENTION_H_
#define ATTENTION_WASM_SRC_KERNELS_FUSED_ATTENTION_H_

#include <cstdint>

#include "buffer.h"
#include "head_problem.h"
#include "kernels/target.h"
#include "status.h"

namespace attn {

// Scratch memory reused across heads, so a batch allocates once. Its size is O(seq_k ·
// (head_dim + value_dim)), never O(seq_q · seq_k).
struct FusedWorkspace {
  Buffer<float> k_panels;          // [num_key_tiles, head_dim, kKeysPerTile]: kᵀ in panels
  Buffer<uint8_t> v_nonfinite;     // [num_key_tiles]: tile holds a NaN/Inf value row
  Buffer<float> v_padded;          // [seq_k, value_dim rounded up to 4] when needed
  Buffer<float> acc;               // per slot: [tile rows, padded value_dim] accumulators,
                                   // slots a cache line apart
  Buffer<float> zero_row;          // [head_dim]: stands in for query rows past seq_q
  Buffer<float> key_rows;          // [KeyRowsFloats(head_dim)]: a q8_0 panel's 8 key rows
                                   // widened, then a key row of a panel's column tail
  Buffer<float> tile_panel;        // [4, head_dim, 8]: a block's key tiles, packed in place
  Buffer<float> saved_acc;         // [tile rows, padded value_dim]: accumulators kept while a
                                   // block's values are added (keys read in place)
  const void* packed_k = nullptr;  // the k (or k16) the panels hold, to skip repacking it
  const void* packed_v = nullptr;  // the v (or v16) the flags (and padded copy) describe
  int packed_tiles_first = 0;      // the key tiles packed and flagged: first .. last - 1
  int packed_tiles_last = 0;       // (a window or causal limit needs only those)
};

// Bytes of the workspace for one head of these sizes with `slots` threads (an upper bound;
// for estimates).
uint64_t FusedWorkspaceBytes(int seq_k, int head_dim, int value_dim, int slots);

// Sizes every buffer of the workspace for heads of these sizes with `slots` threads, so that
// FusedAttention on it allocates nothing (it may then run on a pool thread). False when the
// memory cannot be had.
bool ReserveFusedWorkspace(FusedWorkspace& workspace, int seq_k, int head_dim, int value_dim,
                           int slots);

// Computes problem.out = softmax(q·kᵀ·scale + mask)·v, honouring problem.visible (only the
// keys some row sees are read) and problem.dropout. Half-stored keys and values (k16, v16)
// are widened exactly as they are packed and copied (step 1), so the tiles see float32.
//   q: [seq_q, head_dim]  k: [seq_k, head_dim]  v: [seq_k, value_dim]
//   out: [seq_q, value_dim]
// Rows that see no key get zeros. A row whose visible scores hold NaN or +Infinity gets
// NaN, as an exact softmax would. Keys that are blocked never touch the output, even if
// their k or v rows hold NaN or Infinity. kOutOfMemory when the workspace cannot grow
// (nothing is written to out then). Query rows are spread over ThreadCount() threads; a
// call of at most InPlaceRowsMax() rows (a decode step) runs on the calling thread and reads
// its keys and values in place, with the bits the rows would have in a taller call.
Status FusedAttention(const HeadProblem& problem, FusedWorkspace& workspace);

// The most query rows a call reads its keys and values in place for (a decode step): two
// tiles of TileRows(), so that a grouped-query step whose group is taller than one tile (7
// query heads a key/value head in Qwen2.5-0.5B, 8 in TinyLlama) still does: it packs each
// block's keys once a tile (the tiles, and their bits, as a taller call has them), where a
// packed head would widen the whole cache every step and could not split its keys.
constexpr int kInPlaceTiles = 2;
inline int InPlaceRowsMax() { return kInPlaceTiles * TileRows(); }

// Flash-decoding, for a call of at most InPlaceRowsMax() query rows (a decode step) over many
// keys:
// the rows over keys key_lo .. key_hi - 1 only (key_lo a multiple of 32), on the calling
// thread, keys read in place, kept unnormalised with each row's running max and sum; then
// MergePartials makes the rows' outputs from the ranges' partials, in order. Each range's
// numbers are the same whichever thread computes it, so the output's bits do not depend on
// the thread count. The workspace must be reserved (ReserveFusedWorkspace) when this runs on
// a pool thread. kOutOfMemory when it cannot grow.
//   partial: [seq_q, value_dim + 2]: each row's Σ p·v, its max, its sum
//   partials: [parts, seq_q, value_dim + 2]   problem.out: [seq_q, value_dim]
Status FusedAttentionPartial(const HeadProblem& problem, FusedWorkspace& workspace, int key_lo,
                             int key_hi, float* partial);
void MergePartials(const HeadProblem& problem, const float* partials, int parts);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_FUSED_ATTENTION_H_
