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

// A group's codes and scales for one block (the layout in quantized.h).
struct BlockGroup {
  uint8_t* codes;  // [GroupCodeBytes]
  float* scales;   // [4]
};

BlockGroup GroupOf(uint8_t* data, MatrixStorage s, int blocks, int g, int b) {
  const size_t stride = QuantBlockStride(s);
  uint8_t* block =
      data +
      (static_cast<size_t>(g / kQuantPanelGroups) * blocks + b) * kQuantPanelGroups * stride +
      (g % kQuantPanelGroups) * stride;
  return {block, reinterpret_cast<float*>(block + GroupCodeBytes(s))};
}

// The byte of a group's block that holds column j's weight k: vector v (16 bytes) holds
// weights 4v .. 4v + 3 of the four columns as pairs, (4v, 4v + 1) of columns 0..3 in its low
// 8 bytes and (4v + 2, 4v + 3) in its high 8. Q4_0 keeps weights 16..31 in the high nibbles
// of weights 0..15's bytes, so weights k and k + 16 share a byte as in GGUF.
inline int CodeByte(MatrixStorage s, int j, int k) {
  const int v = s == MatrixStorage::kQ8_0 ? k / 4 : (k % 16) / 4;
  return 16 * v + 8 * ((k % 4) / 2) + 2 * j + k % 2;
}

// Column j's weight k as its signed code: Q8_0's int8, Q4_0's nibble − 8.
//   codes: [GroupCodeBytes]
inline int SignedCode(MatrixStorage s, const uint8_t* codes, int j, int k) {
  const uint8_t byte = codes[CodeByte(s, j, k)];
  if (s == MatrixStorage::kQ8_0) return static_cast<int8_t>(byte);
  return (k < 16 ? (byte & 0x0f) : (byte >> 4)) - 8;
}

// Stores column j's weight k: Q8_0's int8 code, or Q4_0's nibble 0..15.
inline void SetCode(MatrixStorage s, uint8_t* codes, int j, int k, int code) {
  uint8_t& byte = codes[CodeByte(s, j, k)];
  if (s == MatrixStorage::kQ8_0) {
    byte = static_cast<uint8_t>(static_cast<int8_t>(code));
  } else {
    byte = k < 16 ? static_cast<uint8_t>((byte & 0xf0) | code)
                  : static_cast<uint8_t>((byte & 0x0f) | (code << 4));
  }
}

// One block of 32 weights of column j (zero past the matrix) to codes and a scale, as ggml's
// reference quantizers do.   x: [32]
void QuantizeBlock(const float* x, MatrixStorage s, BlockGroup place, int j) {
  if (s == MatrixStorage::kQ8_0) {
    float amax = 0.0f;
    for (int k = 0; k < kQuantBlock; ++k) amax = std::max(amax, std::fabs(x[k]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int k = 0; k < kQuantBlock; ++k) {
      SetCode(s, place.codes, j, k, static_cast<int8_t>(std::round(x[k] * id)));
    }
    place.scales[j] = HalfToFloat(FloatToHalf(d));
    return;
  }
  float amax = 0.0f, max = 0.0f;  // the weight of largest magnitude, with its sign
  for (int k = 0; k < kQuantBlock; ++k) {
    if (amax < std::fabs(x[k])) amax = std::fabs(x[k]), max = x[k];
  }
  const float d = max / -8.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  for (int k = 0; k < kQuantBlock; ++k) {
    SetCode(s, place.codes, j, k,
            std::min(15, static_cast<int>(static_cast<int8_t>(x[k] * id + 8.5f))));
  }
  place.scales[j] = HalfToFloat(FloatToHalf(d));
}

}  // namespace

