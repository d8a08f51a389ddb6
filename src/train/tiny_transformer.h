// A small trainable transformer (issue 10, "learning the matrices"): token and position
// embeddings, num_layers blocks of multi-head self-attention and a feed-forward network with
// residuals and layer norms (pre- or post-norm), and a per-token or a [CLS] classification
// head, trained by softmax cross-entropy with AdamW or SGD. One call runs forward, backward
// and the optimizer; everything lives in this object's wasm memory.
//
// Shapes: B sequences of L tokens; T = L (+1 with the [CLS] row at position 0); d = d_model.
#ifndef ATTENTION_WASM_SRC_TRAIN_TINY_TRANSFORMER_H_
#define ATTENTION_WASM_SRC_TRAIN_TINY_TRANSFORMER_H_

#include <cstdint>

#include "buffer.h"
#include "optimizer.h"
#include "status.h"
#include "train/model_activations.h"
#include "train/model_config.h"
#include "train/self_attention.h"

namespace attn {

struct ModelBatch {
  const int32_t* tokens = nullptr;   // [batch, len], each in [0, vocab_size)
  const int32_t* lengths = nullptr;  // [batch] in [1, len], or null (every token is real)
  const int32_t* targets = nullptr;  // [batch, len] (token head; negative: ignored) or [batch]
  int batch = 0;
  int len = 0;
};

struct OptimizerConfig {
  bool sgd = false;  // else AdamW
  AdamWConfig adamw;
  float momentum = 0.0f;   // SGD
  float clip_norm = 0.0f;  // > 0: scale the gradients so their global norm is at most this
};

struct StepResult {
  double loss = 0.0;
  int count = 0;    // positions (or sequences) in the loss
  int correct = 0;  // of them, predicted right
  double grad_norm = 0.0;
};

class TinyTransformer {
 public:
  // Call CheckModelConfig first; then Allocate() before anything else.
  explicit TinyTransformer(const ModelConfig& config);
  TinyTransformer(const TinyTransformer&) = delete;
  TinyTransformer& operator=(const TinyTransformer&) = delete;

  // Parameters, gradients and optimizer state, with seeded initial values. False when out of
  // memory.
  [[nodiscard]] bool Allocate();

  const ModelConfig& config() const { return config_; }
  const ModelLayout& layout() const { return layout_; }
  float* params() { return params_.data(); }
  float* grads() { return grads_.data(); }
  int step() const { return step_; }
  void ResetOptimizer();  // zero moments and step count (after the weights are replaced)

  // The forward pass; logits() and attention(l) are then valid until the next call.
  //   logits: [B, L, outputs] (token head) or [B, outputs] (classify)
  //   attention(l): [B, heads, T, T]
  Status Forward(const ModelBatch& batch);
  const float* logits() const { return acts_.logits(); }
  const float* attention(int layer) const { return acts_.layer(layer).p; }

  // Forward, loss and backward (grads() written); parameters unchanged.
  Status Gradients(const ModelBatch& batch, StepResult* result);
  // Forward and loss only.
  Status Evaluate(const ModelBatch& batch, StepResult* result);
  // Gradients, then one optimizer step.
  Status TrainStep(const ModelBatch& batch, const OptimizerConfig& optimizer, StepResult* result);

 private:
  Status CheckBatch(const ModelBatch& batch) const;
  Status Loss(const ModelBatch& batch, bool with_gradient, StepResult* result);
  Status Backward(const ModelBatch& batch);
  Status LayerForward(int l);
  Status LayerBackward(int l, float* d_out);
  void Embed(const ModelBatch& batch);
  void EmbedBackward(const ModelBatch& batch);
  void ApplyOptimizer(const OptimizerConfig& optimizer, float grad_scale);
  SelfAttentionShape AttentionShape() const;

  ModelConfig config_;
  ModelLayout layout_;
  Buffer<float> params_, grads_, moment1_, moment2_;
  Buffer<float> sinusoid_;  // [positions, d] the fixed table (sinusoidal positions only)
  int step_ = 0;
  ModelActivations acts_;
  Buffer<float> scratch_;  // the linear layers' panels
};

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_TINY_TRANSFORMER_H_
