// The architecture descriptor of a pretrained transformer: the few choices in which BERT,
// DistilBERT, GPT-2 and Llama differ (issue 21). One runner (runner.h) executes any
// descriptor; the JS loader turns a Hugging Face config.json into one.
//
// Shapes: B sequences of T tokens, rows = B·T, d = d_model, V = vocab_size.
#ifndef ATTENTION_WASM_SRC_MODEL_DESCRIPTOR_H_
#define ATTENTION_WASM_SRC_MODEL_DESCRIPTOR_H_

#include <cstdint>

#include "block.h"
#include "status.h"

namespace attn {

// More blocks than any published model has; bounds the weight table.
constexpr int kMaxLayers = 1024;

// kLayerNorm: (x − mean)/√(var + eps)·γ + β; kRmsNorm: x/√(mean(x²) + eps)·γ (Llama).
enum class NormKind : int { kLayerNorm = 0, kRmsNorm = 1 };

struct ModelDescriptor {
  int vocab_size = 0;       // V: rows of the word embeddings (and columns of the LM logits)
  int max_positions = 0;    // rows of the learned position table (0: no position table)
  int type_vocab_size = 0;  // rows of the token-type table (0: none)
  int d_model = 0;
  int num_heads = 0;
  int num_kv_heads = 0;  // = num_heads, or fewer for grouped-query attention
  int num_layers = 0;
  int d_ff = 0;                               // the feed-forward network's hidden width
  bool pre_norm = false;                      // x + f(norm(x)) (GPT-2); else norm(x + f(x)) (BERT)
  bool embedding_norm = false;                // a norm after the embedding sum (BERT, DistilBERT)
  bool final_norm = false;                    // a norm after the last block (GPT-2's ln_f)
  bool causal = false;                        // decoder: query i sees keys j <= i
  bool attention_bias = true;                 // q, k, v and output projections have biases
  bool mlp_bias = true;                       // the feed-forward layers have biases
  Activation activation = Activation::kGelu;  // the feed-forward network's
  bool gated_ffn = false;  // down(act(x·W_gate) ⊙ (x·W_up)) (Llama's SwiGLU with kSilu)
  int rotary_dim = 0;      // > 0: rotary embedding of the first rotary_dim columns of each
                           // query and key head (Llama); 0: none
  double rotary_base = 10000.0;
  bool rotary_interleaved = false;
  // rope_scaling (see RotarySpec): 0 none, 1 linear, 2 llama3, with its parameters.
  int rope_scaling = 0;
  double rope_factor = 1.0, rope_low_freq_factor = 1.0, rope_high_freq_factor = 4.0;
  int rope_original_max = 8192;
  int sliding_window = 0;  // > 0: query i sees keys j > i - sliding_window only (Mistral's
                           // sliding_window, with the causal rule); 0: every earlier key
  // The matrices as bfloat16 panels (a bfloat16 checkpoint's values kept in half the bytes;
  // the products widen them exactly, see kernels/matmul.h Panels); else float32.
  bool bf16_matrices = false;
  NormKind norm = NormKind::kLayerNorm;
  float norm_eps = 1e-5f;
  // Masked- or causal-LM head: logits = transform(x)·D + bias, D: [d, V].
  bool lm_head = false;
  bool lm_transform = false;  // BERT/DistilBERT: t = norm(act(x·W + b)) first
  bool lm_bias = false;       // a [V] bias on the logits
  Activation lm_activation = Activation::kGelu;
};

// kOk, or the first problem: kNegativeDimension for a size below 1 (0 where allowed),
// kBadHeadCount when d_model does not divide into heads or heads into kv heads,
// kBadArgument for a non-positive eps or rotary base, more than kMaxLayers blocks, or a
// rotary_dim that is odd or wider than a head, kTooLarge when a weight or the whole set passes 2 GiB.
Status CheckDescriptor(const ModelDescriptor& descriptor);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_MODEL_DESCRIPTOR_H_
