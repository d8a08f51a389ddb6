// The layouts JS writes into the heap for the core to read: an attention call's slots and a
// pretrained model's forward flags (a descriptor's fields are src/model/descriptor.h's
// ATTN_DESCRIPTOR_FIELDS). Each is listed once here; the enums the bindings read with and the tables JS packs by (bindings/contract_bindings.cc, read once at
// init by bindings/js/contract.js) are made from the same list, so the two cannot disagree.
// JS's name for an entry is its enumerator without the k, first letter lowered (kSeqQ → seqQ).
#ifndef ATTENTION_WASM_BINDINGS_CONTRACT_H_
#define ATTENTION_WASM_BINDINGS_CONTRACT_H_

// How a 4-byte slot holds its value: a 32-bit integer (addresses, sizes, flags) or float32 bits.
enum class SlotType { kInt, kFloat };

// An attention call (attention_bindings.cc, RequestFromSlots), in slot order: heap addresses
// and sizes as 32-bit integers, the scale, the softcap and the dropout as floats, the dropout
// seed as 32 unsigned bits. Strides of 0 mean contiguous rows; out_offsets 0 means
// b·seq_q·value_dim; window_left/window_right -1 mean no limit. Read by plain wasm exports,
// not through Embind: converting a 20-field value_object was ~15% of a small call's time in
// Chromium. The call's batch table follows its slots.
// clang-format off
#define ATTN_CALL_SLOTS(X)                                                                    \
  X(kQ, kInt) X(kK, kInt) X(kV, kInt) X(kMask, kInt) X(kAllowed, kInt) X(kEntries, kInt)      \
  X(kMaskRowStride, kInt) X(kBatch, kInt) X(kSeqQ, kInt) X(kSeqK, kInt) X(kHeadDim, kInt)     \
  X(kValueDim, kInt) X(kScale, kFloat) X(kCausal, kInt) X(kOut, kInt) X(kWeights, kInt)       \
  X(kRawScores, kInt) X(kScaledScores, kInt) X(kMaskedScores, kInt) X(kQStride, kInt)         \
  X(kKStride, kInt) X(kVStride, kInt) X(kOutStride, kInt) X(kOutOffsets, kInt)                \
  X(kSoftcap, kFloat) X(kCappedScores, kInt) X(kWindowLeft, kInt) X(kWindowRight, kInt)       \
  X(kDropout, kFloat) X(kDropoutSeed, kInt) X(kDroppedWeights, kInt)
// clang-format on

enum CallSlot : int {
#define ATTN_CALL_SLOT_ENUMERATOR(name, type) name,
  ATTN_CALL_SLOTS(ATTN_CALL_SLOT_ENUMERATOR)
#undef ATTN_CALL_SLOT_ENUMERATOR
      kCallSlotCount
};

// A pretrained model's descriptor is not listed here: its fields and lists are
// ATTN_DESCRIPTOR_FIELDS and ATTN_DESCRIPTOR_LISTS (src/model/descriptor.h), packed as one
// float64 per field in that order, then each list's elements (4 bytes each), then the
// per-matrix storages (int32, matrix_storage_count of them). pretrained_bindings.cc's
// DescriptorOf reads that; contract_bindings.cc exports the layout JS packs by.

// A pretrained model's forward call (pretrained_bindings.cc, InputOf): its flags' bits, and
// from bit kKeepQkShift up, 1 + the layer whose queries and keys to keep (0: none).
// clang-format off
#define ATTN_FORWARD_FLAGS(X)                                                                 \
  X(kHiddenStates, 0) X(kAttentions, 1) X(kLogits, 2) X(kLastLogitsOnly, 3) X(kUseCache, 4)
// clang-format on

enum class ForwardFlag : int {
#define ATTN_FORWARD_FLAG_ENUMERATOR(name, bit) name = 1 << (bit),
  ATTN_FORWARD_FLAGS(ATTN_FORWARD_FLAG_ENUMERATOR)
#undef ATTN_FORWARD_FLAG_ENUMERATOR
};
constexpr int kKeepQkShift = 8;

// The training model's Create flags (model_bindings.cc): pre-norm, causal, a [CLS] head, ReLU
// (else GELU), learned positions (else sinusoidal).
// clang-format off
#define ATTN_TRAINING_FLAGS(X)                                                                \
  X(kPreNorm, 0) X(kCausal, 1) X(kClassify, 2) X(kRelu, 3) X(kLearned, 4)
// clang-format on

enum class TrainingFlag : int {
#define ATTN_TRAINING_FLAG_ENUMERATOR(name, bit) name = 1 << (bit),
  ATTN_TRAINING_FLAGS(ATTN_TRAINING_FLAG_ENUMERATOR)
#undef ATTN_TRAINING_FLAG_ENUMERATOR
};

#endif  // ATTENTION_WASM_BINDINGS_CONTRACT_H_
