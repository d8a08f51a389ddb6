// Status codes returned by the core. The core never throws: every entry point that can
// reject its arguments returns a Status, and the bindings turn it into a JS error.
#ifndef ATTENTION_WASM_SRC_STATUS_H_
#define ATTENTION_WASM_SRC_STATUS_H_

namespace attn {

enum class Status : int {
  kOk = 0,
  kNegativeDimension = 1,  // a length or dim below zero
  kNullPointer = 2,        // a required buffer is missing
  kBadStride = 3,          // a row stride smaller than the row
  kBadKeyLength = 4,       // a key length outside [0, seq_k]
  kBadHeadCount = 5,       // d_model not divisible by num_heads, or heads by kv heads
  kBadArgument = 6,        // another argument out of range (named in the JS layer)
  kTooLarge = 7,           // a buffer the request describes would pass kMaxBufferBytes
  kOutOfMemory = 8,        // scratch memory could not be allocated (the heap is full)
};

// A short English description of `status`, for error messages.
inline const char* StatusMessage(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kNegativeDimension:
      return "a dimension is negative";
    case Status::kNullPointer:
      return "a required buffer is missing";
    case Status::kBadStride:
      return "a row stride is smaller than its row";
    case Status::kBadKeyLength:
      return "a key length is outside [0, seq_k]";
    case Status::kBadHeadCount:
      return "d_model must divide into heads, and heads into kv heads";
    case Status::kBadArgument:
      return "an argument is out of range";
    case Status::kTooLarge:
      return "a buffer would pass 2 GiB, the most the wasm heap holds";
    case Status::kOutOfMemory:
      return "out of wasm memory for scratch buffers";
  }
  return "unknown status";
}

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_STATUS_H_
