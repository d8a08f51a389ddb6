// The transformer encoder layer: multi-head self-attention and a feed-forward network,
// each wrapped in a residual connection and a layer norm.
//   post-norm (original Transformer): x1 = LN1(x + MHA(x)),    y = LN2(x1 + FFN(x1))
//   pre-norm  (GPT-2 and later):      x1 = x + MHA(LN1(x)),    y = x1 + FFN(LN2(x1))
#ifndef ATTENTION_WASM_SRC_ENCODER_LAYER_H_
#define ATTENTION_WASM_SRC_ENCODER_LAYER_H_

#include "block.h"
#include "multi_head.h"
#include "status.h"

namespace attn {

struct EncoderLayerRequest {
  // Self-attention: attention.query is x [batch, seq, d_model]; key, value and out are set
  // by EncoderLayerForward. Masks, key lengths and causal settings are read from it.
  MultiHeadRequest attention;
  bool pre_norm = false;
  float eps = 1e-5f;
  const float* ln1_gamma = nullptr;  // [d_model]
  const float* ln1_beta = nullptr;
  const float* ln2_gamma = nullptr;
  const float* ln2_beta = nullptr;
  int d_ff = 0;
  const float* w1 = nullptr;         // [d_model, d_ff]
  const float* b1 = nullptr;         // [d_ff]
  const float* w2 = nullptr;         // [d_ff, d_model]
  const float* b2 = nullptr;         // [d_model]
  const float* w1_panels = nullptr;  // w1 and w2 as MatMul's panels (used instead when given)
  const float* w2_panels = nullptr;
  Activation activation = Activation::kRelu;
  float* out = nullptr;  // [batch, seq, d_model]
};

Status EncoderLayerForward(const EncoderLayerRequest& request);

// Bytes of scratch EncoderLayerForward allocates at its peak, at most.
uint64_t EncoderLayerScratchBytes(const EncoderLayerRequest& request);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_ENCODER_LAYER_H_
