// The activation table: ReLU, GELU (tanh form) and SiLU here (Highway, static dispatch), the
// erf GELU from gelu.h.
#include "kernels/activations.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "kernels/gelu.h"
#include "parallel.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"

HWY_INLINE V GeluTanh(D d, V x) {
  const V inner = hn::Mul(hn::Set(d, 0.7978845608028654f),  // √(2/π)
                          Fma(hn::Mul(hn::Set(d, 0.044715f), hn::Mul(x, x)), x, x));
  return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x), hn::Add(hn::Set(d, 1.0f), hn::Tanh(d, inner)));
}

HWY_INLINE V Silu(D d, V x) {
  return hn::Div(x, hn::Add(hn::Set(d, 1.0f), hn::Exp(d, hn::Neg(x))));
}

// f over x in place; the tail through a padded vector (the same formula, the same bits).
template <class F>
HWY_INLINE void Apply(float* x, size_t count, F f) {
  const D d;
  size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) hn::StoreU(f(d, hn::LoadU(d, x + i)), d, x + i);
  if (i < count) {
    alignas(16) float tail[kLanes] = {0, 0, 0, 0};
    for (size_t j = i; j < count; ++j) tail[j - i] = x[j];
    hn::Store(f(d, hn::Load(d, tail)), d, tail);
    for (size_t j = i; j < count; ++j) x[j] = tail[j - i];
  }
}

void ReluImpl(float* x, size_t count) {
  const D d;
  size_t i = 0;
  // NaN stays NaN on both paths (as PyTorch's relu): Max(0, NaN) keeps the NaN on x86 and
  // wasm alike, and the tail tests for it (std::max(NaN, 0) would too, but not by contract).
  for (; i + kLanes <= count; i += kLanes)
    hn::StoreU(hn::Max(hn::Zero(d), hn::LoadU(d, x + i)), d, x + i);
  for (; i < count; ++i) x[i] = x[i] > 0.0f || std::isnan(x[i]) ? x[i] : 0.0f;
}

void GeluTanhImpl(float* x, size_t count) {
  Apply(x, count, [](D d, V v) { return GeluTanh(d, v); });
}
void SiluImpl(float* x, size_t count) {
  Apply(x, count, [](D d, V v) { return Silu(d, v); });
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

void ReluInPlace(float* x, size_t count) { HWY_STATIC_DISPATCH(ReluImpl)(x, count); }
void GeluTanhInPlace(float* x, size_t count) { HWY_STATIC_DISPATCH(GeluTanhImpl)(x, count); }
void SiluInPlace(float* x, size_t count) { HWY_STATIC_DISPATCH(SiluImpl)(x, count); }

namespace {

// One span of values: x and y are [count] (y may be x).
void ActivateSpan(Activation activation, const float* x, size_t count, float* y) {
  if (activation == Activation::kGelu) {
    GeluForward(x, count, y);
    return;
  }
  if (y != x) std::memcpy(y, x, sizeof(float) * count);
  switch (activation) {
    case Activation::kRelu:
      ReluInPlace(y, count);
      return;
    case Activation::kGeluTanh:
      GeluTanhInPlace(y, count);
      return;
    case Activation::kSilu:
      SiluInPlace(y, count);
      return;
    default:
      return;
  }
}

}  // namespace

void Activate(Activation activation, const float* x, size_t count, float* y) {
  // Spread over the threads in spans of kSpan values (a multiple of the vector width, so only
  // the last span has a tail, as a single call would). Each value's formula is its own, so
  // any thread count gives the same bits. A 128-token prefill's GELU (128 × 3,072 values)
  // took 26 ms of one thread; a decode step's 3,072 values stay on the calling thread.
  constexpr size_t kSpan = 16384;
  constexpr uint64_t kFlopsPerValue = 32;  // tanh or exp and a few products
  const int spans = static_cast<int>((count + kSpan - 1) / kSpan);
  auto span = [&](int index, int) {
    const size_t from = static_cast<size_t>(index) * kSpan;
    ActivateSpan(activation, x + from, std::min(kSpan, count - from), y + from);
  };
  ParallelForEach(spans, kFlopsPerValue * count, span);
}

}  // namespace attn
