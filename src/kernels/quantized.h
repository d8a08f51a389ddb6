// Matrices stored as quantized blocks (GGUF's Q8_0, Q4_0, Q4_K and Q6_K) and their products
// with float32 activations.
//
// The weights: a [inner, cols] matrix (row-vector convention, x·W) is stored column by column
// as GGUF stores a weight's rows, in blocks of 32 along `inner`:
//   Q8_0  w = d · q,              q an int8 in [-127, 127]
//   Q4_0  w = d · (q − 8),        q a nibble in [0, 15]
//   Q4_K  w = s · q − m,          q a nibble in [0, 15]; s = d · scale, m = dmin · min
//   Q6_K  w = s_h · (q − 32),     q 6 bits; s_h = d · scale_h for each half h of 16 weights
// with d the block's scale, a float16 in the file (kept here as the float32 of that float16,
// so every dequantized weight is exactly GGUF's). The K-quants' super-blocks of 256 weights
// (a float16 d, dmin, and 6-bit or int8 scales per sub-block) are unpacked at load into these
// blocks of 32: each block's s and m (or s_0, s_1) are products of a float16 and a small
// integer, exact in float32, so nothing is rounded. Their codes are Q4_0's (Q4_K) and Q8_0's
// (Q6_K: q − 32 as an int8). Four columns are stored together, their
// codes interleaved in pairs, so that 8 bytes hold a pair of consecutive weights of each of
// the four columns and a dot product of pairs lands each column's sum in its own lane:
//   panel p (columns 8p .. 8p + 7: groups 2p, 2p + 1): [blocks] of
//     { group 2p's codes [GroupCodeBytes] and scales [QuantScaleFloats], then group 2p + 1's }
//   (scales: Q8_0, Q4_0 the four columns' d; Q4_K their four s then four m; Q6_K their four
//   s_0 then four s_1)
//   (a product reads the matrix front to back, one stream for the hardware prefetcher)
//   Q8_0  block byte 16v + 8h + 2j + i = column j's weight 4v + 2h + i   (v < 8, h, i < 2)
//   Q4_0  block byte 16v + 8h + 2j + i: low nibble column j's weight 4v + 2h + i, high
//         nibble its weight 16 + 4v + 2h + i (GGUF too pairs k with k + 16)    (v < 4)
//   (Q6_K as Q8_0, Q4_K as Q4_0)
// with blocks = ceil(inner / 32); a short last block, group or panel is zeros.
//
// The products quantize the activations too, as llama.cpp does: each row of a, per block of
// 32, to int8 codes q_a = round(a / d_a) with d_a = max|a| / 127 (ties to even); then each
// block's dot product is an exact integer (i32x4.dot_i16x8_s, in every build: V8 lowers the
// relaxed build's i8 dot product to five x64 instructions without AVX-VNNI, slower per
// weight here; see docs/quantization.md) and
//   out[r][c] = bias[c] + Σ_blocks (d_w · d_a) · Σ q_w·q_a
// (Q4_K: (s · d_a) · Σ q_w·q_a − m · (d_a · Σ q_a); Q6_K: one term for each half of 16)
// summed in block order in float32 (a multiply, a multiply and an add: no FMA), so every
// build, every thread count, any number of rows and the native build give the same bits.
#ifndef ATTENTION_WASM_SRC_KERNELS_QUANTIZED_H_
#define ATTENTION_WASM_SRC_KERNELS_QUANTIZED_H_

#include <cstdint>
#include <cstring>

#include "status.h"

