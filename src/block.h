// The pieces of a transformer block around attention: the position-wise feed-forward network,
// the residual add and set pooling (normalisation: kernels/norms.h).
#ifndef ATTENTION_WASM_SRC_BLOCK_H_
#define ATTENTION_WASM_SRC_BLOCK_H_

#include <cstddef>
#include <cstdint>

#include "kernels/activations.h"
#include "kernels/norms.h"
#include "status.h"

namespace attn {

// The activation table (Activation, Activate) and the norms (LayerNorm, RmsNorm) live in
// kernels/activations.h and kernels/norms.h: one of each for the whole core.

// out = act(x·w1 + b1)·w2 + b2, with GELU the exact erf form (PyTorch's default).
//   x: [rows, d_model]  w1: [d_model, d_ff]  b1: [d_ff]  w2: [d_ff, d_model]  b2: [d_model]
//   out: [rows, d_model]; biases may be null
//   w1_panels, w2_panels: w1 and w2 as MatMul's panels (a layer stores them so), used instead
//   of w1, w2 when given
// kTooLarge when the hidden layer [rows, d_ff] would pass kMaxBufferBytes; kOutOfMemory when
// it cannot be allocated.
Status FeedForward(const float* x, int rows, int d_model, int d_ff, const float* w1,
                   const float* b1, const float* w2, const float* b2, Activation activation,
                   float* out, const float* w1_panels = nullptr, const float* w2_panels = nullptr);

// Bytes of scratch FeedForward allocates at its peak, at most (`packed`: both matrices are
// given as panels, so none are packed).
uint64_t FeedForwardScratchBytes(int rows, int d_model, int d_ff, bool packed = false);

// out = a + b elementwise (the residual connection).   a, b, out: [count]
void AddInto(const float* a, const float* b, int count, float* out);

enum class PoolOp : int { kSum = 0, kMean = 1, kMax = 2 };

// Deep Sets pooling over the set axis: out[s] = ⊕_i x[s][i] for ⊕ in {sum, mean, max}.
//   x: [sets, set_size, dim]   out: [sets, dim]   (set_size >= 1 for mean and max)
void SetPool(const float* x, int sets, int set_size, int dim, PoolOp op, float* out);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_BLOCK_H_
