// The layouts JS writes into the heap for the core to read: an attention call's slots and a
// pretrained model's descriptor with its flag bits. Each is listed once here; the enums the
// bindings read with and the tables JS packs by (bindings/contract_bindings.cc, read once at
// init by bindings/js/contract.js) are made from the same list, so the two cannot disagree.
// JS's name for an entry is its enumerator without the k, first letter lowered (kSeqQ → seqQ).
#ifndef ATTENTION_WASM_BINDINGS_CONTRACT_H_
#define ATTENTION_WASM_BINDINGS_CONTRACT_H_

#include "model/descriptor.h"  // ATTN_DESCRIPTOR_SCALARS

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

// A pretrained model's descriptor (pretrained_bindings.cc, DescriptorOf), in slot order;
// norm_eps and the rotary base travel as arguments of their own. flags holds the DescriptorFlag
// bits; matrix_storage attn::MatrixStorage; norm is attn::NormKind, activation and lm_activation attn::Activation, rope_scaling
// attn::RopeScaling with its original_max_position_embeddings and its factors (float32).
// After the slots come the lists of ATTN_DESCRIPTOR_LISTS, each as long as its size slot says.
// clang-format off
#define ATTN_DESCRIPTOR_SLOTS(X)                                                              \
  X(kVocabSize, kInt) X(kMaxPositions, kInt) X(kTypeVocabSize, kInt) X(kDModel, kInt)         \
  X(kNumHeads, kInt) X(kNumKvHeads, kInt) X(kQkvHeadDim, kInt) X(kNumLayers, kInt) X(kDFF, kInt)\
  X(kFlags, kInt) X(kNorm, kInt) X(kActivation, kInt) X(kLmActivation, kInt)                  \
  X(kRotaryDim, kInt) X(kRopeScaling, kInt) X(kRopeOriginalMax, kInt) X(kRopeFactor, kFloat)  \
  X(kRopeLowFreqFactor, kFloat) X(kRopeHighFreqFactor, kFloat)                                \
  X(kRopeAttentionFactor, kFloat) X(kMatrixStorage, kInt) X(kMatrixStorageCount, kInt)
// clang-format on

// The per-layer and per-pair lists after the slots, in order (name, element type, the slot
// their length comes from, its divisor, the most the runner reads: JS writes no more, so a
// config's absurd size is refused by CheckDescriptor, not by a 4 GB array in JS): each layer's sliding window (0: none), each layer's NoPE flag (1: no rotary embedding), then
// longrope's short and long factors, rotary_dim / 2 each (written for every model; 1 unless
// longrope), then the per-matrix storages (attn::MatrixStorage; none unless a GGUF file mixes
// block types).
// clang-format off
#define ATTN_DESCRIPTOR_LISTS(X)                                                              \
  X(kLayerWindows, kInt, kNumLayers, 1, attn::kMaxLayers)                                    \
  X(kLayerNoRope, kInt, kNumLayers, 1, attn::kMaxLayers)                                     \
  X(kRopeShortFactors, kFloat, kRotaryDim, 2, attn::kMaxRotaryPairs)                          \
  X(kRopeLongFactors, kFloat, kRotaryDim, 2, attn::kMaxRotaryPairs)                          \
  X(kMatrixStorages, kInt, kMatrixStorageCount, 1, attn::kMaxMatrixStorages)
// clang-format on

// The slots, then one float32 slot per plain scalar (attn::ATTN_DESCRIPTOR_SCALARS,
// src/model/descriptor.h: member, default and check written once there).
enum DescriptorSlot : int {
#define ATTN_DESCRIPTOR_SLOT_ENUMERATOR(name, type) name,
  ATTN_DESCRIPTOR_SLOTS(ATTN_DESCRIPTOR_SLOT_ENUMERATOR)
#undef ATTN_DESCRIPTOR_SLOT_ENUMERATOR
#define ATTN_DESCRIPTOR_SCALAR_ENUMERATOR(name, member, type, fallback, check) name,
      ATTN_DESCRIPTOR_SCALARS(ATTN_DESCRIPTOR_SCALAR_ENUMERATOR)
#undef ATTN_DESCRIPTOR_SCALAR_ENUMERATOR
          kDescriptorSlotCount
};

// The descriptor's boolean fields, as bits of its flags slot (name, bit). JS sets a flag
// when its descriptor has that property true (kPreNorm: descriptor.preNorm).
// clang-format off
#define ATTN_DESCRIPTOR_FLAGS(X)                                                              \
  X(kPreNorm, 0) X(kEmbeddingNorm, 1) X(kFinalNorm, 2) X(kCausal, 3) X(kQkvBias, 4)           \
  X(kMlpBias, 5) X(kLmHead, 6) X(kLmTransform, 7) X(kLmBias, 8) X(kGatedFfn, 9)               \
  X(kOutBias, 10) X(kRotaryInterleaved, 11) X(kQkNorm, 12) X(kPostNorms, 13)                 \
  X(kNoInputNorms, 14) X(kQkNormFullWidth, 15) X(kNoNormBiases, 16)                           \
  X(kNoFirstAttentionNorm, 17) X(kNoLmTransformBias, 18)
// clang-format on

enum class DescriptorFlag : int {
#define ATTN_DESCRIPTOR_FLAG_ENUMERATOR(name, bit) name = 1 << (bit),
  ATTN_DESCRIPTOR_FLAGS(ATTN_DESCRIPTOR_FLAG_ENUMERATOR)
#undef ATTN_DESCRIPTOR_FLAG_ENUMERATOR
};

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
