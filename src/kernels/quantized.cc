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
#include "kernels/quantized_codes.h"
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
  float* scales;   // [QuantScaleFloats]: the four columns' first numbers, then their second
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
// 8 bytes and (4v + 2, 4v + 3) in its high 8. Nibble codes keep weights 16..31 in the high
// nibbles of weights 0..15's bytes, so weights k and k + 16 share a byte as in GGUF's Q4_0.
inline int CodeByte(MatrixStorage s, int j, int k) {
  const int v = HasNibbleCodes(s) ? (k % 16) / 4 : k / 4;
  return 16 * v + 8 * ((k % 4) / 2) + 2 * j + k % 2;
}

// Column j's weight k as stored: an int8 (Q8_0, Q6_K's q − 32) or a nibble 0..15.
//   codes: [GroupCodeBytes]
inline int StoredCode(MatrixStorage s, const uint8_t* codes, int j, int k) {
  const uint8_t byte = codes[CodeByte(s, j, k)];
  if (!HasNibbleCodes(s)) return static_cast<int8_t>(byte);
  return k < 16 ? (byte & 0x0f) : (byte >> 4);
}

// Stores column j's weight k: an int8 code, or a nibble 0..15.
inline void SetCode(MatrixStorage s, uint8_t* codes, int j, int k, int code) {
  uint8_t& byte = codes[CodeByte(s, j, k)];
  if (!HasNibbleCodes(s)) {
    byte = static_cast<uint8_t>(static_cast<int8_t>(code));
  } else {
    byte = k < 16 ? static_cast<uint8_t>((byte & 0xf0) | code)
                  : static_cast<uint8_t>((byte & 0x0f) | (code << 4));
  }
}

