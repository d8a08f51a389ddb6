// Quantized matrices (see quantized.h). The SIMD is written with wasm_simd128.h directly:
// Highway 1.0.3 has no int8 dot product. Native builds (the sanitizer and fuzz tests) run
// the scalar loops, which do the same integer sums and the same float32 operations in the
// same order, so they give the same bits.
#include "kernels/quantized.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "buffer.h"
#include "parallel.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attn {

uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // ≥ 65520 rounds to infinity
  if (magnitude < 0x38800000u) {                        // below 2^-14: a subnormal half
    float v;
    std::memcpy(&v, &magnitude, sizeof(v));
    // v · 2^24 is exact; nearbyint rounds to nearest even (1024 becomes the least normal).
    return sign | static_cast<uint16_t>(std::nearbyint(v * 16777216.0f));
  }
  uint32_t half = (magnitude - 0x38000000u) >> 13;  // exponent rebiased, 10 mantissa bits
  const uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // a carry bumps the exponent
  return sign | static_cast<uint16_t>(half);
}

float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {
    const float v = static_cast<float>(mantissa) * 5.9604644775390625e-8f;  // · 2^-24
    return sign != 0 ? -v : v;
  }
  const uint32_t bits = sign | (exponent == 31 ? 0x7f800000u | (mantissa << 13)
                                               : ((exponent + 112) << 23) | (mantissa << 13));
  float v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

namespace {

// Where column c's block b lives in a quantized matrix.
struct BlockPlace {
  uint8_t* codes;
  float* scale;
};

BlockPlace PlaceOf(uint8_t* data, MatrixStorage s, int blocks, int c, int b) {
  const int q = QuantBlockBytes(s);
  const int g = c / kQuantGroup, j = c % kQuantGroup;
  uint8_t* group = data + static_cast<size_t>(g) * blocks * kQuantGroup * (q + sizeof(float));
  uint8_t* scales = group + static_cast<size_t>(blocks) * kQuantGroup * q;
  return {group + (static_cast<size_t>(b) * kQuantGroup + j) * q,
          reinterpret_cast<float*>(scales) + static_cast<size_t>(b) * kQuantGroup + j};
}

// One block of 32 weights (zero past the matrix) to codes and a scale, as ggml's reference
// quantizers do.   x: [32]
void QuantizeBlock(const float* x, MatrixStorage s, BlockPlace place) {
  if (s == MatrixStorage::kQ8_0) {
    float amax = 0.0f;
    for (int j = 0; j < kQuantBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < kQuantBlock; ++j) {
      place.codes[j] = static_cast<uint8_t>(static_cast<int8_t>(std::round(x[j] * id)));
    }
    *place.scale = HalfToFloat(FloatToHalf(d));
    return;
  }
  float amax = 0.0f, max = 0.0f;  // the weight of largest magnitude, with its sign
  for (int j = 0; j < kQuantBlock; ++j) {
    if (amax < std::fabs(x[j])) amax = std::fabs(x[j]), max = x[j];
  }
  const float d = max / -8.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  for (int j = 0; j < kQuantBlock / 2; ++j) {
    const int lo = std::min(15, static_cast<int>(static_cast<int8_t>(x[j] * id + 8.5f)));
    const int hi = std::min(15, static_cast<int>(static_cast<int8_t>(x[j + 16] * id + 8.5f)));
    place.codes[j] = static_cast<uint8_t>(lo | (hi << 4));
  }
  *place.scale = HalfToFloat(FloatToHalf(d));
}

}  // namespace