namespace {

inline float Widen(float v) { return v; }
inline float Widen(Bf16 v) { return Bf16ToFloat(v); }

template <typename T>
void QuantizeMatrixOf(const T* w, int w_stride, bool transposed, int inner, int cols,
                      MatrixStorage storage, uint8_t* out) {
  std::memset(out, 0, QuantBytes(storage, inner, cols));
  const int blocks = QuantBlocks(inner);
  float x[kQuantBlock];
  for (int c = 0; c < cols; ++c) {
    for (int b = 0; b < blocks; ++b) {
      for (int k = 0; k < kQuantBlock; ++k) {
        const int p = b * kQuantBlock + k;
        x[k] = p >= inner   ? 0.0f
               : transposed ? Widen(w[static_cast<size_t>(c) * w_stride + p])
                            : Widen(w[static_cast<size_t>(p) * w_stride + c]);
      }
      QuantizeBlock(x, storage, GroupOf(out, storage, blocks, c / kQuantGroup, b), c % kQuantGroup);
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
  const int blocks = inner / kQuantBlock;
  const int bytes = GgmlBlockBytes(storage);
  for (int c = 0; c < cols; ++c) {
    for (int b = 0; b < blocks; ++b) {
      // GGUF's block: the float16 scale, then the codes (Q4_0: byte k holds weight k in its
      // low nibble and weight k + 16 in its high one).
      const uint8_t* block = src + (static_cast<size_t>(c) * blocks + b) * bytes;
      const BlockGroup place = GroupOf(out, storage, blocks, c / kQuantGroup, b);
      const int j = c % kQuantGroup;
      place.scales[j] = HalfToFloat(static_cast<uint16_t>(block[0] | (block[1] << 8)));
      for (int k = 0; k < kQuantBlock; ++k) {
        const int code = storage == MatrixStorage::kQ8_0
                             ? static_cast<int8_t>(block[2 + k])
                             : (k < 16 ? block[2 + k] & 0x0f : block[2 + k - 16] >> 4);
        SetCode(storage, place.codes, j, k, code);
      }
    }
  }
}

float QuantWeight(const QuantMatrix& w, int inner, int p, int c) {
  const BlockGroup place = GroupOf(const_cast<uint8_t*>(w.data), w.storage, QuantBlocks(inner),
                                   c / kQuantGroup, p / kQuantBlock);
  const int j = c % kQuantGroup;
  return place.scales[j] *
         static_cast<float>(SignedCode(w.storage, place.codes, j, p % kQuantBlock));
}

void DequantizeColumn(const QuantMatrix& w, int inner, int c, float* out) {
  const int blocks = QuantBlocks(inner), j = c % kQuantGroup;
  for (int b = 0; b < blocks; ++b) {
    const BlockGroup place =
        GroupOf(const_cast<uint8_t*>(w.data), w.storage, blocks, c / kQuantGroup, b);
    const int n = std::min(kQuantBlock, inner - b * kQuantBlock);
    for (int k = 0; k < n; ++k) {
      out[b * kQuantBlock + k] =
          place.scales[j] * static_cast<float>(SignedCode(w.storage, place.codes, j, k));
    }
  }
}

namespace {

// The activations as int8 codes, per row and block of 32: codes [rows, blocks, 32] (held as
// int16, as the i16 dot products take them), their scales d_a [rows, blocks] and the sums of
// their codes [rows, blocks] (Q4_0's − 8·Σ q_a).
struct InputCodes {
  int16_t* codes = nullptr;
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
    for (int k = 0; k < n; ++k) {
      nan |= std::isnan(x[k]);
      amax = std::max(amax, std::fabs(x[k]));
    }
    const float d = nan ? std::numeric_limits<float>::quiet_NaN() : amax / 127.0f;
    const float id = d > 0.0f && std::isfinite(d) ? 1.0f / d : 0.0f;
    const size_t at = static_cast<size_t>(row) * act.blocks + b;
    int16_t* q = act.codes + at * kQuantBlock;
    int32_t sum = 0;
    for (int k = 0; k < kQuantBlock; ++k) {
      const float v = k < n ? std::nearbyint(x[k] * id) : 0.0f;
      q[k] = static_cast<int16_t>(std::clamp(v, -127.0f, 127.0f));
      sum += q[k];
    }
    act.scales[at] = d;
    act.sums[at] = sum;
  }
}

// The rows' codes at one block: row r's 32 codes start at codes + r * stride.
struct RowCodes {
  const int16_t* codes;
  size_t stride;  // elements from one row's block to the next row's
};

#if defined(__wasm_simd128__)

// 0x0f in every byte, read once through a volatile: V8 rebuilds a constant at every use.
inline v128_t NibbleMask() {
  static volatile uint32_t mask = 0x0f0f0f0fu;
  return wasm_i32x4_splat(static_cast<int32_t>(mask));
}

// kRows rows' integer dot products with one block of a panel's two groups: lane j of
// dots[r][g] is Σ_k q_w[4g + j][k] · q_a[r][k] (Q4_0: the nibbles 0..15 before their − 8).
// Each vector of weights is loaded and widened once for all kRows rows, each pair of
// activations splatted once for both groups. i32x4.dot_i16x8_s on weights widened to
// int16, lanes (j, k) (j, k + 1) for the four columns j, against the pair of activations
// (k, k + 1) in every lane: each column's sum lands in its own lane.
//   w: the panel's block (group g's codes at w + g · QuantBlockStride; quantized.h)
template <MatrixStorage kStorage, int kRows>
inline void BlockDots(RowCodes a, const uint8_t* w, v128_t mask,
                      v128_t (&dots)[kRows][kQuantPanelGroups]) {
  constexpr int kGroups = kQuantPanelGroups, group_bytes = QuantBlockStride(kStorage);
  for (int r = 0; r < kRows; ++r) {
    for (int g = 0; g < kGroups; ++g) dots[r][g] = wasm_i32x4_splat(0);
  }
  // A vector (4 weights a column, as two int16 pairs) at a time, not unrolled: unrolled, V8
  // schedules every load first and the sums spill out of the 15 registers it gives SIMD.
  //   widen(w, v, pairs01, pairs23): vector v's pairs of weights (4v, 4v + 1), (4v + 2, 4v + 3)
  auto vectors = [&](int first, int last, auto widen) {
#pragma clang loop unroll(disable)
    for (int v = first; v < last; ++v) {
      v128_t pairs01[kGroups], pairs23[kGroups];
      for (int g = 0; g < kGroups; ++g) widen(w + g * group_bytes, v, pairs01[g], pairs23[g]);
      for (int r = 0; r < kRows; ++r) {
        const int16_t* q = a.codes + r * a.stride + 4 * v;
        const v128_t q01 = wasm_v128_load32_splat(q), q23 = wasm_v128_load32_splat(q + 2);
        for (int g = 0; g < kGroups; ++g) {
          dots[r][g] = wasm_i32x4_add(dots[r][g], wasm_i32x4_dot_i16x8(pairs01[g], q01));
          dots[r][g] = wasm_i32x4_add(dots[r][g], wasm_i32x4_dot_i16x8(pairs23[g], q23));
        }
      }
    }
  };
  if constexpr (kStorage == MatrixStorage::kQ8_0) {
    vectors(0, 8, [](const uint8_t* group, int v, v128_t& pairs01, v128_t& pairs23) {
      // v128.load8x8_s: a load and a sign extension in one x64 instruction (vpmovsxbw).
      pairs01 = wasm_i16x8_load8x8(group + 16 * v);
      pairs23 = wasm_i16x8_load8x8(group + 16 * v + 8);
    });
  } else {
    // Weights 0..15 in the low nibbles of vectors 0..3, weights 16..31 in the high ones.
    vectors(0, 4, [mask](const uint8_t* group, int v, v128_t& pairs01, v128_t& pairs23) {
      const v128_t nibbles = wasm_v128_and(wasm_v128_load(group + 16 * v), mask);
      pairs01 = wasm_u16x8_extend_low_u8x16(nibbles);
      pairs23 = wasm_u16x8_extend_high_u8x16(nibbles);
    });
    vectors(4, 8, [mask](const uint8_t* group, int v, v128_t& pairs01, v128_t& pairs23) {
      const v128_t raw = wasm_v128_load(group + 16 * (v - 4));
      const v128_t nibbles = wasm_v128_and(wasm_u16x8_shr(raw, 4), mask);
      pairs01 = wasm_u16x8_extend_low_u8x16(nibbles);
      pairs23 = wasm_u16x8_extend_high_u8x16(nibbles);
    });
  }
}

// out rows [r0, r0 + kRows), a panel's 8 columns: per block, the integer dot products
// (Q4_0: minus 8 · Σ q_a), then acc += (d_w · d_a) · dot in float32.
//   panel: the panel's blocks (the layout in quantized.h)   acc: [kRows][8]
template <MatrixStorage kStorage, int kRows>
void PanelRows(const InputCodes& act, int r0, const uint8_t* panel, float* acc) {
  constexpr int kGroups = kQuantPanelGroups, kWidth = kGroups * kQuantGroup;
  constexpr int q = GroupCodeBytes(kStorage), group_bytes = QuantBlockStride(kStorage);
  constexpr int block_stride = kGroups * group_bytes;
  const int blocks = act.blocks;
  const size_t stride = static_cast<size_t>(blocks) * kQuantBlock;
  for (int i = 0; i < kRows * kWidth; ++i) acc[i] = 0.0f;
  const v128_t mask = NibbleMask();
  for (int b = 0; b < blocks; ++b) {
    const size_t at = static_cast<size_t>(r0) * stride + b * kQuantBlock;
    v128_t dots[kRows][kGroups];
    const uint8_t* block = panel + b * block_stride;
    BlockDots<kStorage, kRows>({act.codes + at, stride}, block, mask, dots);
    for (int r = 0; r < kRows; ++r) {
      const size_t row_block = static_cast<size_t>(r0 + r) * blocks + b;
      const v128_t d_a = wasm_f32x4_splat(act.scales[row_block]);
      const v128_t offset = wasm_i32x4_splat(8 * act.sums[row_block]);  // Q4_0's (unused: Q8_0)
      for (int g = 0; g < kGroups; ++g) {
        v128_t dot = dots[r][g];
        if constexpr (kStorage == MatrixStorage::kQ4_0) dot = wasm_i32x4_sub(dot, offset);
        const v128_t scale = wasm_f32x4_mul(wasm_v128_load(block + g * group_bytes + q), d_a);
        float* sum = acc + r * kWidth + g * kQuantGroup;
        wasm_v128_store(sum, wasm_f32x4_add(wasm_v128_load(sum),
                                            wasm_f32x4_mul(scale, wasm_f32x4_convert_i32x4(dot))));
      }
    }
  }
}

#else  // scalar (native builds): the same integer sums, the same float32 operations

template <MatrixStorage kStorage, int kRows>
void PanelRows(const InputCodes& act, int r0, const uint8_t* panel, float* acc) {
  constexpr int kWidth = kQuantPanelGroups * kQuantGroup;
  constexpr int q = GroupCodeBytes(kStorage), group_bytes = QuantBlockStride(kStorage);
  constexpr int block_stride = kQuantPanelGroups * group_bytes;
  // Q4_0's nibble before its − 8 (subtracted as 8 · Σ q_a below).
  constexpr int kOffset = kStorage == MatrixStorage::kQ4_0 ? 8 : 0;
  const int blocks = act.blocks;
  for (int i = 0; i < kRows * kWidth; ++i) acc[i] = 0.0f;
  for (int b = 0; b < blocks; ++b) {
    for (int r = 0; r < kRows; ++r) {
      const size_t row_block = static_cast<size_t>(r0 + r) * blocks + b;
      const int16_t* a = act.codes + row_block * kQuantBlock;
      for (int c = 0; c < kWidth; ++c) {
        const uint8_t* block = panel + b * block_stride + (c / kQuantGroup) * group_bytes;
        const float* scales = reinterpret_cast<const float*>(block + q);
        const int j = c % kQuantGroup;
        int32_t dot = 0;
        for (int k = 0; k < kQuantBlock; ++k) {
          dot += (SignedCode(kStorage, block, j, k) + kOffset) * a[k];
        }
        if constexpr (kStorage == MatrixStorage::kQ4_0) dot -= 8 * act.sums[row_block];
        const float scale = scales[j] * act.scales[row_block];
        acc[r * kWidth + c] = acc[r * kWidth + c] + scale * static_cast<float>(dot);
      }
    }
  }
}

#endif  // __wasm_simd128__

// A tile: rows sharing each vector of weights as it streams through, a panel's two groups
// sharing each splatted pair of activations (the last rows go one by one).
constexpr int kTileRows = 4;

// out[r][8p .. 8p + 7] for panels [p_begin, p_end) and every row.
template <MatrixStorage kStorage>
void MultiplyPanels(const InputCodes& act, int rows, const QuantMatrix& w, const float* bias,
                    int cols, float* out, int out_stride, int p_begin, int p_end) {
  constexpr int kWidth = kQuantPanelGroups * kQuantGroup;
  const size_t panel_bytes =
      static_cast<size_t>(act.blocks) * kQuantPanelGroups * QuantBlockStride(kStorage);
  alignas(16) float acc[kTileRows * kWidth];
  for (int p = p_begin; p < p_end; ++p) {
    const uint8_t* panel = w.data + p * panel_bytes;
    const int c0 = p * kWidth, width = std::min(kWidth, cols - c0);
    for (int r0 = 0; r0 < rows;) {
      const int n_rows = rows - r0 >= kTileRows ? kTileRows : 1;
      if (n_rows == kTileRows) {
        PanelRows<kStorage, kTileRows>(act, r0, panel, acc);
      } else {
        PanelRows<kStorage, 1>(act, r0, panel, acc);
      }
      for (int r = 0; r < n_rows; ++r) {
        float* dst = out + static_cast<size_t>(r0 + r) * out_stride + c0;
        for (int j = 0; j < width; ++j) {
          const float v = acc[r * kWidth + j];
          dst[j] = bias != nullptr ? v + bias[c0 + j] : v;
        }
      }
      r0 += n_rows;
    }
  }
}

}  // namespace

uint64_t QuantScratchBytes(int rows, int inner) {
  return static_cast<uint64_t>(rows) * QuantBlocks(inner) *
         (kQuantBlock * sizeof(int16_t) + sizeof(float) + sizeof(int32_t));
}

Status MultiplyQuantized(const float* a, int a_stride, int rows, int inner, const QuantMatrix& w,
                         const float* bias, int cols, float* out, int out_stride) {
  // 1. The activations' codes (on the calling thread: tasks must not allocate).
  const int blocks = QuantBlocks(inner);
  const size_t per_row = static_cast<size_t>(blocks) * kQuantBlock;
  Buffer<int16_t> codes;
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
  // 2. The panels spread over the threads: each output is one task's, summed in block order,
  // so any thread count gives the same bits. Reading a weight costs about what 8 flops do
  // (see MultiplyPanelsFewRows), which splits a decode step's products too.
  const int panels = QuantPanels(cols);
  const int tasks = std::min(panels, 4 * ThreadCount());
  auto task = [&](int index, int) {
    const int p_begin = static_cast<int>(int64_t{panels} * index / tasks);
    const int p_end = static_cast<int>(int64_t{panels} * (index + 1) / tasks);
    if (w.storage == MatrixStorage::kQ8_0) {
      MultiplyPanels<MatrixStorage::kQ8_0>(act, rows, w, bias, cols, out, out_stride, p_begin,
                                           p_end);
    } else {
      MultiplyPanels<MatrixStorage::kQ4_0>(act, rows, w, bias, cols, out, out_stride, p_begin,
                                           p_end);
    }
  };
  const uint64_t work = std::max<uint64_t>(2ull * rows, 8ull) * inner * cols;
  ParallelForEach(tasks, work, task);
  return Status::kOk;
}

}  // namespace attn
