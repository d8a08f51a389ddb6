// The forward pass of a pretrained transformer, for any ModelDescriptor (issue 21):
// embeddings → num_layers blocks (multi-head attention and a feed-forward network, each with
// its residual and norm, before or after) → final norm → LM head. The weights live in one
// buffer, the matrices packed as panels once, when loaded (SetWeight); a forward pass packs
// nothing.
//
// Shapes: B sequences of T tokens (right-padded; lengths give the real ones), rows = B·T,
// d = d_model, H = num_heads, V = vocab_size.
#ifndef ATTENTION_WASM_SRC_MODEL_RUNNER_H_
#define ATTENTION_WASM_SRC_MODEL_RUNNER_H_

#include <cstdint>

#include "buffer.h"
#include "model/descriptor.h"
#include "model/weights.h"
#include "status.h"

namespace attn {

struct ModelInput {
  const int32_t* ids = nullptr;          // [B, T], each in [0, V)
  const int32_t* positions = nullptr;    // [B, T], each in [0, max_positions) (if any table)
  const int32_t* token_types = nullptr;  // [B, T] in [0, type_vocab_size), or null: all 0
  const int32_t* lengths = nullptr;      // [B] in [1, T], or null: every token is real
  int batch = 0;
  int len = 0;
  bool hidden_states = false;  // keep every layer's output
  bool attentions = false;     // keep every layer's attention weights (the step-by-step path)
  bool logits = true;          // run the LM head (when the descriptor has one)
};

class PretrainedModel {
 public:
  // Call CheckDescriptor first; then Allocate().
  explicit PretrainedModel(const ModelDescriptor& descriptor);
  PretrainedModel(const PretrainedModel&) = delete;
  PretrainedModel& operator=(const PretrainedModel&) = delete;

  // The parameter buffer (zeros) and the weight table. False when out of memory.
  [[nodiscard]] bool Allocate();

  const ModelDescriptor& descriptor() const { return m_; }
  int weight_count() const { return static_cast<int>(table_.size()); }
  const WeightEntry& weight(int index) const { return table_[index]; }
  uint64_t parameter_floats() const { return params_.size(); }

  // Fills table entry `index` from src, a [rows, cols] tensor with row stride src_stride
  // (transposed: src is [cols, rows], as PyTorch's nn.Linear stores a weight [out, in]).
  void SetWeight(int index, const float* src, int src_stride, bool transposed);

  // Runs the model; the outputs below are then valid until the next call.
  Status Forward(const ModelInput& input);
  // [num_layers + 1, rows, d]: the embeddings, then each block's output; the last is after
  // the final norm when there is one (as Hugging Face reports them).
  const float* hidden_states() const { return hidden_.data(); }
  const float* output() const { return output_; }  // [rows, d] the last hidden state
  // [num_layers, B, H, T, T]
  const float* attentions() const { return attn_.data(); }
  const float* logits() const { return logits_.data(); }  // [rows, V]

  // Frees the outputs and the activations (the caller has read what it wanted): a model
  // between calls holds only its weights.
  void ReleaseOutputs();

  // Bytes Forward allocates for these sizes at its peak, at most.
  uint64_t ForwardBytes(int batch, int len, bool hidden_states, bool attentions,
                        bool logits) const;

 private:
  Status CheckInput(const ModelInput& input) const;
  const float* Weight(WeightKind kind, int layer = -1) const;
  void Embed(const ModelInput& input, float* x) const;
  Status Block(int layer, const ModelInput& input, float* x, float* attention_weights);
  Status LmHead(const float* x, int rows);

  ModelDescriptor m_;
  Buffer<WeightEntry> table_;
  Buffer<float> params_;
  Buffer<float> hidden_, attn_, logits_;
  Buffer<float> x_, normed_, sub_;  // the running state and a block's scratch
  const float* output_ = nullptr;
};

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_MODEL_RUNNER_H_