namespace {

inline float Widen(float v) { return v; }
inline float Widen(Bf16 v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

template <typename T>
void QuantizeMatrixOf(const T* w, int w_stride, bool transposed, int inner, int cols,
                      MatrixStorage storage, uint8_t* out) {
  std::memset(out, 0, QuantBytes(storage, inner, cols));
  const int blocks = QuantBlocks(inner);
  float x[kQuantBlock];
  for (int c = 0; c < cols; ++c) {
    for (int b = 0; b < blocks; ++b) {
      for (int j = 0; j < kQuantBlock; ++j) {
        const int p = b * kQuantBlock + j;
        x[j] = p >= inner   ? 0.0f
               : transposed ? Widen(w[static_cast<size_t>(c) * w_stride + p])
                            : Widen(w[static_cast<size_t>(p) * w_stride + c]);
      }
      QuantizeBlock(x, storage, PlaceOf(out, storage, blocks, c, b));
    }
  }
}

}  // namespace

void QuantizeMatrix(const float* w, int w_stride, bool transposed, int inner, int cols,
                    MatrixStorage storage, uint8_t* out) {
  QuantizeMatrixOf(w, w_stride, transposed, inner, cols, storage, out);
}
void QuantizeMatrix(const Bf16* w, int w_stride, bool transposed, int inner, int cols,
                    MatrixStorage storage, uint8_t* out) {
  QuantizeMatrixOf(w, w_stride, transposed, inner, cols, storage, out);
}

void PackGgmlBlocks(const uint8_t* src, int inner, int cols, MatrixStorage storage, uint8_t* out) {
  std::memset(out, 0, QuantBytes(storage, inner, cols));
  const int blocks = inner / kQuantBlock, q = QuantBlockBytes(storage);
  for (int c = 0; c < cols; ++c) {
    for (int b = 0; b < blocks; ++b) {
      const uint8_t* block = src + (static_cast<size_t>(c) * blocks + b) * (2 + q);
      const BlockPlace place = PlaceOf(out, storage, blocks, c, b);
      *place.scale = HalfToFloat(static_cast<uint16_t>(block[0] | (block[1] << 8)));
      std::memcpy(place.codes, block + 2, q);
    }
  }
}

namespace {

// Weight k of a block as its signed code: Q8_0's int8, Q4_0's nibble − 8 (element k < 16 in
// byte k's low nibble, element k ≥ 16 in byte k − 16's high one).
inline int SignedCode(MatrixStorage s, const uint8_t* codes, int k) {
  if (s == MatrixStorage::kQ8_0) return static_cast<int8_t>(codes[k]);
  return (k < 16 ? (codes[k] & 0x0f) : (codes[k - 16] >> 4)) - 8;
}

}  // namespace

float QuantWeight(const QuantMatrix& w, int inner, int p, int c) {
  const BlockPlace place =
      PlaceOf(const_cast<uint8_t*>(w.data), w.storage, QuantBlocks(inner), c, p / kQuantBlock);
  return *place.scale * static_cast<float>(SignedCode(w.storage, place.codes, p % kQuantBlock));
}

void DequantizeColumn(const QuantMatrix& w, int inner, int c, float* out) {
  const int blocks = QuantBlocks(inner);
  for (int b = 0; b < blocks; ++b) {
    const BlockPlace place = PlaceOf(const_cast<uint8_t*>(w.data), w.storage, blocks, c, b);
    const int n = std::min(kQuantBlock, inner - b * kQuantBlock);
    for (int k = 0; k < n; ++k) {
      out[b * kQuantBlock + k] =
          *place.scale * static_cast<float>(SignedCode(w.storage, place.codes, k));
    }
  }
}

void DequantizePanels(const QuantMatrix& w, int inner, int c0, int width, float* panels) {
  constexpr int kWidth = 8;  // MatMul's panel width (kernels/matmul.h kPanelWidth)
  const int blocks = QuantBlocks(inner);
  // The panels spread over the threads (each writes its own). Each block of a panel's 8 columns
  // is dequantized into a 32 × 8 tile on the stack (L1), then copied into the panel's rows
  // whole: the panel is written in order, not 8 floats apart.
  auto panel_task = [&](int t, int) {
    alignas(16) float tile[kQuantBlock * kWidth] = {};
    const int t0 = t * kWidth, n_cols = std::min(kWidth, width - t0);
    float* panel = panels + static_cast<size_t>(t) * inner * kWidth;
    for (int b = 0; b < blocks; ++b) {
      for (int j = 0; j < n_cols; ++j) {
        const BlockPlace place =
            PlaceOf(const_cast<uint8_t*>(w.data), w.storage, blocks, c0 + t0 + j, b);
        const float scale = *place.scale;
        if (w.storage == MatrixStorage::kQ8_0) {
          for (int k = 0; k < kQuantBlock; ++k) {
            tile[k * kWidth + j] = scale * static_cast<float>(static_cast<int8_t>(place.codes[k]));
          }
        } else {
          for (int k = 0; k < 16; ++k) {
            tile[k * kWidth + j] = scale * static_cast<float>((place.codes[k] & 0x0f) - 8);
            tile[(k + 16) * kWidth + j] = scale * static_cast<float>((place.codes[k] >> 4) - 8);
          }
        }
      }
      const int rows = std::min(kQuantBlock, inner - b * kQuantBlock);
      std::memcpy(panel + static_cast<size_t>(b) * kQuantBlock * kWidth, tile,
                  sizeof(float) * rows * kWidth);
    }
  };
  // Widening a weight costs about what reading it in a product does (8 flops, as
  // MultiplyPanelsFewRows counts).
  ParallelForEach((width + kWidth - 1) / kWidth, 8ull * inner * width, panel_task);
}

namespace {

// The activations as int8 codes, per row and block of 32: codes [rows, blocks, 32], their
// scales d_a [rows, blocks] and the sums of their codes [rows, blocks] (Q4_0's − 8·Σ q_a).
struct InputCodes {
  int8_t* codes = nullptr;
  float* scales = nullptr;
  int32_t* sums = nullptr;
  int blocks = 0;
};

// One row to codes: d_a = max|a| / 127, q_a = round(a / d_a) to nearest even. A NaN or an
// infinity makes d_a NaN or infinite, so that every output it touches is too.
//   a: [inner]
void CodeInputRow(const float* a, int inner, const InputCodes& act, int row) {
  for (int b = 0; b < act.blocks; ++b) {
    const int n = std::min(kQuantBlock, inner - b * kQuantBlock);
    const float* x = a + b * kQuantBlock;
    float amax = 0.0f;
    bool nan = false;
    for (int j = 0; j < n; ++j) {
      nan |= std::isnan(x[j]);
      amax = std::max(amax, std::fabs(x[j]));
    }
    const float d = nan ? std::numeric_limits<float>::quiet_NaN() : amax / 127.0f;
    const float id = d > 0.0f && std::isfinite(d) ? 1.0f / d : 0.0f;
    const size_t at = static_cast<size_t>(row) * act.blocks + b;
    int8_t* q = act.codes + at * kQuantBlock;
    int32_t sum = 0;
    for (int j = 0; j < kQuantBlock; ++j) {
      const float v = j < n ? std::nearbyint(x[j] * id) : 0.0f;
      q[j] = static_cast<int8_t>(std::clamp(v, -127.0f, 127.0f));
      sum += q[j];
    }
    act.scales[at] = d;
    act.sums[at] = sum;
  }
}

// Four columns' integer dot products with one block of activations: lane j of the result is
// Σ_k q_w[j][k] · q_a[k] (Q4_0: the nibbles 0..15 before their − 8).
//   a: [32] codes   w: [4][QuantBlockBytes] codes
#if defined(__wasm_simd128__)

// Σ of 16 int8 products, as 4 partial sums (i16 products are exact: |q| ≤ 127).
inline v128_t Dot16(v128_t a_lo, v128_t a_hi, v128_t w) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(a_lo, wasm_i16x8_extend_low_i8x16(w)),
                        wasm_i32x4_dot_i16x8(a_hi, wasm_i16x8_extend_high_i8x16(w)));
}

