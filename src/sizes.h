// Sizes in exact arithmetic. Wasm32 has a 32-bit size_t and the core indexes with int, so
// every buffer a request describes is checked against kMaxBufferBytes (in 64-bit, before
// anything is allocated or indexed): past it, the request is Status::kTooLarge. Within it,
// every element count and offset of a float buffer fits an int with room to spare.
#ifndef ATTENTION_WASM_SRC_SIZES_H_
#define ATTENTION_WASM_SRC_SIZES_H_

#include <cstdint>
#include <initializer_list>

namespace attn {

// The largest buffer, in bytes, one request may describe: 2 GiB - 1, the most a wasm32 heap
// (with memory growth capped at 2 GiB, as built here) can hold. Native builds use the same
// bound, so they accept exactly what the wasm build accepts.
constexpr uint64_t kMaxBufferBytes = (uint64_t{1} << 31) - 1;

// Bytes of a buffer of `element_bytes` × the product of `dims` (each dim >= 0), saturated at
// kMaxBufferBytes + 1 so it never overflows however large the dims are.
inline uint64_t BufferBytes(uint64_t element_bytes, std::initializer_list<int64_t> dims) {
  constexpr uint64_t kTooBig = kMaxBufferBytes + 1;
  uint64_t bytes = element_bytes;
  for (const int64_t dim : dims) {
    if (dim < 0) return kTooBig;
    if (dim == 0) return 0;
    if (bytes > kTooBig / static_cast<uint64_t>(dim)) return kTooBig;
    bytes *= static_cast<uint64_t>(dim);
  }
  return bytes < kTooBig ? bytes : kTooBig;
}

// True when a float buffer of the product of `dims` elements fits in kMaxBufferBytes.
inline bool FloatsFit(std::initializer_list<int64_t> dims) {
  return BufferBytes(sizeof(float), dims) <= kMaxBufferBytes;
}

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_SIZES_H_
