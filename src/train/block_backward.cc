#include "train/block_backward.h"

#include <cstddef>

#include "buffer.h"
#include "sizes.h"
#include "train/activation.h"
#include "train/layer_norm.h"
#include "train/linear.h"

namespace attn {

Status LayerNormBackwardFromInput(const float* x, int rows, int dim, const float* gamma, float eps,
                                  const float* dy, float* dx, float* dgamma, float* dbeta) {
  Buffer<float> ones, zeros, stats, normalised;
  if (!ones.Assign(dim, 1.0f) || !zeros.Assign(dim, 0.0f) || !stats.Resize(2ull * rows) ||
      !normalised.Resize(static_cast<uint64_t>(rows) * dim)) {
    return Status::kOutOfMemory;
  }
  const float* g = gamma != nullptr ? gamma : ones.data();
  // 1. The forward's row statistics (its output is not needed).
  LayerNorm(x, rows, dim, g, zeros.data(), eps, normalised.data(), stats.data(),
            stats.data() + rows);
  // 2. The backward.
  LayerNormBackward(x, stats.data(), stats.data() + rows, g, dy, rows, dim, dx, dgamma, dbeta);
  return Status::kOk;
}

Status FeedForwardBackward(const float* x, int rows, int d_model, int d_ff, const float* w1,
                           const float* b1, const float* w2, Activation activation, const float* dy,
                           float* dx, float* dw1, float* db1, float* dw2, float* db2) {
  if (!FloatsFit({rows, d_ff})) return Status::kTooLarge;
  const uint64_t hidden = static_cast<uint64_t>(rows) * d_ff;
  Buffer<float> pre, act, d_act, scratch;
  if (!pre.Resize(hidden) || !act.Resize(hidden) || !d_act.Resize(hidden)) {
    return Status::kOutOfMemory;
  }
  // 1. The hidden layer again: pre = x·w1 + b1, act = act(pre).
  Status s = LinearForward(x, rows, d_model, w1, b1, d_ff, pre.data(), scratch);
  if (s != Status::kOk) return s;
  Activate(activation, pre.data(), hidden, act.data());
  // 2. Back through w2, the activation, then w1.
  s = LinearBackward(act.data(), w2, dy, rows, d_ff, d_model, d_act.data(), dw2, db2, scratch);
  if (s != Status::kOk) return s;
  ActivationBackward(activation, pre.data(), d_act.data(), hidden, act.data());
  return LinearBackward(x, w1, act.data(), rows, d_model, d_ff, dx, dw1, db1, scratch);
}

}  // namespace attn
