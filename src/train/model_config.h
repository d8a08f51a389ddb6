// The training model's configuration and the layout of its parameters in one flat array.
#ifndef ATTENTION_WASM_SRC_TRAIN_MODEL_CONFIG_H_
#define ATTENTION_WASM_SRC_TRAIN_MODEL_CONFIG_H_

#include <cstdint>

#include "block.h"
#include "status.h"

namespace attn {

struct ModelConfig {
  int vocab_size = 0;
  int max_len = 0;  // the longest token sequence
  int d_model = 64;
  int num_heads = 4;
  int num_layers = 2;
  int d_ff = 256;
  bool pre_norm = true;   // false: post-norm (the original transformer's)
  bool causal = false;    // row t attends to keys j <= t
  bool classify = false;  // a learned [CLS] row at position 0 feeds the head; else every token does
  int outputs = 0;        // classes (classify) or output tokens (per-token head)
  Activation activation = Activation::kGelu;
  bool learned_positions = true;  // false: fixed sinusoidal positions
  uint32_t seed = 0;

  int head_dim() const { return d_model / num_heads; }
  int positions() const { return max_len + (classify ? 1 : 0); }  // rows of the position table
};

// kBadArgument when a size is below its minimum (vocab 2, outputs 2, the rest 1), the heads do
// not divide d_model, or the parameters would pass kMaxBufferBytes (kTooLarge).
Status CheckModelConfig(const ModelConfig& config);

// One layer's parameters, as offsets (in floats) into the flat parameter array.
struct LayerOffsets {
  uint64_t ln1_gamma, ln1_beta, wq, bq, wk, bk, wv, bv, wo, bo, ln2_gamma, ln2_beta, w1, b1, w2, b2;
};

// Where each parameter lives. `kNone` marks a parameter this configuration does not have.
struct ModelLayout {
  static constexpr uint64_t kNone = ~uint64_t{0};
  uint64_t token_embedding = kNone, position_embedding = kNone, cls = kNone;
  LayerOffsets layers[64];  // num_layers of them (CheckModelConfig caps num_layers at 64)
  uint64_t final_gamma = kNone, final_beta = kNone, head_w = kNone, head_b = kNone;
  uint64_t total = 0;
};

constexpr int kMaxModelLayers = 64;

ModelLayout LayoutOf(const ModelConfig& config);

// What a parameter is, with its name in the shipped weights format (kWq of layer 0 is
// "layers.0.attn.wq"; exported to JS by contract_bindings.cc). The order is the layout's.
// clang-format off
#define ATTN_PARAM_KINDS(X)                                                                   \
  X(kTokenEmbedding, "tokenEmbedding") X(kPositionEmbedding, "positionEmbedding")             \
  X(kCls, "cls") X(kLn1Gamma, "ln1.gamma") X(kLn1Beta, "ln1.beta") X(kWq, "attn.wq")          \
  X(kBq, "attn.bq") X(kWk, "attn.wk") X(kBk, "attn.bk") X(kWv, "attn.wv") X(kBv, "attn.bv")   \
  X(kWo, "attn.wo") X(kBo, "attn.bo") X(kLn2Gamma, "ln2.gamma") X(kLn2Beta, "ln2.beta")       \
  X(kW1, "ffn.w1") X(kB1, "ffn.b1") X(kW2, "ffn.w2") X(kB2, "ffn.b2")                         \
  X(kFinalGamma, "finalNorm.gamma") X(kFinalBeta, "finalNorm.beta") X(kHeadW, "head.w")       \
  X(kHeadB, "head.b")
// clang-format on
enum class ParamKind : int {
#define ATTN_PARAM_KIND_ENUMERATOR(name, js_name) name,
  ATTN_PARAM_KINDS(ATTN_PARAM_KIND_ENUMERATOR)
#undef ATTN_PARAM_KIND_ENUMERATOR
};

// Whether AdamW's weight decay applies: the matrices of the linear layers and the head, not
// embeddings, biases or norms.
inline bool Decays(ParamKind k) {
  return k == ParamKind::kWq || k == ParamKind::kWk || k == ParamKind::kWv || k == ParamKind::kWo ||
         k == ParamKind::kW1 || k == ParamKind::kW2 || k == ParamKind::kHeadW;
}

// Calls visit(kind, layer, rows, cols, offset) for every parameter in layout order: `layer` is
// -1 outside the blocks, `cols` 0 for a vector.
template <typename Visit>
void ForEachParameter(const ModelConfig& c, const ModelLayout& l, Visit visit);

// Seeded initial values: Xavier-uniform linear weights, zero biases, unit gains, embeddings
// uniform with standard deviation 1/√d_model.   params: [layout.total]
void InitParameters(const ModelConfig& config, const ModelLayout& layout, float* params);

}  // namespace attn

#include "train/model_config-inl.h"

#endif  // ATTENTION_WASM_SRC_TRAIN_MODEL_CONFIG_H_
