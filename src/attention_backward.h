// The backward of scaled dot-product attention: given dOut, the gradients dQ, dK, dV of
//   out = softmax(q·kᵀ·scale + mask)·v
// per head, with the same masks, causal rule and key lengths as the forward (the mask itself
// gets no gradient). FlashAttention-2's recipe, row by row: the scores of a row are
// recomputed (never an Lq × Lk matrix), its log-sum-exp and D = dOut·out give
//   dS = P ∘ (dOut·vᵀ − D),  dQ = scale·dS·k,  dK = scale·dSᵀ·q,  dV = Pᵀ·dOut.
// Memory beyond the inputs and gradients: O(seq_k + value_dim) per call.
#ifndef ATTENTION_WASM_SRC_ATTENTION_BACKWARD_H_
#define ATTENTION_WASM_SRC_ATTENTION_BACKWARD_H_

#include "attention.h"
#include "status.h"

namespace attn {

struct AttentionBackwardRequest {
  // q, k, v, mask, entries, sizes, scale and causal rule as for RunAttention (out, weights
  // and the stages unused). Entry b's dq, dk, dv start at its q, k, v offsets in the gradient
  // buffers, and its d_out at b·seq_q·value_dim. Entries that share k and v (grouped-query
  // heads) add their dk and dv up, in entry order.
  AttentionRequest forward;
  const float* d_out = nullptr;  // [batch, seq_q, value_dim]
  float* dq = nullptr;           // [batch, seq_q, head_dim], written
  float* dk = nullptr;           // [batch, seq_k, head_dim], written
  float* dv = nullptr;           // [batch, seq_k, value_dim], written
};

// Checks the request as RunAttention does, then writes dq, dk and dv. Rows that see no key
// contribute nothing (their dq is zero). Never throws.
Status RunAttentionBackward(const AttentionBackwardRequest& request);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_ATTENTION_BACKWARD_H_
