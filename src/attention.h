// Scaled dot-product attention over a batch of heads:
//   out[b] = softmax(q[b]·k[b]ᵀ·scale + mask[b])·v[b]
// The batch is a list of entries, each naming where its q, k, v and mask start, so
// broadcast leading dimensions cost nothing: two entries may share the same k.
#ifndef ATTENTION_WASM_SRC_ATTENTION_H_
#define ATTENTION_WASM_SRC_ATTENTION_H_

#include <cstdint>

#include "kernels/kv_storage.h"
#include "status.h"

namespace attn {

// Columns of one row of AttentionRequest::entries.
enum EntryColumn : int {
  kQOffset = 0,       // offset of this entry's q in floats from AttentionRequest::q
  kKOffset = 1,       // likewise for k
  kVOffset = 2,       // likewise for v
  kMaskOffset = 3,    // likewise for mask (ignored without a mask)
  kKeyLimit = 4,      // keys j >= this are padding; seq_k when there is no padding
  kCausalOffset = 5,  // row i sits at key i + this: the causal rule and the window's centre
                      // (see VisibleKeyRule)
  kEntryColumns = 6,
};

struct AttentionRequest {
  // Per entry: q: [seq_q, head_dim]  k: [seq_k, head_dim]  v: [seq_k, value_dim]
  //            mask: [seq_q, seq_k] additive with row stride mask_row_stride, or null
  //            out: [seq_q, value_dim] at out + b·seq_q·value_dim
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  // Or, with kv_storage bfloat16/float16 (a model's half key/value cache), k16 and v16 in
  // place of k and v: offsets and strides count elements as for floats; widened exactly when
  // read (the step-by-step path widens each entry's keys and values first).
  // Or, with kv_storage q8_0 (an 8-bit cache), kq and vq: q8_0 rows of whole blocks (k_stride
  // and v_stride multiples of 32), offsets and strides in elements (kv_storage.h Q8Elements).
  KvStorage kv_storage = KvStorage::kFloat32;
  const uint16_t* k16 = nullptr;
  const uint16_t* v16 = nullptr;
  const uint8_t* kq = nullptr;
  const uint8_t* vq = nullptr;
  const float* mask = nullptr;       // additive mask, or
  const uint8_t* allowed = nullptr;  // boolean mask (nonzero = may attend); at most one of the two
  int mask_row_stride = 0;           // 0 (one row for every query) or seq_k
  const int32_t* entries = nullptr;  // [batch, kEntryColumns]
  int batch = 0;
  int seq_q = 0;
  int seq_k = 0;
  int head_dim = 0;
  int value_dim = 0;
  // Row strides in floats; 0 means contiguous rows (head_dim, head_dim, value_dim,
  // value_dim). Heads of a multi-head projection use the projection's width.
  int q_stride = 0;
  int k_stride = 0;
  int v_stride = 0;
  int out_stride = 0;
  // Where entry b's output starts, in floats from `out`; null means b·seq_q·value_dim.
  const int32_t* out_offsets = nullptr;
  float scale = 1.0f;
  float softcap = 0.0f;  // > 0: scores become softcap·tanh(s / softcap) before the mask
  bool causal = false;   // each entry's causal offset is its kCausalOffset column
  // Sliding window (see VisibleKeyRule): row i sees keys i + offset - window_left ..
  // i + offset + window_right; negative: no limit on that side.
  int window_left = -1;
  int window_right = -1;
  // Dropout of the weights (see dropout.h): probability in [0, 1), and the seed; entry b
  // uses stream b.
  float dropout = 0.0f;
  uint32_t dropout_seed = 0;
  float* out = nullptr;  // [batch, seq_q, value_dim]
  // Optional, each [batch, seq_q, seq_k]. With `weights` the step-by-step path runs and
  // may also fill the stages; without it the fused path runs and they must be null.
  float* weights = nullptr;
  float* raw_scores = nullptr;
  float* scaled_scores = nullptr;
  float* capped_scores = nullptr;  // after the softcap (the scaled scores without one)
  float* masked_scores = nullptr;
  float* dropped_weights = nullptr;  // required with weights and dropout: after the dropout
};

// Checks the request (dimensions, buffers, key limits, sizes), then computes every entry.
// Never throws; returns the first problem found. A check failure writes nothing; kOutOfMemory
// (scratch could not be allocated) may leave out partly written.
Status RunAttention(const AttentionRequest& request);

// The head problem of batch entry b of a checked request (q, k, v, mask, strides, the
// visible-key rule; out when the request has one).
struct HeadProblem;
HeadProblem EntryProblem(const AttentionRequest& request, int b);

// Bytes of scratch RunAttention allocates for `request` (beyond the caller's buffers), at most.
uint64_t AttentionScratchBytes(const AttentionRequest& request);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_ATTENTION_H_
