// RelaxedNibbleRows (quantized_codes.h): in the relaxed-SIMD modules the nibble blocks' dot
// products take one i16x8.relaxed_dot_i8x16_i7x16_s a vector of weights (V8 lowers it to one
// pmaddubsw), where the baseline widens the nibbles to int16 and takes two i32x4.dot_i16x8_s.
// Elsewhere (the baseline modules, native builds) a stub: HasRelaxedNibbleRows() is false.
#include "kernels/quantized_codes.h"

namespace attn {

#if defined(__wasm_relaxed_simd__)

namespace {

// out rows [r0, r0 + kRows), a panel's 8 columns (PanelRows in quantized.cc, the same steps):
// per block, each row's int16 sums of the i8 dot products over the 8 vectors (lanes j, j + 4:
// column j's pairs (4v, 4v + 1) and (4v + 2, 4v + 3)), widened to int32 and added; then the
// float32 step both products share (AddBlockTerm).
template <MatrixStorage kStorage, int kRows>
void Rows(const InputCodes& act, int r0, const uint8_t* panel, float* acc) {
  constexpr int kGroups = kQuantPanelGroups, kWidth = kGroups * kQuantGroup;
  constexpr int q = GroupCodeBytes(kStorage), group_bytes = QuantBlockStride(kStorage);
  constexpr int block_stride = kGroups * group_bytes;
  const int blocks = act.blocks;
  for (int i = 0; i < kRows * kWidth; ++i) acc[i] = 0.0f;
  const v128_t mask = NibbleMask();
  for (int b = 0; b < blocks; ++b) {
    const uint8_t* block = panel + b * block_stride;
    const int8_t* pairs = act.pairs + (static_cast<size_t>(r0) * blocks + b) * kPairBytes;
    const size_t row_pairs = static_cast<size_t>(blocks) * kPairBytes;
    v128_t sums[kRows][kGroups];
    for (int r = 0; r < kRows; ++r) {
      for (int g = 0; g < kGroups; ++g) sums[r][g] = wasm_i16x8_splat(0);
    }
    // Each 16 bytes of a group's block hold vector c's weights in their low nibbles and
    // vector c + 4's in their high ones: one load for both.
#pragma clang loop unroll(disable)
    for (int c = 0; c < 4; ++c) {
      v128_t low[kGroups], high[kGroups];
      for (int g = 0; g < kGroups; ++g) {
        const v128_t raw = wasm_v128_load(block + g * group_bytes + 16 * c);
        low[g] = wasm_v128_and(raw, mask);
        high[g] = wasm_v128_and(wasm_u16x8_shr(raw, 4), mask);
      }
      for (int r = 0; r < kRows; ++r) {
        const int8_t* a = pairs + r * row_pairs;
        const v128_t a_low = wasm_v128_load(a + 16 * c);
        for (int g = 0; g < kGroups; ++g) {
          sums[r][g] =
              wasm_i16x8_add(sums[r][g], wasm_i16x8_relaxed_dot_i8x16_i7x16(a_low, low[g]));
        }
        const v128_t a_high = wasm_v128_load(a + 16 * (c + 4));
        for (int g = 0; g < kGroups; ++g) {
          sums[r][g] =
              wasm_i16x8_add(sums[r][g], wasm_i16x8_relaxed_dot_i8x16_i7x16(a_high, high[g]));
        }
      }
    }
    for (int r = 0; r < kRows; ++r) {
      const size_t row_block = static_cast<size_t>(r0 + r) * blocks + b;
      for (int g = 0; g < kGroups; ++g) {
        const v128_t dot = wasm_i32x4_add(wasm_i32x4_extend_low_i16x8(sums[r][g]),
                                          wasm_i32x4_extend_high_i16x8(sums[r][g]));
        AddBlockTerm<kStorage>(dot, reinterpret_cast<const float*>(block + g * group_bytes + q), 0,
                               act.scales[row_block], act.sums[row_block],
                               acc + r * kWidth + g * kQuantGroup);
      }
    }
  }
}

}  // namespace

bool HasRelaxedNibbleRows() { return true; }

void RelaxedNibbleRows(MatrixStorage storage, int rows, const InputCodes& act, int r0,
                       const uint8_t* panel, float* acc) {
  const bool q4_0 = storage == MatrixStorage::kQ4_0;
  if (rows == 4) {
    q4_0 ? Rows<MatrixStorage::kQ4_0, 4>(act, r0, panel, acc)
         : Rows<MatrixStorage::kQ4_K, 4>(act, r0, panel, acc);
  } else {
    q4_0 ? Rows<MatrixStorage::kQ4_0, 1>(act, r0, panel, acc)
         : Rows<MatrixStorage::kQ4_K, 1>(act, r0, panel, acc);
  }
}

#else  // no relaxed SIMD: quantized.cc's own product

bool HasRelaxedNibbleRows() { return false; }

void RelaxedNibbleRows(MatrixStorage, int, const InputCodes&, int, const uint8_t*, float*) {}

#endif

}  // namespace attn
