// How a model's key/value cache stores its elements: float32, or bfloat16 / float16 (half
// the bytes). Halves are rounded to nearest even when stored (NarrowRow) and widened exactly
// when attention reads them (WidenRow: every bfloat16 and float16 is a float32). Or q8_0
// (llama.cpp's 8-bit cache, ggml's block_q8_0): a row in blocks of 32 elements (the last
// padded with zeros), each its float16 scale d = max|x| / 127 then 32 int8 codes
// q = round(x / d), read back as d·q (QuantizeKvRow, DequantizeKvRow): 34 bytes per 32.
#ifndef ATTENTION_WASM_SRC_KERNELS_KV_STORAGE_H_
#define ATTENTION_WASM_SRC_KERNELS_KV_STORAGE_H_

#include <cstddef>
#include <cstdint>

namespace attn {

// Every storage once, with its number (the enum and the table the bindings export to JS are
// made from it).
#define ATTN_KV_STORAGES(X) X(kFloat32, 0) X(kBfloat16, 1) X(kFloat16, 2) X(kQ8_0, 3)
enum class KvStorage : int {
#define ATTN_KV_STORAGE_ENUMERATOR(name, value) name = value,
  ATTN_KV_STORAGES(ATTN_KV_STORAGE_ENUMERATOR)
#undef ATTN_KV_STORAGE_ENUMERATOR
};

// A q8_0 row's blocks: elements and bytes of each.
constexpr int kKvQ8Block = 32;
constexpr int kKvQ8BlockBytes = 2 + kKvQ8Block;

// Bytes one stored row of `width` elements takes: 4·width, 2·width, or 34 per block of 32.
inline uint64_t KvRowBytes(KvStorage s, int width) {
  const uint64_t w = static_cast<uint64_t>(width);
  switch (s) {
    case KvStorage::kFloat32:
      return 4 * w;
    case KvStorage::kQ8_0:
      return (w + kKvQ8Block - 1) / kKvQ8Block * kKvQ8BlockBytes;
    default:
      return 2 * w;
  }
}

// float32 → bfloat16, round to nearest even (NaN stays a quiet NaN; past the largest
// bfloat16 rounds to ±Infinity).
uint16_t FloatToBf16(float value);

// Rounds count floats to the half storage s (bfloat16 or float16, nearest even).
//   src: [count]   dst: [count]
void NarrowRow(const float* src, int count, KvStorage s, uint16_t* dst);

// The elements of q8_0 rows whose width is a multiple of 32 (whole blocks, no padding) as one
// array, the way a pointer addresses floats: element i is block i / 32's code i % 32, and
// adding n moves n elements, so the kernels walk rows and columns of a q8_0 cache with the
// same arithmetic as float or half rows (fused_attention.cc).
struct Q8Elements {
  const uint8_t* blocks = nullptr;
  size_t index = 0;

  Q8Elements operator+(size_t n) const { return {blocks, index + n}; }
  const uint8_t* block() const { return blocks + index / kKvQ8Block * kKvQ8BlockBytes; }
  bool null() const { return blocks == nullptr; }
};

// count elements from `src` as float32, d·q each (exact).   dst: [count]
void DequantizeQ8Elements(Q8Elements src, int count, float* dst);

// Quantizes a row to q8_0 blocks as ggml's quantize_row_q8_0_ref does (d from the float32
// max|x| / 127, q = round(x · (1/d)), d stored as its float16; an all-zero block has d = 0).
//   src: [width]   dst: [KvRowBytes(kQ8_0, width)] bytes
void QuantizeKvRow(const float* src, int width, uint8_t* dst);

// A q8_0 row read back: element i = HalfToFloat(d) · q (exact in float32).
//   src: [KvRowBytes(kQ8_0, width)] bytes   dst: [width]
void DequantizeKvRow(const uint8_t* src, int width, float* dst);

// Queries scored against q8_0 keys whose rows lie in whole blocks (fused_attention.cc) are
// coded too, per block of 32 as the keys are: int16 codes c = round(q · 2^-e) (ties to even),
// e the smallest exponent with max|q| <= 32767 · 2^e, so that the query read is q̂ = c · 2^e
// (exact in float32; |q̂ − q| <= 2^(e−1) <= max|q| / 32767 of its block), and a block's
// q̂·k = (2^e · d) · Σ c · q_k is an exact integer sum and one float32 multiply. An all-zero
// block has scale 0. A row holding NaN or Infinity is not coded (scored as floats).
constexpr int kQueryCodeMax = 32767;

// The widest query row coded (8 blocks): a wider head's q8_0 keys are widened to floats.
constexpr int kMaxCodedQueryWidth = 256;

// Whether a head's q8_0 keys are scored against coded queries: its key rows lie in whole
// blocks of their own (each starts a block), at most kMaxCodedQueryWidth wide.
//   k: the head's first key (rows k_stride elements apart)
inline bool CodesQueries(KvStorage s, Q8Elements k, int k_stride, int head_dim) {
  return s == KvStorage::kQ8_0 && head_dim % kKvQ8Block == 0 && head_dim <= kMaxCodedQueryWidth &&
         k.index % kKvQ8Block == 0 && k_stride % kKvQ8Block == 0;
}

// Codes a query row of `width` elements (a multiple of 32). False, and codes and scales
// unspecified, when an element is not finite.
//   q: [width]   codes: [width]   scales: [width / 32], 2^e per block
bool CodeQueryRow(const float* q, int width, int16_t* codes, float* scales);

// The query row as q8_0 keys read it: q̂ (CodeQueryRow's codes · scales), or q itself when it
// holds NaN or Infinity. The step-by-step path scores widened q8_0 keys with it.
//   q: [width], width % 32 == 0   out: [width]
void RoundQueryRow(const float* q, int width, float* out);

// Widens count halves of storage s (bfloat16 or float16) to float32, exactly (Infinity and
// NaN included), four lanes at a time.
//   src: [count]   dst: [count]
void WidenRow(const uint16_t* src, int count, KvStorage s, float* dst);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_KV_STORAGE_H_
