// Feed-forward, residual add (Highway, static dispatch) and set pooling.
#include "block.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "buffer.h"
#include "hwy/highway.h"
#include "kernels/matmul.h"
#include "sizes.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"

void AddIntoImpl(const float* a, const float* b, int count, float* out) {
  const D d;
  int i = 0;
  for (; i + kLanes <= count; i += kLanes)
    hn::StoreU(hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
  for (; i < count; ++i) out[i] = a[i] + b[i];
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

Status FeedForward(const float* x, int rows, int d_model, int d_ff, const float* w1,
                   const float* b1, const float* w2, const float* b2, Activation activation,
                   float* out, const float* w1_panels, const float* w2_panels) {
  // 1. Hidden layer h = x·w1 + b1.   h: [rows, d_ff]
  if (!FloatsFit({rows, d_ff}) || !FloatsFit({d_model, d_ff})) return Status::kTooLarge;
  Buffer<float> hidden;
  if (!hidden.Resize(static_cast<uint64_t>(rows) * d_ff)) return Status::kOutOfMemory;
  Status status = MatMul(x, w1, b1, rows, d_model, d_ff, hidden.data(), w1_panels);
  if (status != Status::kOk) return status;
  // 2. Activation.
  float* h = hidden.data();
  Activate(activation, h, hidden.size(), h);
  // 3. Output layer.
  return MatMul(h, w2, b2, rows, d_ff, d_model, out, w2_panels);
}

uint64_t FeedForwardScratchBytes(int rows, int d_model, int d_ff, bool packed) {
  const uint64_t panels =
      packed ? 0 : std::max(PanelFloats(d_model, d_ff), PanelFloats(d_ff, d_model));
  return sizeof(float) * (static_cast<uint64_t>(rows) * d_ff + panels);
}

void AddInto(const float* a, const float* b, int count, float* out) {
  HWY_STATIC_DISPATCH(AddIntoImpl)(a, b, count, out);
}

void SetPool(const float* x, int sets, int set_size, int dim, PoolOp op, float* out) {
  for (int s = 0; s < sets; ++s) {
    const float* set = x + static_cast<size_t>(s) * set_size * dim;
    float* o = out + static_cast<size_t>(s) * dim;
    for (int c = 0; c < dim; ++c) {
      float acc = op == PoolOp::kMax ? set[c] : 0.0f;
      for (int i = 0; i < set_size; ++i) {
        const float value = set[static_cast<size_t>(i) * dim + c];
        acc = op == PoolOp::kMax ? (value > acc || std::isnan(value) ? value : acc) : acc + value;
      }
      o[c] = op == PoolOp::kMean ? acc / set_size : acc;
    }
  }
}

}  // namespace attn
