// The backward of the block functions the JS API exposes one by one (attn.layerNormBackward,
// attn.feedForwardBackward), for learners and for gradient checks step by step. Each
// recomputes what its forward would have kept (the row statistics, the hidden layer).
#ifndef ATTENTION_WASM_SRC_TRAIN_BLOCK_BACKWARD_H_
#define ATTENTION_WASM_SRC_TRAIN_BLOCK_BACKWARD_H_

#include "block.h"
#include "status.h"

namespace attn {

// Layer norm's backward from its input.   x, dy, dx: [rows, dim]  gamma: [dim] or null (1)
// dgamma, dbeta: [dim] (written). kOutOfMemory when the statistics cannot be allocated.
Status LayerNormBackwardFromInput(const float* x, int rows, int dim, const float* gamma, float eps,
                                  const float* dy, float* dx, float* dgamma, float* dbeta);

// The FFN's backward, act(x·w1 + b1)·w2 + b2:   x, dy, dx: [rows, d_model]
//   w1: [d_model, d_ff]  b1: [d_ff] or null  w2: [d_ff, d_model]
//   dw1: [d_model, d_ff]  db1: [d_ff]  dw2: [d_ff, d_model]  db2: [d_model] (all written)
Status FeedForwardBackward(const float* x, int rows, int d_model, int d_ff, const float* w1,
                           const float* b1, const float* w2, Activation activation, const float* dy,
                           float* dx, float* dw1, float* db1, float* dw2, float* db2);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_BLOCK_BACKWARD_H_
