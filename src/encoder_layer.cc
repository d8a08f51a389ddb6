#include "encoder_layer.h"

#include <algorithm>

#include "buffer.h"
#include "sizes.h"

namespace attn {

Status EncoderLayerForward(const EncoderLayerRequest& r) {
  const MultiHeadRequest& a = r.attention;
  const bool have_w1 = r.w1 != nullptr || r.w1_panels != nullptr;
  const bool have_w2 = r.w2 != nullptr || r.w2_panels != nullptr;
  if (r.d_ff <= 0 || !have_w1 || !have_w2 || r.out == nullptr || a.query == nullptr) {
    return r.d_ff <= 0 ? Status::kNegativeDimension : Status::kNullPointer;
  }
  if (!FloatsFit({a.batch, a.seq_q, a.d_model})) return Status::kTooLarge;
  const int rows = a.batch * a.seq_q;
  const int count = rows * a.d_model;
  // normed: LN(input) of the current sub-layer (pre-norm only); sub: a sub-layer's output;
  // x1: the stream between the two sub-layers.
  Buffer<float> normed, sub, x1;
  if (!normed.Resize(r.pre_norm ? count : 0) || !sub.Resize(count) || !x1.Resize(count)) {
    return Status::kOutOfMemory;
  }
  const float* x = a.query;

  // 1. Attention sub-layer (on LN1(x) with pre-norm, on x with post-norm) and residual.
  if (r.pre_norm) LayerNorm(x, rows, a.d_model, r.ln1_gamma, r.ln1_beta, r.eps, normed.data());
  MultiHeadRequest self = a;
  self.query = self.key = self.value = r.pre_norm ? normed.data() : x;
  self.out = sub.data();
  Status status = MultiHeadForward(self);
  if (status != Status::kOk) return status;
  AddInto(x, sub.data(), count, x1.data());
  if (!r.pre_norm) LayerNorm(x1.data(), rows, a.d_model, r.ln1_gamma, r.ln1_beta, r.eps, x1.data());

  // 2. Feed-forward sub-layer (on LN2(x1) with pre-norm, on x1 with post-norm) and residual.
  if (r.pre_norm)
    LayerNorm(x1.data(), rows, a.d_model, r.ln2_gamma, r.ln2_beta, r.eps, normed.data());
  status = FeedForward(r.pre_norm ? normed.data() : x1.data(), rows, a.d_model, r.d_ff, r.w1, r.b1,
                       r.w2, r.b2, r.activation, sub.data(), r.w1_panels, r.w2_panels);
  if (status != Status::kOk) return status;
  AddInto(x1.data(), sub.data(), count, r.out);
  if (!r.pre_norm) LayerNorm(r.out, rows, a.d_model, r.ln2_gamma, r.ln2_beta, r.eps, r.out);
  return Status::kOk;
}

uint64_t EncoderLayerScratchBytes(const EncoderLayerRequest& r) {
  const MultiHeadRequest& a = r.attention;
  if (a.batch <= 0 || a.seq_q <= 0) return 0;
  const uint64_t rows = static_cast<uint64_t>(a.batch) * a.seq_q;
  const uint64_t streams = rows * a.d_model * (r.pre_norm ? 3 : 2);
  MultiHeadRequest self = a;
  self.seq_k = a.seq_q;
  return sizeof(float) * streams +
         std::max(MultiHeadScratchBytes(self),
                  FeedForwardScratchBytes(static_cast<int>(rows), a.d_model, r.d_ff,
                                          r.w1_panels != nullptr && r.w2_panels != nullptr));
}

}  // namespace attn
