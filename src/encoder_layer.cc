#include "encoder_layer.h"

#include <cstddef>
#include <vector>

namespace attn {

Status EncoderLayerForward(const EncoderLayerRequest& r) {
  const MultiHeadRequest& a = r.attention;
  if (r.d_ff <= 0 || r.w1 == nullptr || r.w2 == nullptr || r.out == nullptr || a.query == nullptr) {
    return r.d_ff <= 0 ? Status::kNegativeDimension : Status::kNullPointer;
  }
  const int rows = a.batch * a.seq_q;
  const size_t count = static_cast<size_t>(rows) * a.d_model;
  std::vector<float> attn_in(count), attn_out(count), x1(count), ffn_in(count), ffn_out(count);
  const float* x = a.query;

  // 1. Attention sub-layer (on LN1(x) with pre-norm, on x with post-norm) and residual.
  if (r.pre_norm) LayerNorm(x, rows, a.d_model, r.ln1_gamma, r.ln1_beta, r.eps, attn_in.data());
  MultiHeadRequest self = a;
  self.query = self.key = self.value = r.pre_norm ? attn_in.data() : x;
  self.out = attn_out.data();
  const Status status = MultiHeadForward(self);
  if (status != Status::kOk) return status;
  AddInto(x, attn_out.data(), static_cast<int>(count), x1.data());
  if (!r.pre_norm) LayerNorm(x1.data(), rows, a.d_model, r.ln1_gamma, r.ln1_beta, r.eps, x1.data());

  // 2. Feed-forward sub-layer and residual.
  const float* ffn_src = x1.data();
  if (r.pre_norm) {
    LayerNorm(x1.data(), rows, a.d_model, r.ln2_gamma, r.ln2_beta, r.eps, ffn_in.data());
    ffn_src = ffn_in.data();
  }
  FeedForward(ffn_src, rows, a.d_model, r.d_ff, r.w1, r.b1, r.w2, r.b2, r.activation,
              ffn_out.data());
  AddInto(x1.data(), ffn_out.data(), static_cast<int>(count), r.out);
  if (!r.pre_norm) LayerNorm(r.out, rows, a.d_model, r.ln2_gamma, r.ln2_beta, r.eps, r.out);
  return Status::kOk;
}

}  // namespace attn
