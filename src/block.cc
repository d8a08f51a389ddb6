// Layer norm, feed-forward, residual add (Highway, static dispatch) and set pooling.
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

// Two passes per row: the mean, then the variance of x - mean (stable for large offsets).
void LayerNormImpl(const float* x, int rows, int dim, const float* gamma, const float* beta,
                   float eps, float* out) {
  const D d;
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<size_t>(r) * dim;
    float* o = out + static_cast<size_t>(r) * dim;
    // 1. Mean.
    V vsum = hn::Zero(d);
    int c = 0;
    for (; c + kLanes <= dim; c += kLanes) vsum = hn::Add(vsum, hn::LoadU(d, in + c));
    float sum = hn::GetLane(hn::SumOfLanes(d, vsum));
    for (; c < dim; ++c) sum += in[c];
    const float mean = sum / dim;
    // 2. Biased variance.
    const V vmean = hn::Set(d, mean);
    V vsq = hn::Zero(d);
    for (c = 0; c + kLanes <= dim; c += kLanes) {
      const V diff = hn::Sub(hn::LoadU(d, in + c), vmean);
      vsq = hn::MulAdd(diff, diff, vsq);
    }
    float sq = hn::GetLane(hn::SumOfLanes(d, vsq));
    for (; c < dim; ++c) sq += (in[c] - mean) * (in[c] - mean);
    const float inv_std = 1.0f / std::sqrt(sq / dim + eps);
    // 3. Normalise, scale, shift.
    for (c = 0; c < dim; ++c) {
      const float g = gamma != nullptr ? gamma[c] : 1.0f;
      const float b = beta != nullptr ? beta[c] : 0.0f;
      o[c] = (in[c] - mean) * inv_std * g + b;
    }
  }
}

void ReluInPlace(float* x, size_t count) {
  const D d;
  size_t i = 0;
  // NaN stays NaN on both paths (as PyTorch's relu): Max(0, NaN) keeps the NaN on x86 and
  // wasm alike, and the tail tests for it (std::max(NaN, 0) would too, but not by contract).
  for (; i + kLanes <= count; i += kLanes)
    hn::StoreU(hn::Max(hn::Zero(d), hn::LoadU(d, x + i)), d, x + i);
  for (; i < count; ++i) x[i] = x[i] > 0.0f || std::isnan(x[i]) ? x[i] : 0.0f;
}

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

void LayerNorm(const float* x, int rows, int dim, const float* gamma, const float* beta, float eps,
               float* out) {
  HWY_STATIC_DISPATCH(LayerNormImpl)(x, rows, dim, gamma, beta, eps, out);
}

void ApplyActivation(Activation activation, float* x, size_t count) {
  if (activation == Activation::kRelu) {
    HWY_STATIC_DISPATCH(ReluInPlace)(x, count);
  } else if (activation == Activation::kSilu) {
    for (size_t i = 0; i < count; ++i) {
      const double v = x[i];
      x[i] = static_cast<float>(v / (1.0 + std::exp(-v)));
    }
  } else if (activation == Activation::kGeluTanh) {
    const double k = std::sqrt(2.0 / 3.14159265358979323846);
    for (size_t i = 0; i < count; ++i) {
      const double v = x[i];
      x[i] = static_cast<float>(0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))));
    }
  } else {
    for (size_t i = 0; i < count; ++i)
      x[i] = static_cast<float>(0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0))));
  }
}

void RmsNorm(const float* x, int rows, int dim, const float* gamma, double eps, float* out) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<size_t>(r) * dim;
    float* o = out + static_cast<size_t>(r) * dim;
    double squares = 0.0;
    for (int c = 0; c < dim; ++c) squares += static_cast<double>(in[c]) * in[c];
    const double inverse = 1.0 / std::sqrt(squares / dim + eps);
    for (int c = 0; c < dim; ++c) {
      o[c] = static_cast<float>(in[c] * inverse * (gamma != nullptr ? gamma[c] : 1.0));
    }
  }
}

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
  ApplyActivation(activation, h, hidden.size());
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
