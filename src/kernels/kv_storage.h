// How a model's key/value cache stores its elements: float32, or bfloat16 / float16 (half
// the bytes). Halves are rounded to nearest even when stored (NarrowRow) and widened exactly
// when attention reads them (WidenRow: every bfloat16 and float16 is a float32).
#ifndef ATTENTION_WASM_SRC_KERNELS_KV_STORAGE_H_
#define ATTENTION_WASM_SRC_KERNELS_KV_STORAGE_H_

#include <cstdint>

namespace attn {

// Every storage once, with its number (the enum and the table the bindings export to JS are
// made from it).
#define ATTN_KV_STORAGES(X) X(kFloat32, 0) X(kBfloat16, 1) X(kFloat16, 2)
enum class KvStorage : int {
#define ATTN_KV_STORAGE_ENUMERATOR(name, value) name = value,
  ATTN_KV_STORAGES(ATTN_KV_STORAGE_ENUMERATOR)
#undef ATTN_KV_STORAGE_ENUMERATOR
};

// Bytes of one stored element: 4 or 2.
inline int KvElementBytes(KvStorage s) { return s == KvStorage::kFloat32 ? 4 : 2; }

// float32 → bfloat16, round to nearest even (NaN stays a quiet NaN; past the largest
// bfloat16 rounds to ±Infinity).
uint16_t FloatToBf16(float value);

// Rounds count floats to the half storage s (bfloat16 or float16, nearest even).
//   src: [count]   dst: [count]
void NarrowRow(const float* src, int count, KvStorage s, uint16_t* dst);

// Widens count halves of storage s (bfloat16 or float16) to float32, exactly (Infinity and
// NaN included), four lanes at a time.
//   src: [count]   dst: [count]
void WidenRow(const uint16_t* src, int count, KvStorage s, float* dst);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_KV_STORAGE_H_
