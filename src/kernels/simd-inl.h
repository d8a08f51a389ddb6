// The vector types every kernel uses: 128-bit vectors of 4 floats (wasm SIMD128, and
// 128-bit ops on native targets). Include inside HWY_NAMESPACE after hwy/highway.h and
// <limits>.

#if defined(ATTENTION_WASM_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTENTION_WASM_SIMD_INL_H_
#undef ATTENTION_WASM_SIMD_INL_H_
#else
#define ATTENTION_WASM_SIMD_INL_H_
#endif

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::Full128<float>;  // 4 lanes on every target
using V = hn::Vec<D>;
constexpr int kLanes = 4;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();  // a blocked score

// mul · x + add. In the relaxed-SIMD build (-mrelaxed-simd, clang 19) one fused
// f32x4.relaxed_madd, which Highway 1.0.3 does not emit: a single rounding where the engine
// has FMA (so the last bits may differ from the SIMD128 build's mul + add). Elsewhere
// Highway's MulAdd (mul + add on SIMD128, a real FMA on native x86 with -march=native).
HWY_INLINE V Fma(V mul, V x, V add) {
#if defined(__wasm_relaxed_simd__)
  return V{wasm_f32x4_relaxed_madd(mul.raw, x.raw, add.raw)};
#else
  return hn::MulAdd(mul, x, add);
#endif
}

#endif  // ATTENTION_WASM_SIMD_INL_H_

// Keeps LLVM from unrolling a SIMD loop past V8's 16 xmm registers (it spills, -20%).
#ifndef ATTN_NO_UNROLL
#if defined(__clang__)
#define ATTN_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define ATTN_NO_UNROLL
#endif
#endif

// Unrolls a loop over a register tile's rows completely, so that every index into the
// tile's array of vectors is a constant and the array lives in registers.
#ifndef ATTN_UNROLL_FULLY
#if defined(__clang__)
#define ATTN_UNROLL_FULLY _Pragma("clang loop unroll(full)")
#else
#define ATTN_UNROLL_FULLY
#endif
#endif
