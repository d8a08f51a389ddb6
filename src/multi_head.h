// Multi-head attention, Concat(head_1 .. head_h)·W_O with head_i = Attention(Q_i, K_i, V_i),
// in the row-vector convention of the course material (Q = X·W_Q). Grouped-query
// attention: num_kv_heads key/value heads, each shared by num_heads / num_kv_heads heads.
#ifndef ATTENTION_WASM_SRC_MULTI_HEAD_H_
#define ATTENTION_WASM_SRC_MULTI_HEAD_H_

#include <cstdint>

#include "status.h"

namespace attn {

// kv_width = num_kv_heads · head_dim, head_dim = d_model / num_heads.
struct MultiHeadWeights {
  const float* wq = nullptr;  // [d_model, d_model]
  const float* wk = nullptr;  // [k_dim, kv_width]
  const float* wv = nullptr;  // [v_dim, kv_width]
  const float* wo = nullptr;  // [d_model, d_model]
  const float* bq = nullptr;  // [d_model] or null (no bias)
  const float* bk = nullptr;  // [kv_width] or null
  const float* bv = nullptr;  // [kv_width] or null
  const float* bo = nullptr;  // [d_model] or null
  // The same four matrices as PackColumnPanels packs them: a layer stores its matrices only
  // in this form, so that a forward pass never packs them (dModel 512, N = 512: 38.2 →
  // 36.1 ms in Node). Each matrix is given one way or the other; the panels win when both are.
  const float* wq_panels = nullptr;
  const float* wk_panels = nullptr;
  const float* wv_panels = nullptr;
  const float* wo_panels = nullptr;
};

struct MultiHeadRequest {
  const float* query = nullptr;  // [batch, seq_q, d_model]
  const float* key = nullptr;    // [batch, seq_k, k_dim]
  const float* value = nullptr;  // [batch, seq_k, v_dim]
  int batch = 0;
  int seq_q = 0;
  int seq_k = 0;
  int d_model = 0;
  int k_dim = 0;
  int v_dim = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  MultiHeadWeights weights;
  // Additive mask rows ([seq_q or 1, seq_k], row stride mask_row_stride); entry (b, h)
  // starts at mask + mask_offsets[b·num_heads + h]. Null for none.
  const float* mask = nullptr;       // additive, or
  const uint8_t* allowed = nullptr;  // boolean (nonzero = may attend)
  int mask_row_stride = 0;
  const int32_t* mask_offsets = nullptr;
  const int32_t* key_lengths = nullptr;  // [batch], or null: every key is real
  bool causal = false;
  int causal_offset = 0;  // see VisibleKeyRule
  int window_left = -1;   // sliding window around i + causal_offset (see VisibleKeyRule);
  int window_right = -1;  // negative: no limit on that side
  float* out = nullptr;   // [batch, seq_q, d_model]
  // Optional outputs (null to skip). With `attention_weights` the step-by-step path runs.
  float* q_proj = nullptr;             // [batch, seq_q, d_model]
  float* k_proj = nullptr;             // [batch, seq_k, kv_width]
  float* v_proj = nullptr;             // [batch, seq_k, kv_width]
  float* concat = nullptr;             // [batch, seq_q, d_model]: heads side by side
  float* attention_weights = nullptr;  // [batch, num_heads, seq_q, seq_k]
};

// Projects, attends per head (heads are column blocks of the projections: no copies),
// concatenates and projects out. Returns the first problem found, having written nothing.
Status MultiHeadForward(const MultiHeadRequest& request);

// Bytes of scratch MultiHeadForward allocates for `request` at its peak, at most.
uint64_t MultiHeadScratchBytes(const MultiHeadRequest& request);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_MULTI_HEAD_H_
