// The activations of a quantized product as codes (kernels/quantized.cc makes them), and the
// relaxed-SIMD product of nibble blocks that the relaxed modules add (quantized_relaxed.cc:
// a kernel source, compiled by clang 19 with -mrelaxed-simd there and as a stub elsewhere).
#ifndef ATTENTION_WASM_SRC_KERNELS_QUANTIZED_CODES_H_
#define ATTENTION_WASM_SRC_KERNELS_QUANTIZED_CODES_H_

#include <cstdint>

#include "kernels/quantized.h"

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
