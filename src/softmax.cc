// Softmax and log-softmax along one axis (Highway, static dispatch): along contiguous rows
// when the axis is the last, else across four neighbouring columns at once.
#include "softmax.h"

#include <cmath>
#include <cstddef>
#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// One line of `len` values at stride `stride`, in scalar code (columns left over by the
// four-column path, and inner sizes 2 and 3).
//   x, out: [len] at stride `stride`
void LineScalar(const float* x, int len, size_t stride, bool log, float* out) {
  // 1. Max, NaN-propagating (a NaN, a +Infinity or all -Infinity make the line NaN).
  float max = -std::numeric_limits<float>::infinity();
  bool nan = false;
  for (int a = 0; a < len; ++a) {
    const float v = x[a * stride];
    nan |= std::isnan(v);
    max = v > max ? v : max;
  }
  if (nan || !std::isfinite(max)) {
    for (int a = 0; a < len; ++a) out[a * stride] = kNaN;
    return;
  }
  // 2. exp(x - max) into out, summed in double.
  double sum = 0.0;
  for (int a = 0; a < len; ++a) {
    const float e = std::exp(x[a * stride] - max);
    out[a * stride] = e;
    sum += e;
  }
  // 3. Normalise (sum >= 1: the max contributes exp(0)).
  if (log) {
    const float lse = static_cast<float>(std::log(sum));
    for (int a = 0; a < len; ++a) out[a * stride] = (x[a * stride] - max) - lse;
  } else {
    const float inv = static_cast<float>(1.0 / sum);
    for (int a = 0; a < len; ++a) out[a * stride] *= inv;
  }
}

// One contiguous row (the axis is the last).   x, out: [len]
void RowSimd(const float* x, int len, bool log, float* out) {
  const D d;
  // 1. Max; NaNs are tracked apart (Highway's Max drops them).
  V vmax = hn::Set(d, -std::numeric_limits<float>::infinity());
  V vnan = hn::Zero(d);
  int c = 0;
  for (; c + kLanes <= len; c += kLanes) {
    const V v = hn::LoadU(d, x + c);
    vmax = hn::Max(vmax, v);
    vnan = hn::Or(vnan, hn::VecFromMask(d, hn::Ne(v, v)));
  }
  float max = hn::GetLane(hn::MaxOfLanes(d, vmax));
  bool nan = !hn::AllFalse(d, hn::MaskFromVec(vnan));
  for (; c < len; ++c) {
    nan |= std::isnan(x[c]);
    max = x[c] > max ? x[c] : max;
  }
  if (nan || !std::isfinite(max)) {
    for (c = 0; c < len; ++c) out[c] = kNaN;
    return;
  }
  // 2. exp(x - max) into out (hn::Exp gives 0 below -104, so -Infinity gives 0), summed in
  //    double.
  const V vm = hn::Set(d, max);
  for (c = 0; c + kLanes <= len; c += kLanes) {
    hn::StoreU(hn::Exp(d, hn::Sub(hn::LoadU(d, x + c), vm)), d, out + c);
  }
  for (; c < len; ++c) out[c] = std::exp(x[c] - max);
  double sum = 0.0;
  for (c = 0; c < len; ++c) sum += out[c];
  // 3. Normalise.
  if (log) {
    const float lse = static_cast<float>(std::log(sum));
    const V vl = hn::Set(d, lse);
    for (c = 0; c + kLanes <= len; c += kLanes) {
      hn::StoreU(hn::Sub(hn::Sub(hn::LoadU(d, x + c), vm), vl), d, out + c);
    }
    for (; c < len; ++c) out[c] = (x[c] - max) - lse;
  } else {
    const V vi = hn::Set(d, static_cast<float>(1.0 / sum));
    for (c = 0; c + kLanes <= len; c += kLanes) {
      hn::StoreU(hn::Mul(hn::LoadU(d, out + c), vi), d, out + c);
    }
    for (; c < len; ++c) out[c] *= static_cast<float>(1.0 / sum);
  }
}

// Four neighbouring columns (lanes) of an axis with stride `stride` >= 4.
//   x, out: [len, 4] at row stride `stride`
void FourColumnsSimd(const float* x, int len, size_t stride, bool log, float* out) {
  const D d;
  // 1. Per-lane max and NaN flags.
  V vmax = hn::Set(d, -std::numeric_limits<float>::infinity());
  V vnan = hn::Zero(d);
  for (int a = 0; a < len; ++a) {
    const V v = hn::LoadU(d, x + a * stride);
    vmax = hn::Max(vmax, v);
    vnan = hn::Or(vnan, hn::VecFromMask(d, hn::Ne(v, v)));
  }
  // A bad lane (NaN, +Infinity or all -Infinity) computes with max 0 and is overwritten.
  const auto bad =
      hn::Or(hn::MaskFromVec(vnan),
             hn::Not(hn::Lt(hn::Abs(vmax), hn::Set(d, std::numeric_limits<float>::infinity()))));
  vmax = hn::IfThenZeroElse(bad, vmax);
  // 2. exp(x - max) into out; per-lane sums in double.
  double sum[kLanes] = {0.0, 0.0, 0.0, 0.0};
  for (int a = 0; a < len; ++a) {
    float* o = out + a * stride;
    hn::StoreU(hn::Exp(d, hn::Sub(hn::LoadU(d, x + a * stride), vmax)), d, o);
    for (int l = 0; l < kLanes; ++l) sum[l] += o[l];
  }
  // 3. Normalise; bad lanes become NaN.
  alignas(16) float factor[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    factor[l] = static_cast<float>(log ? std::log(sum[l]) : 1.0 / sum[l]);
  }
  const V vf = hn::Load(d, factor);
  const V vbad = hn::IfThenElseZero(bad, hn::Set(d, kNaN));
  for (int a = 0; a < len; ++a) {
    float* o = out + a * stride;
    const V y = log ? hn::Sub(hn::Sub(hn::LoadU(d, x + a * stride), vmax), vf)
                    : hn::Mul(hn::LoadU(d, o), vf);
    hn::StoreU(hn::IfThenElse(bad, vbad, y), d, o);
  }
}

void SoftmaxImpl(const float* x, int outer, int axis_len, int inner, bool log, float* out) {
  const size_t block = static_cast<size_t>(axis_len) * inner;
  for (int o = 0; o < outer; ++o) {
    const float* xo = x + o * block;
    float* yo = out + o * block;
    if (inner == 1) {
      RowSimd(xo, axis_len, log, yo);
      continue;
    }
    int i = 0;
    if (inner >= kLanes) {
      for (; i + kLanes <= inner; i += kLanes)
        FourColumnsSimd(xo + i, axis_len, inner, log, yo + i);
    }
    for (; i < inner; ++i) LineScalar(xo + i, axis_len, inner, log, yo + i);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

Status Softmax(const float* x, int outer, int axis_len, int inner, bool log, float* out) {
  if (outer < 0 || axis_len < 0 || inner < 0) return Status::kBadArgument;
  if (outer == 0 || axis_len == 0 || inner == 0) return Status::kOk;
  if (x == nullptr || out == nullptr || x == out) return Status::kBadArgument;
  HWY_STATIC_DISPATCH(SoftmaxImpl)(x, outer, axis_len, inner, log, out);
  return Status::kOk;
}

}  // namespace attn