// Column j's weight k of a block, dequantized (quantized.h's formulas, in float32: every
// product is exact, Q4_K's − m rounds once as ggml's does).
inline float BlockWeight(MatrixStorage s, BlockGroup place, int j, int k) {
  const int code = StoredCode(s, place.codes, j, k);
  switch (s) {
    case MatrixStorage::kQ4_0:
      return place.scales[j] * static_cast<float>(code - 8);
    case MatrixStorage::kQ4_K:
      return place.scales[j] * static_cast<float>(code) - place.scales[kQuantGroup + j];
    case MatrixStorage::kQ6_K:
      return place.scales[(k < 16 ? 0 : kQuantGroup) + j] * static_cast<float>(code);
    default:
      return place.scales[j] * static_cast<float>(code);
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
  if (IsKQuant(storage)) return;  // read from files only (callers check; zeros otherwise)
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

namespace {

inline float HalfAt(const uint8_t* bytes) {
  return HalfToFloat(static_cast<uint16_t>(bytes[0] | (bytes[1] << 8)));
}

// GGUF's Q8_0 / Q4_0 block (the float16 scale, then the codes; Q4_0: byte k holds weight k in
// its low nibble and weight k + 16 in its high one) into column j of one of our blocks.
//   block: [GgmlBlockBytes]
void UnpackBlock32(const uint8_t* block, MatrixStorage s, BlockGroup place, int j) {
  place.scales[j] = HalfAt(block);
  for (int k = 0; k < kQuantBlock; ++k) {
    const int code = s == MatrixStorage::kQ8_0
                         ? static_cast<int8_t>(block[2 + k])
                         : (k < 16 ? block[2 + k] & 0x0f : block[2 + k - 16] >> 4);
    SetCode(s, place.codes, j, k, code);
  }
}

// Q4_K's 6-bit scale and min of sub-block i (ggml's get_scale_min_k4): 12 bytes hold eight of
// each; i < 4 in the low 6 bits of bytes i and i + 4, the others a nibble of byte i + 4 with
// the top 2 bits of bytes i − 4 and i.   scales: [12]
void ScaleMinK4(int i, const uint8_t* scales, int* scale, int* min) {
  if (i < 4) {
    *scale = scales[i] & 63, *min = scales[i + 4] & 63;
  } else {
    *scale = (scales[i + 4] & 0x0f) | ((scales[i - 4] >> 6) << 4);
    *min = (scales[i + 4] >> 4) | ((scales[i] >> 6) << 4);
  }
}

// GGUF's Q4_K super-block (d, dmin, scales[12], qs[128]) into column j of our 8 blocks at
// `places`: sub-block i is our block i; each 64 weights read 32 bytes of qs, sub-block 2n
// from their low nibbles and 2n + 1 from their high ones.   block: [144]
void UnpackQ4K(const uint8_t* block, const BlockGroup* places, int j) {
  const float d = HalfAt(block), dmin = HalfAt(block + 2);
  for (int i = 0; i < kKQuantBlock / kQuantBlock; ++i) {
    int scale, min;
    ScaleMinK4(i, block + 4, &scale, &min);
    places[i].scales[j] = d * static_cast<float>(scale);
    places[i].scales[kQuantGroup + j] = dmin * static_cast<float>(min);
    const uint8_t* qs = block + 16 + 32 * (i / 2);
    for (int k = 0; k < kQuantBlock; ++k) {
      SetCode(MatrixStorage::kQ4_K, places[i].codes, j, k, i % 2 == 0 ? qs[k] & 0x0f : qs[k] >> 4);
    }
  }
}

// GGUF's Q6_K super-block (ql[128], qh[64], scales[16] int8, d) into column j of our 8 blocks:
// weight e's 6 bits are its low nibble from ql and its 2 high bits from qh (each half of 128
// reads 64 bytes of ql and 32 of qh: weight 32t + l, t < 4, from ql[l + 32 (t % 2)]'s
// nibble t / 2 and qh[l]'s bits 2t, 2t + 1); its scale is scales[e / 16].   block: [210]
void UnpackQ6K(const uint8_t* block, const BlockGroup* places, int j) {
  const float d = HalfAt(block + 208);
  for (int e = 0; e < kKQuantBlock; ++e) {
    const int half = e / 128, t = (e % 128) / 32, l = e % 32;
    const uint8_t* ql = block + 64 * half;
    const uint8_t* qh = block + 128 + 32 * half;
    const int low = (ql[l + 32 * (t % 2)] >> (4 * (t / 2))) & 0x0f;
    const int high = (qh[l] >> (2 * t)) & 3;
    const BlockGroup place = places[e / kQuantBlock];
    const int k = e % kQuantBlock;
    SetCode(MatrixStorage::kQ6_K, place.codes, j, k, (low | (high << 4)) - 32);
    if (k % 16 == 0) {
      const int8_t scale = static_cast<int8_t>(block[192 + e / 16]);
      place.scales[(k == 0 ? 0 : kQuantGroup) + j] = d * static_cast<float>(scale);
    }
  }
}

}  // namespace

void PackGgmlBlocks(const uint8_t* src, int inner, int cols, MatrixStorage storage, uint8_t* out) {
  std::memset(out, 0, QuantBytes(storage, inner, cols));
  const int blocks = inner / kQuantBlock;
  const int per_ggml = GgmlBlockWeights(storage) / kQuantBlock;  // our blocks a GGUF block
  const int ggml_blocks = blocks / per_ggml, bytes = GgmlBlockBytes(storage);
  BlockGroup places[kKQuantBlock / kQuantBlock];
  for (int c = 0; c < cols; ++c) {
    const int g = c / kQuantGroup, j = c % kQuantGroup;
    for (int gb = 0; gb < ggml_blocks; ++gb) {
      const uint8_t* block = src + (static_cast<size_t>(c) * ggml_blocks + gb) * bytes;
      for (int i = 0; i < per_ggml; ++i)
        places[i] = GroupOf(out, storage, blocks, g, gb * per_ggml + i);
      switch (storage) {
        case MatrixStorage::kQ4_K:
          UnpackQ4K(block, places, j);
          break;
        case MatrixStorage::kQ6_K:
          UnpackQ6K(block, places, j);
          break;
        default:
          UnpackBlock32(block, storage, places[0], j);
          break;
      }
    }
  }
}

float QuantWeight(const QuantMatrix& w, int inner, int p, int c) {
  const BlockGroup place = GroupOf(const_cast<uint8_t*>(w.data), w.storage, QuantBlocks(inner),
                                   c / kQuantGroup, p / kQuantBlock);
  return BlockWeight(w.storage, place, c % kQuantGroup, p % kQuantBlock);
}

void DequantizeColumn(const QuantMatrix& w, int inner, int c, float* out) {
  const int blocks = QuantBlocks(inner), j = c % kQuantGroup;
  for (int b = 0; b < blocks; ++b) {
    const BlockGroup place =
        GroupOf(const_cast<uint8_t*>(w.data), w.storage, blocks, c / kQuantGroup, b);
    const int n = std::min(kQuantBlock, inner - b * kQuantBlock);
    for (int k = 0; k < n; ++k) out[b * kQuantBlock + k] = BlockWeight(w.storage, place, j, k);
  }
}

namespace {

// A block's scale from its largest magnitude: d_a = max|a| / 127, NaN if a value is NaN
// (an infinity makes it infinite), so that every output the block touches is non-finite too.
// Returns d_a and sets *inverse to 1 / d_a (0 where d_a is 0 or not finite).
float BlockScale(float amax, bool nan, float* inverse) {
  const float d = nan ? std::numeric_limits<float>::quiet_NaN() : amax / 127.0f;
  *inverse = d > 0.0f && std::isfinite(d) ? 1.0f / d : 0.0f;
  return d;
}

// A block of n ≤ 32 values to codes, one at a time: q = round(x / d_a) to nearest even,
// zero past n. Returns Σ q.
//   x: [n]   q: [32]
int32_t CodeBlockScalar(const float* x, int n, float* d_out, int16_t* q) {
  float amax = 0.0f;
  bool nan = false;
  for (int k = 0; k < n; ++k) {
    nan |= std::isnan(x[k]);
    amax = std::max(amax, std::fabs(x[k]));
  }
  float id;
  *d_out = BlockScale(amax, nan, &id);
  int32_t sum = 0;
  for (int k = 0; k < kQuantBlock; ++k) {
    const float v = k < n ? std::nearbyint(x[k] * id) : 0.0f;
    q[k] = static_cast<int16_t>(std::clamp(v, -127.0f, 127.0f));
    sum += q[k];
  }
  return sum;
}

#if defined(__wasm_simd128__)
// The same block of 32, four lanes at a time, with the same bits: pmax keeps the running
// maximum where a lane is NaN (as std::max(amax, NaN) does), NaN is flagged apart,
// f32x4.nearest rounds to nearest even as nearbyint does, and |x · (1 / d_a)| stays within
// 127 ± 2^-16 (two roundings off 127), so no clamp is needed but for NaN rows, whose codes
// trunc_sat makes 0 and whose scale is NaN anyway.
//   x: [32]   q: [32]
int32_t CodeBlock(const float* x, float* d_out, int16_t* q) {
  v128_t lanes[8];
  v128_t amax = wasm_f32x4_splat(0.0f), nan = wasm_i32x4_splat(0);
  for (int v = 0; v < 8; ++v) {
    lanes[v] = wasm_v128_load(x + 4 * v);
    nan = wasm_v128_or(nan, wasm_f32x4_ne(lanes[v], lanes[v]));
    amax = wasm_f32x4_pmax(amax, wasm_f32x4_abs(lanes[v]));
  }
  amax = wasm_f32x4_pmax(amax, wasm_i32x4_shuffle(amax, amax, 2, 3, 0, 1));
  amax = wasm_f32x4_pmax(amax, wasm_i32x4_shuffle(amax, amax, 1, 0, 3, 2));
  float id;
  *d_out = BlockScale(wasm_f32x4_extract_lane(amax, 0), wasm_v128_any_true(nan), &id);
  const v128_t inverse = wasm_f32x4_splat(id);
  v128_t sum = wasm_i32x4_splat(0);
  for (int v = 0; v < 8; v += 2) {
    const v128_t lo =
        wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(wasm_f32x4_mul(lanes[v], inverse)));
    const v128_t hi =
        wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(wasm_f32x4_mul(lanes[v + 1], inverse)));
    sum = wasm_i32x4_add(sum, wasm_i32x4_add(lo, hi));
    wasm_v128_store(q + 4 * v, wasm_i16x8_narrow_i32x4(lo, hi));
  }
  sum = wasm_i32x4_add(sum, wasm_i32x4_shuffle(sum, sum, 2, 3, 0, 1));
  sum = wasm_i32x4_add(sum, wasm_i32x4_shuffle(sum, sum, 1, 0, 3, 2));
  return wasm_i32x4_extract_lane(sum, 0);
}
#endif

// One row to codes, block by block (CodeBlockScalar's rule).
//   a: [inner]
void CodeInputRow(const float* a, int inner, const InputCodes& act, int row) {
  for (int b = 0; b < act.blocks; ++b) {
    const int n = std::min(kQuantBlock, inner - b * kQuantBlock);
    const float* x = a + b * kQuantBlock;
    const size_t at = static_cast<size_t>(row) * act.blocks + b;
    int16_t* q = act.codes + at * kQuantBlock;
#if defined(__wasm_simd128__)
    act.sums[at] = n == kQuantBlock ? CodeBlock(x, &act.scales[at], q)
                                    : CodeBlockScalar(x, n, &act.scales[at], q);
#else
    act.sums[at] = CodeBlockScalar(x, n, &act.scales[at], q);
#endif
    if (act.pairs != nullptr) {  // the relaxed nibble product's order (quantized_codes.h)
      int8_t* pairs = act.pairs + at * kPairBytes;
      for (int v = 0; v < 8; ++v) {
        for (int i = 0; i < 16; ++i) {
          pairs[16 * v + i] = static_cast<int8_t>(q[4 * v + 2 * (i / 8) + i % 2]);
        }
      }
    }
  }
}

// The rows' codes at one block: row r's 32 codes start at codes + r * stride.
struct RowCodes {
  const int16_t* codes;
  size_t stride;  // elements from one row's block to the next row's
};

// A block's terms: one, or Q6_K's two halves of 16 weights with a scale each. Term t covers
// weights [32t / terms, 32(t + 1) / terms) (the int8 layout's vectors [8t / terms,
// 8(t + 1) / terms)) and reads scales [4t, 4t + 4).
template <MatrixStorage kStorage>
constexpr int kBlockTerms = kStorage == MatrixStorage::kQ6_K ? 2 : 1;

#if defined(__wasm_simd128__)

// kRows rows' integer dot products with one block of a panel's two groups over the vectors
// [first, last) (nibble codes: all eight): lane j of dots[r][g] is Σ_k q_w[4g + j][k] · q_a[r][k]
// (nibbles as 0..15, before Q4_0's − 8).
// Each vector of weights is loaded and widened once for all kRows rows, each pair of
// activations splatted once for both groups. i32x4.dot_i16x8_s on weights widened to
// int16, lanes (j, k) (j, k + 1) for the four columns j, against the pair of activations
// (k, k + 1) in every lane: each column's sum lands in its own lane.
//   w: the panel's block (group g's codes at w + g · QuantBlockStride; quantized.h)
template <MatrixStorage kStorage, int kRows>
inline void BlockDots(RowCodes a, const uint8_t* w, v128_t mask, int first, int last,
                      v128_t (&dots)[kRows][kQuantPanelGroups]) {
  constexpr int kGroups = kQuantPanelGroups, group_bytes = QuantBlockStride(kStorage);
  for (int r = 0; r < kRows; ++r) {
    for (int g = 0; g < kGroups; ++g) dots[r][g] = wasm_i32x4_splat(0);
  }
  // A vector (4 weights a column, as two int16 pairs) at a time, not unrolled: unrolled, V8
  // schedules every load first and the sums spill out of the 15 registers it gives SIMD.
  //   widen(w, v, pairs01, pairs23): vector v's pairs of weights (4v, 4v + 1), (4v + 2, 4v + 3)
  auto vectors = [&](int from, int to, auto widen) {
#pragma clang loop unroll(disable)
    for (int v = from; v < to; ++v) {
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
  if constexpr (!HasNibbleCodes(kStorage)) {
    vectors(first, last, [](const uint8_t* group, int v, v128_t& pairs01, v128_t& pairs23) {
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

// out rows [r0, r0 + kRows), a panel's 8 columns: per block and term, the integer dot
// products, then the float32 step (AddBlockTerm in quantized_codes.h).
//   panel: the panel's blocks (the layout in quantized.h)   acc: [kRows][8]
template <MatrixStorage kStorage, int kRows>
void PanelRows(const InputCodes& act, int r0, const uint8_t* panel, float* acc) {
  constexpr int kGroups = kQuantPanelGroups, kWidth = kGroups * kQuantGroup;
  constexpr int q = GroupCodeBytes(kStorage), group_bytes = QuantBlockStride(kStorage);
  constexpr int block_stride = kGroups * group_bytes, kTerms = kBlockTerms<kStorage>;
  const int blocks = act.blocks;
  const size_t stride = static_cast<size_t>(blocks) * kQuantBlock;
  // Zeroed by vector stores: the plain loop became a call to memset for 32 floats, 1.6 % of
  // a 128-token prefill at q8.
  for (int i = 0; i < kRows * kWidth; i += 4) wasm_v128_store(acc + i, wasm_f32x4_splat(0.0f));
  const v128_t mask = NibbleMask();
  for (int b = 0; b < blocks; ++b) {
    const size_t at = static_cast<size_t>(r0) * stride + b * kQuantBlock;
    const uint8_t* block = panel + b * block_stride;
    for (int t = 0; t < kTerms; ++t) {
      v128_t dots[kRows][kGroups];
      BlockDots<kStorage, kRows>({act.codes + at, stride}, block, mask, 8 * t / kTerms,
                                 8 * (t + 1) / kTerms, dots);
      for (int r = 0; r < kRows; ++r) {
        const size_t row_block = static_cast<size_t>(r0 + r) * blocks + b;
        for (int g = 0; g < kGroups; ++g) {
          AddBlockTerm<kStorage>(
              dots[r][g], reinterpret_cast<const float*>(block + g * group_bytes + q), t,
              act.scales[row_block], act.sums[row_block], acc + r * kWidth + g * kQuantGroup);
        }
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
  constexpr int kTerms = kBlockTerms<kStorage>, kSpan = kQuantBlock / kTerms;
  const int blocks = act.blocks;
  for (int i = 0; i < kRows * kWidth; ++i) acc[i] = 0.0f;
  for (int b = 0; b < blocks; ++b) {
    for (int t = 0; t < kTerms; ++t) {
      for (int r = 0; r < kRows; ++r) {
        const size_t row_block = static_cast<size_t>(r0 + r) * blocks + b;
        const int16_t* a = act.codes + row_block * kQuantBlock;
        const float d_a = act.scales[row_block];
        const int32_t sum_a = act.sums[row_block];
        for (int c = 0; c < kWidth; ++c) {
          const uint8_t* block = panel + b * block_stride + (c / kQuantGroup) * group_bytes;
          const float* scales = reinterpret_cast<const float*>(block + q);
          const int j = c % kQuantGroup;
          int32_t dot = 0;
          for (int k = kSpan * t; k < kSpan * (t + 1); ++k) {
            dot += StoredCode(kStorage, block, j, k) * a[k];
          }
          if constexpr (kStorage == MatrixStorage::kQ4_0) dot -= 8 * sum_a;
          const float scale = scales[kQuantGroup * t + j] * d_a;
          float v = acc[r * kWidth + c] + scale * static_cast<float>(dot);
          if constexpr (kStorage == MatrixStorage::kQ4_K) {
            v = v - scales[kQuantGroup + j] * (d_a * static_cast<float>(sum_a));
          }
          acc[r * kWidth + c] = v;
        }
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
      if (HasNibbleCodes(kStorage) && act.pairs != nullptr) {
        RelaxedNibbleRows(kStorage, n_rows, act, r0, panel, acc);
      } else if (n_rows == kTileRows) {
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
  const uint64_t pairs = HasRelaxedNibbleRows() ? kPairBytes : 0;
  return static_cast<uint64_t>(rows) * QuantBlocks(inner) *
         (kQuantBlock * sizeof(int16_t) + sizeof(float) + sizeof(int32_t) + pairs);
}

// The work ParallelFor is told of a product of few rows whose weights are many: at least
// kParallelMinWork from 2^16 weights on. By the rule below, a decode step's query, key, value
// and output projections of a 576-wide model (0.9-2.7 M) ran on one thread while the other
// spun: the worker's spin loop held 14% of its samples in perf (Node, 2 threads, 30 layers,
// 8k context), 8% after. The threshold's wake-up cost (tens of µs) is for workers asleep; a
// decode step's calls come back to back and find them spinning.
namespace {
uint64_t DecodeProductWork(int rows, int inner, int cols) {
  const uint64_t weights = static_cast<uint64_t>(inner) * cols;
  return rows <= 4 && weights >= (uint64_t{1} << 16) ? kParallelMinWork : 0;
}
}  // namespace

Status MultiplyQuantized(const float* a, int a_stride, int rows, int inner, const QuantMatrix& w,
                         const float* bias, int cols, float* out, int out_stride) {
  // 1. The activations' codes (on the calling thread: tasks must not allocate).
  const int blocks = QuantBlocks(inner);
  const size_t per_row = static_cast<size_t>(blocks) * kQuantBlock;
  Buffer<int16_t> codes;
  Buffer<float> scales;
  Buffer<int32_t> sums;
  Buffer<int8_t> pairs;  // the relaxed nibble product's (quantized_codes.h)
  const bool relaxed = HasNibbleCodes(w.storage) && HasRelaxedNibbleRows();
  if (!codes.Resize(rows * per_row) || !scales.Resize(static_cast<size_t>(rows) * blocks) ||
      !sums.Resize(static_cast<size_t>(rows) * blocks) ||
      (relaxed && !pairs.Resize(static_cast<size_t>(rows) * blocks * kPairBytes))) {
    return Status::kOutOfMemory;
  }
  const InputCodes act{codes.data(), scales.data(), sums.data(), relaxed ? pairs.data() : nullptr,
                       blocks};
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
    switch (w.storage) {
#define ATTN_QUANT_CASE(name)                                                               \
  case MatrixStorage::name:                                                                 \
    MultiplyPanels<MatrixStorage::name>(act, rows, w, bias, cols, out, out_stride, p_begin, \
                                        p_end);                                             \
    break;
      ATTN_QUANT_CASE(kQ8_0)
      ATTN_QUANT_CASE(kQ4_0)
      ATTN_QUANT_CASE(kQ4_K)
      ATTN_QUANT_CASE(kQ6_K)
#undef ATTN_QUANT_CASE
      default:
        break;  // not quantized: the caller's to never ask
    }
  };
  const uint64_t work = std::max<uint64_t>(2ull * rows, 8ull) * inner * cols;
  ParallelForEach(tasks, std::max(work, DecodeProductWork(rows, inner, cols)), task);
  return Status::kOk;
}

}  // namespace attn