// [Σ v0, Σ v1, Σ v2, Σ v3] (lane sums of four vectors).
inline v128_t SumLanes4(v128_t v0, v128_t v1, v128_t v2, v128_t v3) {
  const v128_t t01 = wasm_i32x4_add(wasm_i32x4_shuffle(v0, v1, 0, 4, 1, 5),
                                    wasm_i32x4_shuffle(v0, v1, 2, 6, 3, 7));
  const v128_t t23 = wasm_i32x4_add(wasm_i32x4_shuffle(v2, v3, 0, 4, 1, 5),
                                    wasm_i32x4_shuffle(v2, v3, 2, 6, 3, 7));
  return wasm_i32x4_add(wasm_i32x4_shuffle(t01, t23, 0, 1, 4, 5),
                        wasm_i32x4_shuffle(t01, t23, 2, 3, 6, 7));
}

template <MatrixStorage kStorage>
inline v128_t BlockDots(const int8_t* a, const uint8_t* w) {
  const v128_t a0 = wasm_v128_load(a), a1 = wasm_v128_load(a + 16);
  v128_t dots[kQuantGroup];
  if constexpr (kStorage == MatrixStorage::kQ8_0) {
    const v128_t a0l = wasm_i16x8_extend_low_i8x16(a0), a0h = wasm_i16x8_extend_high_i8x16(a0);
    const v128_t a1l = wasm_i16x8_extend_low_i8x16(a1), a1h = wasm_i16x8_extend_high_i8x16(a1);
    for (int j = 0; j < kQuantGroup; ++j) {
      dots[j] = wasm_i32x4_add(Dot16(a0l, a0h, wasm_v128_load(w + 32 * j)),
                               Dot16(a1l, a1h, wasm_v128_load(w + 32 * j + 16)));
    }
  } else {
    const v128_t mask = wasm_i8x16_splat(0x0f);
#if defined(__wasm_relaxed_simd__)
    // The nibbles are 7-bit unsigned, as the relaxed dot product's second operand must be.
    for (int j = 0; j < kQuantGroup; ++j) {
      const v128_t raw = wasm_v128_load(w + 16 * j);
      const v128_t lo = wasm_v128_and(raw, mask), hi = wasm_u8x16_shr(raw, 4);
      dots[j] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(
          a1, hi, wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a0, lo, wasm_i32x4_splat(0)));
    }
#else
    const v128_t a0l = wasm_i16x8_extend_low_i8x16(a0), a0h = wasm_i16x8_extend_high_i8x16(a0);
    const v128_t a1l = wasm_i16x8_extend_low_i8x16(a1), a1h = wasm_i16x8_extend_high_i8x16(a1);
    for (int j = 0; j < kQuantGroup; ++j) {
      const v128_t raw = wasm_v128_load(w + 16 * j);
      const v128_t lo = wasm_v128_and(raw, mask), hi = wasm_u8x16_shr(raw, 4);
      // Nibbles below 128 read the same as int8: Dot16's signed widening is right.
      dots[j] = wasm_i32x4_add(Dot16(a0l, a0h, lo), Dot16(a1l, a1h, hi));
    }
#endif
  }
  return SumLanes4(dots[0], dots[1], dots[2], dots[3]);
}