namespace attn {

// bfloat16 as a checkpoint stores it: the upper 16 bits of a float32, so widening one is
// exact (its bits shifted up by 16).
using Bf16 = uint16_t;

// A bfloat16's float32 (exact).
inline float Bf16ToFloat(Bf16 v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// How a model's matrices are stored (every storage once, with its number: the enum and the
// table the bindings export to JS are made from it).
#define ATTN_MATRIX_STORAGES(X) \
  X(kFloat32, 0) X(kBfloat16, 1) X(kQ8_0, 2) X(kQ4_0, 3) X(kQ4_K, 4) X(kQ6_K, 5)
enum class MatrixStorage : int {
#define ATTN_MATRIX_STORAGE_ENUMERATOR(name, value) name = value,
  ATTN_MATRIX_STORAGES(ATTN_MATRIX_STORAGE_ENUMERATOR)
#undef ATTN_MATRIX_STORAGE_ENUMERATOR
};

inline bool IsQuantized(MatrixStorage s) {
  return s == MatrixStorage::kQ8_0 || s == MatrixStorage::kQ4_0 || s == MatrixStorage::kQ4_K ||
         s == MatrixStorage::kQ6_K;
}
// The K-quants: read from GGUF files only (no quantizer from floats here).
constexpr bool IsKQuant(MatrixStorage s) {
  return s == MatrixStorage::kQ4_K || s == MatrixStorage::kQ6_K;
}
// Codes as nibbles (Q4_0, Q4_K), else as int8 (Q8_0, Q6_K).
constexpr bool HasNibbleCodes(MatrixStorage s) {
  return s == MatrixStorage::kQ4_0 || s == MatrixStorage::kQ4_K;
}

constexpr int kQuantBlock = 32;    // weights a block (GGUF's QK8_0 = QK4_0 = 32)
constexpr int kQuantGroup = 4;     // columns stored together
constexpr int kKQuantBlock = 256;  // weights a K-quant super-block (GGUF's QK_K)

// Bytes of one block's codes: 16 (nibbles) or 32 (int8).
constexpr int QuantBlockBytes(MatrixStorage s) { return HasNibbleCodes(s) ? 16 : 32; }
// Bytes of one block's codes for a group's four columns.
constexpr int GroupCodeBytes(MatrixStorage s) { return kQuantGroup * QuantBlockBytes(s); }
// Floats a group's block keeps after its codes: a scale a column, and the K-quants' second
// number a column (Q4_K's m, Q6_K's second half's s).
constexpr int QuantScaleFloats(MatrixStorage s) { return (IsKQuant(s) ? 2 : 1) * kQuantGroup; }
// Weights of one block in a GGUF file (32, or a K-quant's 256) and its bytes: Q8_0 and Q4_0
// the float16 scale, then the codes; Q4_K 144 (d, dmin, 12 bytes of 6-bit scales and mins,
// 128 of nibbles); Q6_K 210 (128 bytes of low nibbles, 64 of high bit pairs, 16 int8 scales, d).
constexpr int GgmlBlockWeights(MatrixStorage s) { return IsKQuant(s) ? kKQuantBlock : kQuantBlock; }
constexpr int GgmlBlockBytes(MatrixStorage s) {
  return s == MatrixStorage::kQ4_K ? 144 : s == MatrixStorage::kQ6_K ? 210 : 2 + QuantBlockBytes(s);
}
inline int QuantBlocks(int inner) { return (inner + kQuantBlock - 1) / kQuantBlock; }
// Bytes of one group's block: the codes, then the float32 scales.
constexpr int QuantBlockStride(MatrixStorage s) {
  return GroupCodeBytes(s) + QuantScaleFloats(s) * static_cast<int>(sizeof(float));
}
// Groups stored together, block by block (a panel of 8 columns; a last lone group is paired
// with one of zeros).
constexpr int kQuantPanelGroups = 2;
inline int QuantPanels(int cols) {
  return (cols + kQuantPanelGroups * kQuantGroup - 1) / (kQuantPanelGroups * kQuantGroup);
}

// Bytes of a quantized [inner, cols] matrix (a multiple of 16).
inline uint64_t QuantBytes(MatrixStorage s, int inner, int cols) {
  return static_cast<uint64_t>(QuantPanels(cols)) * QuantBlocks(inner) * kQuantPanelGroups *
         QuantBlockStride(s);
}

// A quantized matrix in the layout above.
struct QuantMatrix {
  MatrixStorage storage = MatrixStorage::kQ8_0;
  const uint8_t* data = nullptr;
};

// float16 ↔ float32, IEEE round to nearest even (GGUF's scales).
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t half);

// Quantizes a float32 matrix (storage Q8_0 or Q4_0) with ggml's reference rounding (quantize_row_q8_0_ref:
// d = max|w| / 127, q = round(w / d); quantize_row_q4_0_ref: d = −m / 8 with m the weight of
// largest magnitude, q = min(15, trunc(w / d + 8.5))), d kept as its float16.
//   w: [inner, cols] (row stride w_stride), or with `transposed` [cols, inner] as PyTorch
//   stores a Linear weight   out: QuantBytes(storage, inner, cols)
void QuantizeMatrix(const float* w, int w_stride, bool transposed, int inner, int cols,
                    MatrixStorage storage, uint8_t* out);
// The same from bfloat16 weights (each widened exactly first).
void QuantizeMatrix(const Bf16* w, int w_stride, bool transposed, int inner, int cols,
                    MatrixStorage storage, uint8_t* out);

// Repacks GGUF blocks (cols rows of inner / GgmlBlockWeights blocks) into the layout above,
// bit for bit (the K-quants' scales multiplied out, exactly). inner must be a multiple of
// GgmlBlockWeights(storage).
//   blocks: [cols, inner / GgmlBlockWeights, GgmlBlockBytes]   out: QuantBytes(storage, inner, cols)
void PackGgmlBlocks(const uint8_t* blocks, int inner, int cols, MatrixStorage storage,
                    uint8_t* out);

// The weight at (p, c), dequantized (for tests and the reference).
float QuantWeight(const QuantMatrix& w, int inner, int p, int c);

// Column c dequantized (an embedding table stored as [d, V] blocks: token c's vector).
//   out: [inner]
void DequantizeColumn(const QuantMatrix& w, int inner, int c, float* out);

// Bytes of scratch MultiplyQuantized allocates for `rows` rows of `inner`.
uint64_t QuantScratchBytes(int rows, int inner);

// out = a·W + bias, W quantized.
//   a: [rows, inner] (row stride a_stride)   bias: [cols] or null
//   out: [rows, cols] (row stride out_stride)
// kOutOfMemory when the activations' codes cannot be allocated.
Status MultiplyQuantized(const float* a, int a_stride, int rows, int inner, const QuantMatrix& w,
                         const float* bias, int cols, float* out, int out_stride);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_QUANTIZED_H_
