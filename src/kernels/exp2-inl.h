// Vector 2^x for the softmax: e^(s - max) as 2^((s - max)·log2(e)), the caller multiplying.
// Include inside HWY_NAMESPACE, after kernels/loaded_lanes.h.
//
// Why not hn::Exp: one multiply by log2(e) and a 2^x polynomial skip hn::Exp's range
// reduction by ln 2 (hi/lo split): ~13% faster than hn::Exp (TOOLCHAIN.md). Accuracy: a
// degree-6 polynomial on [-0.5, 0.5] (Cephes exp2f coefficients), relative error below
// 2e-7; tests compare against Math.exp.

#if defined(ATTENTION_WASM_EXP2_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTENTION_WASM_EXP2_INL_H_
#undef ATTENTION_WASM_EXP2_INL_H_
#else
#define ATTENTION_WASM_EXP2_INL_H_
#endif

#include "kernels/simd-inl.h"  // the vector types (D, V, kLanes)

// FastExp2's constants, loaded (kernels/loaded_lanes.h says why). Rows: the clamp, the
// rounding constant, the polynomial from its highest coefficient; and 2^n's bias (an int32).
inline auto kFastExp2 = SplatRows<float>({
    -127.0f,
    12582912.0f,  // 1.5 · 2^23
    1.535336188319500e-4f,
    1.339887440266574e-3f,
    9.618437357674640e-3f,
    5.550332471162809e-2f,
    2.402264791363012e-1f,
    6.931472028550421e-1f,
    1.0f,
});
inline auto kFastExp2Bias = SplatRows<int32_t>({127 - 0x4B400000});

// Returns 2^x per lane. x <= -127 (including -Infinity) gives exactly 0, so blocked keys
// get a weight of exactly zero; NaN gives NaN. Meant for x <= 0 (scores minus their row maximum).
//   d: a full vector of 4 floats (the constants are loaded as such)
template <class D, class V = hn::Vec<D>>
HWY_INLINE V FastExp2(D d, V x) {
  const hn::RebindToSigned<D> di;
  const auto c = [&](int i) { return hn::Load(d, kFastExp2.row[i]); };
  // 1. Range reduction: x = n + f with integer n and f in [-0.5, 0.5]. Adding 1.5·2^23
  //    rounds x to the nearest integer (ties to even, as f32x4.nearest) and leaves n in the
  //    low mantissa bits, so n needs no float-to-int conversion: V8 lowers wasm's
  //    saturating i32x4.trunc_sat_f32x4_s to ~7 x64 instructions, and this exp runs once
  //    per score. Exact for |x| < 2^22; x is clamped to [-127, 0] here.
  //    The clamp keeps NaN (the fused kernel's poisoned rows rely on it): Highway's Max(a, b)
  //    is wasm's pmax(b, a) = b < a ? a : b, and x86's maxps(a, b) returns b when either is
  //    NaN, so with x second a NaN x comes through.
  x = hn::Max(c(0), x);
  const V shifted = hn::Add(x, c(1));
  const V n = hn::Sub(shifted, c(1));
  const V f = hn::Sub(x, n);
  // 2. 2^f = 1 + f·P(f) (Cephes exp2f's coefficients).
  V p = c(2);
  for (int i = 3; i < 9; ++i) p = Fma(p, f, c(i));
  // 3. 2^n from the exponent bits: shifted's bits are 0x4B400000 + n, so (bits − 0x4B400000
  //    + 127) << 23 is 2^n's pattern; n = -127 gives the bit pattern of +0.
  const auto biased = hn::Add(hn::BitCast(di, shifted), hn::Load(di, kFastExp2Bias.row[0]));
  const V two_n = hn::BitCast(d, hn::ShiftLeft<23>(biased));
  return hn::Mul(p, two_n);
}

#endif  // ATTENTION_WASM_EXP2_INL_H_
