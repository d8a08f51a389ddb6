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

#endif  // ATTENTION_WASM_SIMD_INL_H_

// Keeps LLVM from unrolling a SIMD loop past V8's 16 xmm registers (it spills, -20%).
#ifndef ATTN_NO_UNROLL
#if defined(__clang__)
#define ATTN_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define ATTN_NO_UNROLL
#endif
#endif
