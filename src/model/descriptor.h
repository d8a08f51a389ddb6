// The architecture descriptor of a pretrained transformer: the choices in which BERT,
// DistilBERT, RoBERTa, GPT-2, Llama, Mistral, Qwen2/3, Gemma 2/3 and Phi-3 differ (issues 21
// and 33). One runner (runner.h) executes any descriptor; the JS loader turns a Hugging Face
// config.json into one (bindings/js/models/architectures.js), so a family whose layers are
// made of these parts is data, not code.
//
// Shapes: B sequences of T tokens, rows = B·T, d = d_model, V = vocab_size,
// qw = num_heads·head_dim (the queries' width), kv = num_kv_heads·head_dim.
#ifndef ATTENTION_WASM_SRC_MODEL_DESCRIPTOR_H_
#define ATTENTION_WASM_SRC_MODEL_DESCRIPTOR_H_

#include <array>
#include <cstdint>

#include "block.h"
#include "kernels/quantized.h"
#include "model/self_attention.h"
#include "status.h"

namespace attn {

// More blocks than any published model has; bounds the weight table.
constexpr int kMaxLayers = 1024;
// Pairs of rotated columns per head at most (rotary_dim / 2): bounds longrope's factor lists.
constexpr int kMaxRotaryPairs = 512;
// The most entries a descriptor's per-matrix storages can name: the word embeddings, every
// layer's seven matrices, the LM transform and decoder.
constexpr int kMaxMatrixStorages = 8 * kMaxLayers + 4;

// kLayerNorm: (x − mean)/√(var + eps)·γ + β; kRmsNorm: x/√(mean(x²) + eps)·γ (Llama);
// kRmsNormPlusOne: x/√(mean(x²) + eps)·(1 + γ) (Gemma; the runner stores 1 + γ, rounded to
// float32 as Gemma's float32 `1.0 + weight.float()` is, so the forward is kRmsNorm's).
// (The list makes the enum and the table the bindings export to JS.)
#define ATTN_NORM_KINDS(X) X(kLayerNorm, 0) X(kRmsNorm, 1) X(kRmsNormPlusOne, 2)
enum class NormKind : int {
#define ATTN_NORM_KIND_ENUMERATOR(name, value) name = value,
  ATTN_NORM_KINDS(ATTN_NORM_KIND_ENUMERATOR)
#undef ATTN_NORM_KIND_ENUMERATOR
};

// Every field of the descriptor, one line each: X(slot, member, type, default, check). From
// this list alone come the member and its default (ModelDescriptor below), CheckDescriptor's
// check of it (descriptor.cc), its slot in the packed descriptor JS writes and DescriptorOf
// reads (bindings/pretrained_bindings.cc: one float64 per field, in this order), and the
// table the module exports at init (bindings/contract_bindings.cc: name, type and default),
// from which bindings/js/models/descriptor.js packs: the value of slot kFooBar is
// descriptor.fooBar, or this default when the descriptor leaves it out. A new scalar, flag or
// enum is one line here and its use in the runner.
//   type: int, bool, float, double, or an enum of its own list (Activation, NormKind,
//         MatrixStorage, RopeScaling: JS names its values by that list's names).
//   check (FieldCheck): kAny; kDimension (an int >= 1) and kCount (>= 0), refused as
//         kNegativeDimension; kFinite; kNonNegative (finite and >= 0); kPositive (finite and
//         > 0); kKnown (an enum's value is one of its list). Rules between fields (a rotary_dim
//         within the head, q/k norms on an RMS norm, ...) stay in CheckDescriptor.
// clang-format off
#define ATTN_DESCRIPTOR_FIELDS(X)                                                             \
  /* V: rows of the word embeddings (and columns of the LM logits). */                        \
  X(kVocabSize, vocab_size, int, 0, kDimension)                                               \
  /* Rows of the learned position table (0: no position table). */                            \
  X(kMaxPositions, max_positions, int, 0, kCount)                                             \
  /* Rows of the token-type table (0: none). */                                               \
  X(kTypeVocabSize, type_vocab_size, int, 0, kCount)                                          \
  X(kDModel, d_model, int, 0, kDimension)                                                     \
  X(kNumHeads, num_heads, int, 0, kDimension)                                                 \
  /* = num_heads, or fewer for grouped-query attention. */                                    \
  X(kNumKvHeads, num_kv_heads, int, 0, kDimension)                                            \
  /* Columns of each query, key and value head (Gemma, Qwen3: not d/heads). */                \
  X(kHeadDim, head_dim, int, 0, kDimension)                                                   \
  X(kNumLayers, num_layers, int, 0, kCount)                                                   \
  /* The feed-forward network's hidden width. */                                              \
  X(kDFF, d_ff, int, 0, kDimension)                                                           \
  /* x + f(norm(x)) (GPT-2); else norm(x + f(x)) (BERT). */                                   \
  X(kPreNorm, pre_norm, bool, false, kAny)                                                    \
  /* Pre-norm with a second norm on f's output before the residual: x + norm'(f(norm(x)))    \
     (Gemma 2/3's sandwich). */                                                               \
  X(kPostNorms, post_norms, bool, false, kAny)                                                \
  /* With post_norms: false drops the norm before each sub-layer, x + norm'(f(x)) (OLMo 2's   \
     norms after attention and MLP). */                                                       \
  X(kInputNorms, input_norms, bool, true, kAny)                                               \
  /* LayerNorms with a bias β (not ModernBERT's). */                                          \
  X(kNormBiases, norm_biases, bool, true, kAny)                                               \
  /* false: layer 0 has no norm before attention (ModernBERT). */                             \
  X(kFirstAttentionNorm, first_attention_norm, bool, true, kAny)                              \
  /* A norm after the embedding sum (BERT, DistilBERT). */                                    \
  X(kEmbeddingNorm, embedding_norm, bool, false, kAny)                                        \
  /* A norm after the last block (GPT-2's ln_f). */                                           \
  X(kFinalNorm, final_norm, bool, false, kAny)                                                \
  /* Decoder: query i sees keys j <= i. */                                                    \
  X(kCausal, causal, bool, false, kAny)                                                       \
  /* The query, key and value projections have biases. */                                    \
  X(kQkvBias, qkv_bias, bool, true, kAny)                                                     \
  /* The attention's output projection has a bias (not Qwen2's). */                           \
  X(kOutBias, out_bias, bool, true, kAny)                                                     \
  /* Each query and key head normalised (weights [head_dim]) before the rotary embedding      \
     (Qwen3, Gemma 3). */                                                                     \
  X(kQkNorm, qk_norm, bool, false, kAny)                                                      \
  /* With qk_norm: one RMS norm over all the queries of a token (weights [heads·head_dim]),   \
     and over all its keys (OLMo 2). */                                                       \
  X(kQkNormFullWidth, qk_norm_full_width, bool, false, kAny)                                  \
  /* The feed-forward layers have biases. */                                                  \
  X(kMlpBias, mlp_bias, bool, true, kAny)                                                     \
  /* The feed-forward network's activation. */                                                \
  X(kActivation, activation, Activation, Activation::kGelu, kKnown)                           \
  /* down(act(x·W_gate) ⊙ (x·W_up)) (Llama's SwiGLU with kSilu). */                           \
  X(kGatedFfn, gated_ffn, bool, false, kAny)                                                  \
  /* See NormKind. */                                                                         \
  X(kNorm, norm, NormKind, NormKind::kLayerNorm, kKnown)                                      \
  X(kNormEps, norm_eps, float, 1e-5f, kPositive)                                              \
  /* > 0: rotary embedding of the first rotary_dim columns of each query and key head         \
     (Llama; Phi-3's partial_rotary_factor); 0: none. */                                      \
  X(kRotaryDim, rotary_dim, int, 0, kCount)                                                   \
  X(kRotaryBase, rotary_base, double, 10000.0, kPositive)                                     \
  /* Rotated pairs are adjacent columns rather than the two halves of a head. */              \
  X(kRotaryInterleaved, rotary_interleaved, bool, false, kAny)                                \
  /* Gemma 3: the RoPE base of the sliding-window layers, unscaled; 0: rotary_base. */        \
  X(kLocalRotaryBase, local_rotary_base, double, 0.0, kNonNegative)                           \
  /* rope_scaling (see RotarySpec): none, linear, llama3 or longrope, with its parameters     \
     (checked together in CheckDescriptor). */                                                \
  X(kRopeScaling, rope_scaling, RopeScaling, RopeScaling::kNone, kKnown)                      \
  X(kRopeFactor, rope_factor, double, 1.0, kAny)                                              \
  X(kRopeLowFreqFactor, rope_low_freq_factor, double, 1.0, kAny)                              \
  X(kRopeHighFreqFactor, rope_high_freq_factor, double, 4.0, kAny)                            \
  X(kRopeOriginalMax, rope_original_max, int, 8192, kAny)                                     \
  /* longrope: cos and sin × this. */                                                         \
  X(kRopeAttentionFactor, rope_attention_factor, double, 1.0, kAny)                           \
  /* Scores are q·k·attention_scale (0: 1/√head_dim; Gemma: query_pre_attn_scalar^-½;       \
     Granite: attention_multiplier). */                                                       \
  X(kAttentionScale, attention_scale, float, 0.0f, kNonNegative)                              \
  /* > 0: scores become cap·tanh(s/cap) before the mask (Gemma 2). */                         \
  X(kAttentionSoftcap, attention_softcap, float, 0.0f, kNonNegative)                          \
  /* > 0: logits become cap·tanh(logits/cap) (Gemma 2). */                                    \
  X(kFinalSoftcap, final_softcap, float, 0.0f, kNonNegative)                                  \
  /* Word embeddings × this (Gemma: √d_model in float32; Granite: embedding_multiplier). */   \
  X(kEmbeddingMultiplier, embedding_multiplier, float, 1.0f, kFinite)                         \
  /* Each sub-layer's output × this before its residual (Granite). */                         \
  X(kResidualMultiplier, residual_multiplier, float, 1.0f, kFinite)                           \
  /* Logits ÷ this (Granite's logits_scaling). */                                             \
  X(kLogitsScaling, logits_scaling, float, 1.0f, kPositive)                                   \
  /* How every matrix is stored: float32 panels; bfloat16 panels (a bfloat16 checkpoint's     \
     values kept in half the bytes; the products widen them exactly, see kernels/matmul.h     \
     Panels); or Q8_0 / Q4_0 / K-quant blocks (kernels/quantized.h: quantized at load, or     \
     GGUF's own). */                                                                          \
  X(kMatrixStorage, matrix_storage, MatrixStorage, MatrixStorage::kFloat32, kKnown)           \
  /* The entries of matrix_storages (below). */                                               \
  X(kMatrixStorageCount, matrix_storage_count, int, 0, kCount)                                \
  /* Masked- or causal-LM head: logits = transform(x)·D + bias, D: [d, V]. */                 \
  X(kLmHead, lm_head, bool, false, kAny)                                                      \
  /* BERT/DistilBERT: t = norm(act(x·W + b)) first. */                                        \
  X(kLmTransform, lm_transform, bool, false, kAny)                                            \
  /* The transform has a bias (not ModernBERT's). */                                          \
  X(kLmTransformBias, lm_transform_bias, bool, true, kAny)                                    \
  /* A [V] bias on the logits. */                                                             \
  X(kLmBias, lm_bias, bool, false, kAny)                                                      \
  X(kLmActivation, lm_activation, Activation, Activation::kGelu, kKnown)

// The per-layer and per-pair lists, one line each: X(slot, member, element type, length
// field, divisor, most, default element, check). Each is a std::array of `most` elements of
// which the first length / divisor are read (JS writes no more, so a config's absurd size is
// refused by CheckDescriptor, not by a 4 GB array in JS); they follow the fields in the packed
// descriptor, 4 bytes an element (int32, or float32 bits), in this order.
#define ATTN_DESCRIPTOR_LISTS(X)                                                              \
  /* > 0 a sliding window, query i seeing keys j > i − window only (with the causal rule:     \
     Mistral, Gemma's local layers; without it also j < i + window only: EmbeddingGemma's     \
     bidirectional |i − j| < window); 0 every key the causal rule leaves. */                  \
  X(kLayerWindows, layer_windows, int32_t, num_layers, 1, kMaxLayers, 0, kNonNegative)        \
  /* 1 when the layer's queries and keys are not turned by the rotary embedding (SmolLM3's    \
     NoPE layers, every fourth by default); 0 when they are (a byte each: every copy of a     \
     descriptor carries the whole array). */                                                  \
  X(kLayerNoRope, layer_no_rope, uint8_t, num_layers, 1, kMaxLayers, 0, kFlag)                \
  /* longrope's per-pair divisors of the frequencies: short while the call's last position    \
     is below rope_original_max, long past it (checked with rope_scaling). */                 \
  X(kRopeShortFactors, rope_short_factors, float, rotary_dim, 2, kMaxRotaryPairs, 1.0f, kAny) \
  X(kRopeLongFactors, rope_long_factors, float, rotary_dim, 2, kMaxRotaryPairs, 1.0f, kAny)
// clang-format on

// How CheckDescriptor checks a field of ATTN_DESCRIPTOR_FIELDS or an element of a list
// (kFlag: 0 or 1).
enum class FieldCheck { kAny, kDimension, kCount, kFinite, kNonNegative, kPositive, kKnown, kFlag };

// The fields in the packed descriptor (its lists follow them).
#define ATTN_COUNT_DESCRIPTOR_FIELD(...) +1
constexpr int kDescriptorFieldCount = 0 ATTN_DESCRIPTOR_FIELDS(ATTN_COUNT_DESCRIPTOR_FIELD);
#undef ATTN_COUNT_DESCRIPTOR_FIELD

// An array of N copies of `value` (a list's default).
template <typename T, size_t N>
std::array<T, N> Filled(T value) {
  std::array<T, N> a;
  a.fill(value);
  return a;
}

struct ModelDescriptor {
#define ATTN_DESCRIPTOR_FIELD_MEMBER(slot, member, type, fallback, check) type member = fallback;
  ATTN_DESCRIPTOR_FIELDS(ATTN_DESCRIPTOR_FIELD_MEMBER)
#undef ATTN_DESCRIPTOR_FIELD_MEMBER
#define ATTN_DESCRIPTOR_LIST_MEMBER(slot, member, type, length, divisor, most, fallback, check) \
  std::array<type, most> member = Filled<type, most>(fallback);
  ATTN_DESCRIPTOR_LISTS(ATTN_DESCRIPTOR_LIST_MEMBER)
#undef ATTN_DESCRIPTOR_LIST_MEMBER
  // Per matrix, overriding matrix_storage (a GGUF file's mix of types, each kept as its
  // blocks): the first matrix_storage_count of the word embeddings and the matrices, in
  // ForEachWeight's order (weights.h), as MatrixStorage numbers. The word embeddings take a
  // quantized storage (a [d, V] block matrix) or kFloat32 (float32 rows). Borrowed: the list
  // must outlive every use of the descriptor (PretrainedModel keeps a copy of its own; a fixed
  // array here would add 32 KB to every model). Packed after the lists.   [matrix_storage_count]
  const int32_t* matrix_storages = nullptr;
};

// Calls visit(name, &ModelDescriptor::member, FieldCheck) for each field, in slot order (name:
// the slot's, "kVocabSize").
template <typename Visit>
void ForEachDescriptorField(Visit&& visit) {
#define ATTN_VISIT_DESCRIPTOR_FIELD(slot, member, type, fallback, check) \
  visit(#slot, &ModelDescriptor::member, FieldCheck::check);
  ATTN_DESCRIPTOR_FIELDS(ATTN_VISIT_DESCRIPTOR_FIELD)
#undef ATTN_VISIT_DESCRIPTOR_FIELD
}

// Calls visit(name, &ModelDescriptor::member, &ModelDescriptor::length, divisor, default
// element, FieldCheck) for each list, in packed order.
template <typename Visit>
void ForEachDescriptorList(Visit&& visit) {
#define ATTN_VISIT_DESCRIPTOR_LIST(slot, member, type, length, divisor, most, fallback, check) \
  visit(#slot, &ModelDescriptor::member, &ModelDescriptor::length, divisor,                    \
        static_cast<type>(fallback), FieldCheck::check);
  ATTN_DESCRIPTOR_LISTS(ATTN_VISIT_DESCRIPTOR_LIST)
#undef ATTN_VISIT_DESCRIPTOR_LIST
}

// The elements of a list the descriptor's fields make it use: length / divisor, within the array.
template <typename T, size_t N>
int ListLength(const ModelDescriptor& m, const std::array<T, N>&, int ModelDescriptor::*length,
               int divisor) {
  const int n = m.*length / divisor;
  return n < 0 ? 0 : n > static_cast<int>(N) ? static_cast<int>(N) : n;
}

// kOk, or the first problem: kNegativeDimension for a size below 1 (0 where allowed),
// kBadHeadCount when heads do not divide into kv heads, kBadArgument for a non-positive eps,
// rotary base or scale, a negative softcap, window or multiplier, more than kMaxLayers blocks,
// a rotary_dim that is odd or wider than a head, q/k norms on a layer norm, kTooLarge when a
// weight or the whole set passes 2 GiB.
Status CheckDescriptor(const ModelDescriptor& descriptor);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_MODEL_DESCRIPTOR_H_
