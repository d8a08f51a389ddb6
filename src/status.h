// Status codes returned by the core. The core never throws: every entry point that can
// reject its arguments returns a Status, and the bindings turn it into a JS error.
#ifndef ATTENTION_WASM_SRC_STATUS_H_
#define ATTENTION_WASM_SRC_STATUS_H_

namespace attn {

// Every status once: its name, code and a short English description. The enum, StatusMessage
// and the table the bindings export to JS (bindings/contract_bindings.cc) are made from it.
#define ATTN_STATUSES(X)                                                         \
  X(kOk, 0, "ok")                                                                \
  /* a length or dim below zero */                                               \
  X(kNegativeDimension, 1, "a dimension is negative")                            \
  /* a required buffer is missing */                                             \
  X(kNullPointer, 2, "a required buffer is missing")                             \
  /* a row stride smaller than the row */                                        \
  X(kBadStride, 3, "a row stride is smaller than its row")                       \
  /* a key length outside [0, seq_k] */                                          \
  X(kBadKeyLength, 4, "a key length is outside [0, seq_k]")                      \
  /* d_model not divisible by num_heads, or heads by kv heads */                 \
  X(kBadHeadCount, 5, "d_model must divide into heads, and heads into kv heads") \
  /* another argument out of range (named in the JS layer) */                    \
  X(kBadArgument, 6, "an argument is out of range")                              \
  /* a buffer the request describes would pass kMaxBufferBytes */                \
  X(kTooLarge, 7, "a buffer would pass 2 GiB, the most one buffer may hold")     \
  /* scratch memory could not be allocated (the heap is full) */                 \
  X(kOutOfMemory, 8, "out of wasm memory for scratch buffers")

enum class Status : int {
#define ATTN_STATUS_ENUMERATOR(name, code, message) name = code,
  ATTN_STATUSES(ATTN_STATUS_ENUMERATOR)
#undef ATTN_STATUS_ENUMERATOR
};

// A short English description of `status`, for error messages.
inline const char* StatusMessage(Status status) {
  switch (status) {
#define ATTN_STATUS_CASE(name, code, message) \
  case Status::name:                          \
    return message;
    ATTN_STATUSES(ATTN_STATUS_CASE)
#undef ATTN_STATUS_CASE
  }
  return "unknown status";
}

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_STATUS_H_
