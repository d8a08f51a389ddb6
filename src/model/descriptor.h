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

// The descriptor's plain scalars, one line each: X(slot, member, type, default, check). The
// member and its default are declared from it below; the bindings make each a float32 slot of
// the packed descriptor (bindings/contract.h), read it in DescriptorOf and export its default,
// which JS uses when a descriptor leaves the value out (bindings/js/models/descriptor.js: the
// value is descriptor[camelCase name], kAttentionScale → attentionScale); CheckDescriptor
// applies the check (kFinite, kNonNegative: finite and >= 0, kPositive: finite and > 0). A new
// scalar is one line here and its use in the runner.
// clang-format off
#define ATTN_DESCRIPTOR_SCALARS(X)                                                            \
  /* Gemma 3: the RoPE base of the sliding-window layers, unscaled; 0: rotary_base. */        \
  X(kLocalRotaryBase, local_rotary_base, double, 0.0, kNonNegative)                           \
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
  X(kLogitsScaling, logits_scaling, float, 1.0f, kPositive)
// clang-format on

// How CheckDescriptor checks a scalar of ATTN_DESCRIPTOR_SCALARS.
enum class ScalarCheck { kFinite, kNonNegative, kPositive };

struct ModelDescriptor {
#define ATTN_DESCRIPTOR_SCALAR_MEMBER(slot, member, type, fallback, check) type member = fallback;
  ATTN_DESCRIPTOR_SCALARS(ATTN_DESCRIPTOR_SCALAR_MEMBER)
#undef ATTN_DESCRIPTOR_SCALAR_MEMBER
  int vocab_size = 0;       // V: rows of the word embeddings (and columns of the LM logits)
  int max_positions = 0;    // rows of the learned position table (0: no position table)
  int type_vocab_size = 0;  // rows of the token-type table (0: none)
  int d_model = 0;
  int num_heads = 0;
  int num_kv_heads = 0;  // = num_heads, or fewer for grouped-query attention
  int head_dim = 0;      // columns of each query, key and value head (Gemma, Qwen3: not d/heads)
  int num_layers = 0;
  int d_ff = 0;             // the feed-forward network's hidden width
  bool pre_norm = false;    // x + f(norm(x)) (GPT-2); else norm(x + f(x)) (BERT)
  bool post_norms = false;  // pre-norm with a second norm on f's output before the residual:
                            // x + norm'(f(norm(x))) (Gemma 2/3's sandwich)
  bool norm_biases = true;  // LayerNorms with a bias β (not ModernBERT's)
  bool first_attention_norm = true;  // false: layer 0 has no norm before attention (ModernBERT)
  bool input_norms = true;           // with post_norms: false drops the norm before each sub-layer,
                                     // x + norm'(f(x)) (OLMo 2's norms after attention and MLP)
  bool embedding_norm = false;       // a norm after the embedding sum (BERT, DistilBERT)
  bool final_norm = false;           // a norm after the last block (GPT-2's ln_f)
  bool causal = false;               // decoder: query i sees keys j <= i
  bool qkv_bias = true;              // the query, key and value projections have biases
  bool out_bias = true;              // the attention's output projection has a bias (not Qwen2's)
  bool qk_norm = false;  // each query and key head normalised (weights [head_dim]) before
                         // the rotary embedding (Qwen3, Gemma 3)
  bool qk_norm_full_width = false;  // with qk_norm: one RMS norm over all the queries of a token
                                    // (weights [heads · head_dim]), and over all its keys (OLMo 2)
  bool lm_transform_bias = true;    // the masked-LM head's transform has a bias (not ModernBERT's)
  bool mlp_bias = true;             // the feed-forward layers have biases
  Activation activation = Activation::kGelu;  // the feed-forward network's
  bool gated_ffn = false;  // down(act(x·W_gate) ⊙ (x·W_up)) (Llama's SwiGLU with kSilu)
  int rotary_dim = 0;      // > 0: rotary embedding of the first rotary_dim columns of each
                           // query and key head (Llama; Phi-3's partial_rotary_factor); 0: none
  double rotary_base = 10000.0;
  bool rotary_interleaved = false;
  // rope_scaling (see RotarySpec): none, linear, llama3 or longrope, with its parameters.
  int rope_scaling = 0;
  double rope_factor = 1.0, rope_low_freq_factor = 1.0, rope_high_freq_factor = 4.0;
  int rope_original_max = 8192;
  double rope_attention_factor = 1.0;  // longrope: cos and sin × this
  // longrope's per-pair divisors of the frequencies: short while the call's last position is
  // below rope_original_max, long past it.   [rotary_dim / 2] each
  std::array<float, kMaxRotaryPairs> rope_short_factors{}, rope_long_factors{};
  // Per layer: > 0 a sliding window, query i seeing keys j > i − window only (with the
  // causal rule: Mistral, Gemma's local layers; without it also j < i + window only:
  // EmbeddingGemma's bidirectional |i − j| < window); 0 every key the causal rule leaves.   [num_layers]
  std::array<int32_t, kMaxLayers> layer_windows{};
  // Per layer: 1 when its queries and keys are not turned by the rotary embedding (SmolLM3's
  // NoPE layers, every fourth by default); 0 when they are (every layer, with rotary_dim > 0).
  // [num_layers] (a byte each: every copy of a descriptor carries the whole array)
  std::array<uint8_t, kMaxLayers> layer_no_rope{};
  // How every matrix is stored: float32 panels; bfloat16 panels (a bfloat16 checkpoint's
  // values kept in half the bytes; the products widen them exactly, see kernels/matmul.h
  // Panels); or Q8_0 / Q4_0 blocks (kernels/quantized.h: quantized at load, or GGUF's own).
  MatrixStorage matrix_storage = MatrixStorage::kFloat32;
  // Per matrix, overriding matrix_storage (a GGUF file's mix of types, each kept as its
  // blocks): the first matrix_storage_count of the word embeddings and the matrices, in
  // ForEachWeight's order (weights.h), as MatrixStorage numbers. The word embeddings take a
  // quantized storage (a [d, V] block matrix) or kFloat32 (float32 rows). Borrowed: the list
  // must outlive every use of the descriptor (PretrainedModel keeps a copy of its own; a fixed
  // array here would add 32 KB to every model).   [matrix_storage_count]
  int matrix_storage_count = 0;
  const int32_t* matrix_storages = nullptr;
  NormKind norm = NormKind::kLayerNorm;
  float norm_eps = 1e-5f;
  // Masked- or causal-LM head: logits = transform(x)·D + bias, D: [d, V].
  bool lm_head = false;
  bool lm_transform = false;  // BERT/DistilBERT: t = norm(act(x·W + b)) first
  bool lm_bias = false;       // a [V] bias on the logits
  Activation lm_activation = Activation::kGelu;
};

// kOk, or the first problem: kNegativeDimension for a size below 1 (0 where allowed),
// kBadHeadCount when heads do not divide into kv heads, kBadArgument for a non-positive eps,
// rotary base or scale, a negative softcap, window or multiplier, more than kMaxLayers blocks,
// a rotary_dim that is odd or wider than a head, q/k norms on a layer norm, kTooLarge when a
// weight or the whole set passes 2 GiB.
Status CheckDescriptor(const ModelDescriptor& descriptor);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_MODEL_DESCRIPTOR_H_