#endif  // __wasm_simd128__

// One column's block dot product, scalar (native builds; the same integer).
template <MatrixStorage kStorage>
int32_t BlockDot(const int8_t* a, const uint8_t* w) {
  // Q4_0's nibble before its − 8 (the caller subtracts 8 · Σ q_a).
  constexpr int kOffset = kStorage == MatrixStorage::kQ4_0 ? 8 : 0;
  int32_t sum = 0;
  for (int k = 0; k < kQuantBlock; ++k) sum += (SignedCode(kStorage, w, k) + kOffset) * a[k];
  return sum;
}

// out[r][4g .. 4g + 3] for groups [g_begin, g_end) and every row: per block, the integer dot
// products (Q4_0: minus 8 · Σ q_a), then acc += (d_w · d_a) · dot in float32.
template <MatrixStorage kStorage>
void MultiplyGroups(const InputCodes& act, int rows, const QuantMatrix& w, const float* bias,
                    int cols, float* out, int out_stride, int g_begin, int g_end) {
  constexpr int q = kStorage == MatrixStorage::kQ8_0 ? 32 : 16;
  const int blocks = act.blocks;
  const size_t group_bytes = static_cast<size_t>(blocks) * kQuantGroup * (q + sizeof(float));
  for (int g = g_begin; g < g_end; ++g) {
    const uint8_t* codes = w.data + g * group_bytes;
    const float* scales =
        reinterpret_cast<const float*>(codes + static_cast<size_t>(blocks) * kQuantGroup * q);
    const int c0 = g * kQuantGroup, width = std::min(kQuantGroup, cols - c0);
    for (int r = 0; r < rows; ++r) {
      const int8_t* a = act.codes + static_cast<size_t>(r) * blocks * kQuantBlock;
      const float* da = act.scales + static_cast<size_t>(r) * blocks;
      const int32_t* sa = act.sums + static_cast<size_t>(r) * blocks;
      alignas(16) float acc[kQuantGroup] = {0.0f, 0.0f, 0.0f, 0.0f};
#if defined(__wasm_simd128__)
      v128_t sum = wasm_f32x4_splat(0.0f);
      for (int b = 0; b < blocks; ++b) {
        v128_t dots = BlockDots<kStorage>(a + b * kQuantBlock, codes + b * kQuantGroup * q);
        if constexpr (kStorage == MatrixStorage::kQ4_0) {
          dots = wasm_i32x4_sub(dots, wasm_i32x4_splat(8 * sa[b]));
        }
        const v128_t scale =
            wasm_f32x4_mul(wasm_v128_load(scales + b * kQuantGroup), wasm_f32x4_splat(da[b]));
        sum = wasm_f32x4_add(sum, wasm_f32x4_mul(scale, wasm_f32x4_convert_i32x4(dots)));
      }
      wasm_v128_store(acc, sum);
#else
      for (int b = 0; b < blocks; ++b) {
        for (int j = 0; j < kQuantGroup; ++j) {
          int32_t dot = BlockDot<kStorage>(a + b * kQuantBlock, codes + (b * kQuantGroup + j) * q);
          if constexpr (kStorage == MatrixStorage::kQ4_0) dot -= 8 * sa[b];
          const float scale = scales[b * kQuantGroup + j] * da[b];
          acc[j] = acc[j] + scale * static_cast<float>(dot);
        }
      }
#endif
      float* dst = out + static_cast<size_t>(r) * out_stride + c0;
      for (int j = 0; j < width; ++j) dst[j] = bias != nullptr ? acc[j] + bias[c0 + j] : acc[j];
    }
  }
}

}  // namespace

