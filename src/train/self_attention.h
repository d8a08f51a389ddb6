// Multi-head self-attention for training, the weights P kept for the backward. The training
// model's sequences are short (T up to a few hundred), and its attention maps are shown, so
// P [batch, heads, T, T] is stored rather than recomputed; the O(N·d) recompute recipe is
// attn::RunAttentionBackward's, for long sequences. Per head h (columns h·head_dim ..):
//   S = Q_h·K_hᵀ·scale (keys the row may not see: −∞),  P = softmax(S),  O_h = P·V_h
// and backward, from dO:
//   dV_h = Pᵀ·dO_h,  dP = dO_h·V_hᵀ,  dS = P ∘ (dP − rowsum(dP ∘ P)),
//   dQ_h = dS·K_h·scale,  dK_h = dSᵀ·Q_h·scale
#ifndef ATTENTION_WASM_SRC_TRAIN_SELF_ATTENTION_H_
#define ATTENTION_WASM_SRC_TRAIN_SELF_ATTENTION_H_

#include <cstdint>

namespace attn {

struct SelfAttentionShape {
  int batch = 0;
  int seq = 0;      // T
  int d_model = 0;  // heads · head_dim
  int heads = 0;
  const int32_t* key_limits = nullptr;  // [batch]: keys j >= key_limits[b] are padding
  bool causal = false;                  // row i sees keys j <= i
};

// q, k, v, o: [batch, seq, d_model]   p: [batch, heads, seq, seq] (written; 0 where unseen)
void SelfAttentionForward(const SelfAttentionShape& s, const float* q, const float* k,
                          const float* v, float* p, float* o);

// p: the forward's weights   d_o: [batch, seq, d_model]
// dq, dk, dv: [batch, seq, d_model] (written)
void SelfAttentionBackward(const SelfAttentionShape& s, const float* q, const float* k,
                           const float* v, const float* p, const float* d_o, float* dq, float* dk,
                           float* dv);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_SELF_ATTENTION_H_
