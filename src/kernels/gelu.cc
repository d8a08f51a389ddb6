// GELU forward and backward (Highway, static dispatch).
#include "kernels/gelu.h"

#include <cmath>
#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"

// Φ(x) and φ(x) per lane, sharing exp(−x²/2). With z = |x|/√2, t = 1/(1 + p·z):
//   erf(z) = 1 − t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5))))·exp(−z²)   (A&S 7.1.26)
// and Φ(x) = 0.5·(1 ± erf(z)) by the sign of x.
HWY_INLINE void NormalCdfPdf(D d, V x, V* cdf, V* pdf) {
  const V z = hn::Mul(hn::Abs(x), hn::Set(d, 0.70710678118654752f));
  const V gauss = hn::Exp(d, hn::Neg(hn::Mul(z, z)));  // exp(−x²/2)
  const V t = hn::Div(hn::Set(d, 1.0f), Fma(hn::Set(d, 0.3275911f), z, hn::Set(d, 1.0f)));
  V poly = hn::Set(d, 1.061405429f);
  poly = Fma(poly, t, hn::Set(d, -1.453152027f));
  poly = Fma(poly, t, hn::Set(d, 1.421413741f));
  poly = Fma(poly, t, hn::Set(d, -0.284496736f));
  poly = Fma(poly, t, hn::Set(d, 0.254829592f));
  const V erfc_half = hn::Mul(hn::Mul(hn::Set(d, 0.5f), hn::Mul(poly, t)), gauss);  // (1−erf)/2
  const V one = hn::Set(d, 1.0f);
  *cdf = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), erfc_half, hn::Sub(one, erfc_half));
  *pdf = hn::Mul(gauss, hn::Set(d, 0.39894228040143268f));  // 1/√(2π)
}

void GeluForwardImpl(const float* x, size_t count, float* y) {
  const D d;
  size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    V cdf, pdf;
    const V v = hn::LoadU(d, x + i);
    NormalCdfPdf(d, v, &cdf, &pdf);
    hn::StoreU(hn::Mul(v, cdf), d, y + i);
  }
  if (i < count) {  // the tail through a padded vector: the same formula, the same bits
    alignas(16) float in[kLanes] = {0, 0, 0, 0}, out[kLanes];
    for (size_t j = i; j < count; ++j) in[j - i] = x[j];
    GeluForwardImpl(in, kLanes, out);
    for (size_t j = i; j < count; ++j) y[j] = out[j - i];
  }
}

void GeluBackwardImpl(const float* x, const float* dy, size_t count, float* dx) {
  const D d;
  size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    V cdf, pdf;
    const V v = hn::LoadU(d, x + i);
    NormalCdfPdf(d, v, &cdf, &pdf);
    hn::StoreU(hn::Mul(hn::LoadU(d, dy + i), Fma(v, pdf, cdf)), d, dx + i);
  }
  if (i < count) {
    alignas(16) float in[kLanes] = {0, 0, 0, 0}, g[kLanes] = {0, 0, 0, 0}, out[kLanes];
    for (size_t j = i; j < count; ++j) in[j - i] = x[j], g[j - i] = dy[j];
    GeluBackwardImpl(in, g, kLanes, out);
    for (size_t j = i; j < count; ++j) dx[j] = out[j - i];
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

void GeluForward(const float* x, size_t count, float* y) {
  HWY_STATIC_DISPATCH(GeluForwardImpl)(x, count, y);
}

void GeluBackward(const float* x, const float* dy, size_t count, float* dx) {
  HWY_STATIC_DISPATCH(GeluBackwardImpl)(x, dy, count, dx);
}

}  // namespace attn