uint64_t QuantScratchBytes(int rows, int inner) {
  return static_cast<uint64_t>(rows) * QuantBlocks(inner) *
         (kQuantBlock + sizeof(float) + sizeof(int32_t));
}

Status MultiplyQuantized(const float* a, int a_stride, int rows, int inner, const QuantMatrix& w,
                         const float* bias, int cols, float* out, int out_stride) {
  // 1. The activations' codes (on the calling thread: tasks must not allocate).
  const int blocks = QuantBlocks(inner);
  const size_t per_row = static_cast<size_t>(blocks) * kQuantBlock;
  Buffer<int8_t> codes;
  Buffer<float> scales;
  Buffer<int32_t> sums;
  if (!codes.Resize(rows * per_row) || !scales.Resize(static_cast<size_t>(rows) * blocks) ||
      !sums.Resize(static_cast<size_t>(rows) * blocks)) {
    return Status::kOutOfMemory;
  }
  const InputCodes act{codes.data(), scales.data(), sums.data(), blocks};
  for (int r = 0; r < rows; ++r) {
    CodeInputRow(a + static_cast<size_t>(r) * a_stride, inner, act, r);
  }
  // 2. The column groups spread over the threads: each output is one task's, summed in block
  // order, so any thread count gives the same bits. Reading a weight costs about what 8
  // flops do (see MultiplyPanelsFewRows), which splits a decode step's products too.
  const int groups = QuantGroups(cols);
  const int tasks = std::min(groups, 4 * ThreadCount());
  auto task = [&](int index, int) {
    const int g_begin = static_cast<int>(int64_t{groups} * index / tasks);
    const int g_end = static_cast<int>(int64_t{groups} * (index + 1) / tasks);
    if (w.storage == MatrixStorage::kQ8_0) {
      MultiplyGroups<MatrixStorage::kQ8_0>(act, rows, w, bias, cols, out, out_stride, g_begin,
                                           g_end);
    } else {
      MultiplyGroups<MatrixStorage::kQ4_0>(act, rows, w, bias, cols, out, out_stride, g_begin,
                                           g_end);
    }
  };
  const uint64_t work = std::max<uint64_t>(2ull * rows, 8ull) * inner * cols;
  ParallelForEach(tasks, work, task);
  return Status::kOk;
}

}  // namespace attn
