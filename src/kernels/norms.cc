// Layer norm and RMS norm (Highway, static dispatch).
#include "kernels/norms.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"

// Σ x[c] over a row.
HWY_INLINE float RowSum(const float* in, int dim) {
  const D d;
  V vsum = hn::Zero(d);
  int c = 0;
  for (; c + kLanes <= dim; c += kLanes) vsum = hn::Add(vsum, hn::LoadU(d, in + c));
  float sum = hn::GetLane(hn::SumOfLanes(d, vsum));
  for (; c < dim; ++c) sum += in[c];
  return sum;
}

// Σ (x[c] − center) and Σ (x[c] − center)² over a row.
HWY_INLINE void RowShifted(const float* in, int dim, float center, float* sum, float* squares) {
  const D d;
  const V vcenter = hn::Set(d, center);
  V vsum = hn::Zero(d), vsq = hn::Zero(d);
  int c = 0;
  for (; c + kLanes <= dim; c += kLanes) {
    const V diff = hn::Sub(hn::LoadU(d, in + c), vcenter);
    vsum = hn::Add(vsum, diff);
    vsq = hn::MulAdd(diff, diff, vsq);
  }
  *sum = hn::GetLane(hn::SumOfLanes(d, vsum));
  *squares = hn::GetLane(hn::SumOfLanes(d, vsq));
  for (; c < dim; ++c) {
    const float diff = in[c] - center;
    *sum += diff;
    *squares += diff * diff;
  }
}

// A row whose float sums overflow (values near 1e19 and beyond): its statistics in double,
// the normalisation too (rare: no model's activations get there; ONNX's test cases do).
void LayerNormRowInDouble(const float* in, int dim, const float* gamma, const float* beta,
                          float eps, float* o, float* mean, float* rstd) {
  double sum = 0.0;
  for (int c = 0; c < dim; ++c) sum += in[c];
  const double mu = sum / dim;
  double squares = 0.0;
  for (int c = 0; c < dim; ++c) squares += (in[c] - mu) * (in[c] - mu);
  const double inv = 1.0 / std::sqrt(squares / dim + eps);
  for (int c = 0; c < dim; ++c) {
    const double g = gamma != nullptr ? gamma[c] : 1.0;
    const double b = beta != nullptr ? beta[c] : 0.0;
    o[c] = static_cast<float>((in[c] - mu) * inv * g + b);
  }
  *mean = static_cast<float>(mu);
  *rstd = static_cast<float>(inv);
}

// Per row: a first mean, then the sums of x − that mean give the exact shift and the variance
// (so a row of 1e4 + small values keeps the small ones: x − first mean is exact in float).
void LayerNormImpl(const float* x, int rows, int dim, const float* gamma, const float* beta,
                   float eps, float* out, float* mean, float* rstd) {
  const D d;
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<size_t>(r) * dim;
    float* o = out + static_cast<size_t>(r) * dim;
    float mu, inv_std;
    // 1. The statistics: a first mean, then the shift and the biased variance around it.
    const float first = RowSum(in, dim) / dim;
    float shift_sum, squares;
    RowShifted(in, dim, first, &shift_sum, &squares);
    if (!std::isfinite(first) || !std::isfinite(squares)) {
      LayerNormRowInDouble(in, dim, gamma, beta, eps, o, &mu, &inv_std);
    } else {
      const float shift = shift_sum / dim;
      const float variance = std::max(squares / dim - shift * shift, 0.0f);
      inv_std = 1.0f / std::sqrt(variance + eps);
      mu = first + shift;
      // 2. Normalise, scale, shift: ((x − first) − shift)·rstd·γ + β.
      const V vfirst = hn::Set(d, first), vshift = hn::Set(d, shift), vinv = hn::Set(d, inv_std);
      int c = 0;
      for (; c + kLanes <= dim; c += kLanes) {
        V y = hn::Mul(hn::Sub(hn::Sub(hn::LoadU(d, in + c), vfirst), vshift), vinv);
        if (gamma != nullptr) y = hn::Mul(y, hn::LoadU(d, gamma + c));
        if (beta != nullptr) y = hn::Add(y, hn::LoadU(d, beta + c));
        hn::StoreU(y, d, o + c);
      }
      for (; c < dim; ++c) {
        const float g = gamma != nullptr ? gamma[c] : 1.0f;
        const float b = beta != nullptr ? beta[c] : 0.0f;
        o[c] = ((in[c] - first) - shift) * inv_std * g + b;
      }
    }
    if (mean != nullptr) mean[r] = mu;
    if (rstd != nullptr) rstd[r] = inv_std;
  }
}

void RmsNormImpl(const float* x, int rows, int dim, const float* gamma, float eps, float* out) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<size_t>(r) * dim;
    float* o = out + static_cast<size_t>(r) * dim;
    float sum, squares;
    RowShifted(in, dim, 0.0f, &sum, &squares);
    if (!std::isfinite(squares)) {  // squares past float (|x| near 1e19): in double
      double wide = 0.0;
      for (int c = 0; c < dim; ++c) wide += static_cast<double>(in[c]) * in[c];
      const double inverse = 1.0 / std::sqrt(wide / dim + eps);
      for (int c = 0; c < dim; ++c)
        o[c] = static_cast<float>(in[c] * inverse * (gamma != nullptr ? gamma[c] : 1.0));
      continue;
    }
    const float inverse = 1.0f / std::sqrt(squares / dim + eps);
    for (int c = 0; c < dim; ++c) o[c] = in[c] * inverse * (gamma != nullptr ? gamma[c] : 1.0f);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

void LayerNorm(const float* x, int rows, int dim, const float* gamma, const float* beta, float eps,
               float* out, float* mean, float* rstd) {
  HWY_STATIC_DISPATCH(LayerNormImpl)(x, rows, dim, gamma, beta, eps, out, mean, rstd);
}

void RmsNorm(const float* x, int rows, int dim, const float* gamma, float eps, float* out) {
  HWY_STATIC_DISPATCH(RmsNormImpl)(x, rows, dim, gamma, eps, out);
}

}  // namespace attn
