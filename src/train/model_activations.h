// What the training model keeps from its forward pass for the backward, and the backward's
// temporaries: views into one arena sized for the largest batch seen (no allocation once a
// size has been seen). rows = B·T.
#ifndef ATTENTION_WASM_SRC_TRAIN_MODEL_ACTIVATIONS_H_
#define ATTENTION_WASM_SRC_TRAIN_MODEL_ACTIVATIONS_H_

#include <cstdint>

#include "buffer.h"
#include "train/model_config.h"

namespace attn {

// One block's saved tensors. pre-norm: h = x + Wo(attn(LN1(x))), out = h + FFN(LN2(h));
// post-norm: h = LN1(x + Wo(attn(x))), out = LN2(h + FFN(h)).
struct LayerActivations {
  float* x;              // [rows, d] the block's input
  float* a_in;           // [rows, d] attention's input (LN1(x), or x itself)
  float *q, *k, *v;      // [rows, d]
  float* p;              // [B, heads, T, T] attention weights
  float* o;              // [rows, d] heads concatenated
  float* r1;             // [rows, d] x + Wo·o
  float* h;              // [rows, d] (r1, or LN1(r1))
  float* f_in;           // [rows, d] the FFN's input (LN2(h), or h itself)
  float *f_pre, *f_act;  // [rows, d_ff] before and after the activation
  float* r2;             // [rows, d] h + FFN
  float *mean1, *rstd1;  // [rows] LN1's statistics (of x, or of r1)
  float *mean2, *rstd2;  // [rows] LN2's statistics (of h, or of r2)
  float* out;            // [rows, d] (r2, or LN2(r2)): the next block's x
};

class ModelActivations {
 public:
  // Views for B sequences of T rows. False when out of memory (or past kMaxBufferBytes).
  [[nodiscard]] bool Reserve(const ModelConfig& config, int batch, int seq);

  LayerActivations& layer(int l) { return layers_[l]; }
  const LayerActivations& layer(int l) const { return layers_[l]; }
  const float* logits() const { return logits_; }

  int batch = 0, seq = 0, rows = 0, head_rows = 0;     // head_rows: B·L (token) or B (classify)
  float* final_in = nullptr;                           // [rows, d] the last block's output
  float* final_out = nullptr;                          // [rows, d] LN_f(final_in), or final_in
  float *final_mean = nullptr, *final_rstd = nullptr;  // [rows]
  float* head_in = nullptr;                            // [head_rows, d] rows the head reads
  float* logits_ = nullptr;                            // [head_rows, outputs]
  float* d_logits = nullptr;                           // [head_rows, outputs]
  // The backward's temporaries.
  float* d_x = nullptr;                  // [rows, d] gradient flowing down the residual
  float *d_a = nullptr, *d_b = nullptr;  // [rows, d]
  float *dq = nullptr, *dk = nullptr, *dv = nullptr;  // [rows, d]
  float *d_f1 = nullptr, *d_f2 = nullptr;             // [rows, d_ff]
  int32_t* key_limits = nullptr;                      // [B]
  int32_t* targets = nullptr;                         // [head_rows] (padding: -1)
  int32_t* token_ids = nullptr;                       // [B·L]

 private:
  LayerActivations layers_[kMaxModelLayers];
  Buffer<float> arena_;
  Buffer<int32_t> ints_;
};

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_MODEL_ACTIVATIONS_H_
