// The pieces of a transformer block around attention: layer normalisation and the
// position-wise feed-forward network.
#ifndef ATTENTION_WASM_SRC_BLOCK_H_
#define ATTENTION_WASM_SRC_BLOCK_H_

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace attn {

// kGelu is the exact erf form (PyTorch's default, BERT); kGeluTanh the tanh approximation
// GPT-2 uses ("gelu_new"): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
// kSilu: x·σ(x) (Llama's gate).
// (The list makes the enum and the table the bindings export to JS.)
#define ATTN_ACTIVATIONS(X) X(kRelu, 0) X(kGelu, 1) X(kGeluTanh, 2) X(kSilu, 3)
enum class Activation : int {
#define ATTN_ACTIVATION_ENUMERATOR(name, value) name = value,
  ATTN_ACTIVATIONS(ATTN_ACTIVATION_ENUMERATOR)
#undef ATTN_ACTIVATION_ENUMERATOR
};

// x = act(x), elementwise.   x: [count]
void ApplyActivation(Activation activation, float* x, size_t count);

// out[r] = (x[r] - mean(x[r])) / sqrt(var(x[r]) + eps) · gamma + beta, over the last axis
// (biased variance, as PyTorch's LayerNorm). gamma/beta null mean 1/0. out may equal x.
//   x, out: [rows, dim]   gamma, beta: [dim]
void LayerNorm(const float* x, int rows, int dim, const float* gamma, const float* beta, float eps,
               float* out);

// out[r] = x[r] / sqrt(mean(x[r]²) + eps) · gamma (Llama's RMSNorm, ONNX RMSNormalization;
// sums in double). gamma null means 1. out may equal x.   x, out: [rows, dim]   gamma: [dim]
void RmsNorm(const float* x, int rows, int dim, const float* gamma, double eps, float* out);

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
