// Dot product and axpy on 4-lane vectors for short rows (a head's head_dim), with a scalar
// tail; the sum order is fixed (lanes, then the tail), so results do not depend on threads.
// Include inside HWY_NAMESPACE.

#if defined(ATTENTION_WASM_VECTOR_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTENTION_WASM_VECTOR_OPS_INL_H_
#undef ATTENTION_WASM_VECTOR_OPS_INL_H_
#else
#define ATTENTION_WASM_VECTOR_OPS_INL_H_
#endif

#include "kernels/simd-inl.h"  // the vector types (D, V, kLanes)

// a·b over n.
HWY_INLINE float Dot(const float* a, const float* b, int n) {
  const D d;
  V acc = hn::Zero(d);
  int c = 0;
  for (; c + kLanes <= n; c += kLanes) acc = Fma(hn::LoadU(d, a + c), hn::LoadU(d, b + c), acc);
  float sum = hn::GetLane(hn::SumOfLanes(d, acc));
  for (; c < n; ++c) sum += a[c] * b[c];
  return sum;
}

// y += alpha·x over n.
HWY_INLINE void Axpy(float alpha, const float* x, float* y, int n) {
  const D d;
  const V a = hn::Set(d, alpha);
  int c = 0;
  for (; c + kLanes <= n; c += kLanes) {
    hn::StoreU(Fma(a, hn::LoadU(d, x + c), hn::LoadU(d, y + c)), d, y + c);
  }
  for (; c < n; ++c) y[c] += alpha * x[c];
}

#endif  // ATTENTION_WASM_VECTOR_OPS_INL_H_
