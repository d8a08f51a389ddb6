// The activations of a quantized product as codes (kernels/quantized.cc makes them), and the
// relaxed-SIMD product of nibble blocks that the relaxed modules add (quantized_relaxed.cc:
// a kernel source, compiled by clang 19 with -mrelaxed-simd there and as a stub elsewhere).
#ifndef ATTENTION_WASM_SRC_KERNELS_QUANTIZED_CODES_H_
#define ATTENTION_WASM_SRC_KERNELS_QUANTIZED_CODES_H_

#include <cstdint>

#include "kernels/quantized.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn {

// The activations as int8 codes, per row and block of 32: codes [rows, blocks, 32] (held as
// int16, as the i16 dot products take them), their scales d_a [rows, blocks] and the sums of
// their codes [rows, blocks] (Q4_0's − 8·Σ q_a, Q4_K's − m·d_a·Σ q_a). With the relaxed
// nibble product, also `pairs` [rows, blocks, 8, 16] int8: for each vector v of a block, the
// codes (4v, 4v + 1) four times then (4v + 2, 4v + 3) four times, the order a group's block
// holds its four columns' weights in (quantized.h), so one i8 dot product takes a vector of
// weights against them.
struct InputCodes {
  int16_t* codes = nullptr;
  float* scales = nullptr;
  int32_t* sums = nullptr;
  int8_t* pairs = nullptr;
  int blocks = 0;
};

constexpr int kPairBytes = 8 * 16;  // `pairs` bytes a row's block

#if defined(__wasm_simd128__)

// 0x0f in every byte, read once through a volatile: V8 rebuilds a constant at every use.
inline v128_t NibbleMask() {
  static volatile uint32_t mask = 0x0f0f0f0fu;
  return wasm_i32x4_splat(static_cast<int32_t>(mask));
}

// One block's float32 step for a group's four columns, the same in both products (so they
// give the same bits): Q4_0's dot − 8 · Σ q_a, then out += (s · d_a) · dot, then Q4_K's
// out −= m · (d_a · Σ q_a). A multiply, a multiply and an add: no FMA.
//   dot: the block's (or term's) integer dot products   scales: the group's [QuantScaleFloats]
//   term: Q6_K's half (its scales at 4 · term)   out: [4]
template <MatrixStorage kStorage>
inline void AddBlockTerm(v128_t dot, const float* scales, int term, float d_a, int32_t sum_a,
                         float* out) {
  if constexpr (kStorage == MatrixStorage::kQ4_0) {
    dot = wasm_i32x4_sub(dot, wasm_i32x4_splat(8 * sum_a));
  }
  const v128_t scale =
      wasm_f32x4_mul(wasm_v128_load(scales + kQuantGroup * term), wasm_f32x4_splat(d_a));
  v128_t value =
      wasm_f32x4_add(wasm_v128_load(out), wasm_f32x4_mul(scale, wasm_f32x4_convert_i32x4(dot)));
  if constexpr (kStorage == MatrixStorage::kQ4_K) {
    const v128_t min_term = wasm_f32x4_splat(d_a * static_cast<float>(sum_a));
    value = wasm_f32x4_sub(value, wasm_f32x4_mul(wasm_v128_load(scales + kQuantGroup), min_term));
  }
  wasm_v128_store(out, value);
}

#endif  // __wasm_simd128__

// Whether this module has RelaxedNibbleRows (the relaxed-SIMD modules do).
bool HasRelaxedNibbleRows();

// PanelRows (quantized.cc) for nibble blocks (Q4_0, Q4_K) and rows 1 or 4, with
// i16x8.relaxed_dot_i8x16_i7x16_s: the nibbles (0..15) are its 7-bit operand, so every engine
// gives the exact products, and a block's sums stay within int16 (8 · 2 · 15 · 127 = 30480),
// so the integer sums, then the float32 steps, are PanelRows' own: the same bits.
//   act: with pairs   panel: a panel's blocks   acc: [rows][8]
void RelaxedNibbleRows(MatrixStorage storage, int rows, const InputCodes& act, int r0,
                       const uint8_t* panel, float* acc);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_QUANTIZED_CODES_H_
