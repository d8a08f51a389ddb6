// The one activation table of the core (issue 33 A.3), vectorised (Highway): the layer
// classes, the pretrained runner and the training model all activate through Activate, with
// PyTorch's semantics (ReLU(NaN) = NaN). GELU's erf form is gelu.h's.
#ifndef ATTENTION_WASM_SRC_KERNELS_ACTIVATIONS_H_
#define ATTENTION_WASM_SRC_KERNELS_ACTIVATIONS_H_

#include <cstddef>

namespace attn {

// kRelu: max(0, x), NaN kept; kGelu the exact erf form (PyTorch's default, BERT); kGeluTanh the
// tanh approximation GPT-2 uses ("gelu_new"): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)));
// kSilu: x·σ(x) (Llama's gate).
// (The list makes the enum and the table the bindings export to JS.)
#define ATTN_ACTIVATIONS(X) X(kRelu, 0) X(kGelu, 1) X(kGeluTanh, 2) X(kSilu, 3)
enum class Activation : int {
#define ATTN_ACTIVATION_ENUMERATOR(name, value) name = value,
  ATTN_ACTIVATIONS(ATTN_ACTIVATION_ENUMERATOR)
#undef ATTN_ACTIVATION_ENUMERATOR
};

// y = act(x), elementwise. y may equal x.   x, y: [count]
void Activate(Activation activation, const float* x, size_t count, float* y);

// x = max(0, x) in place, NaN kept (as PyTorch's relu).   x: [count]
void ReluInPlace(float* x, size_t count);

// x = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), in place.   x: [count]
void GeluTanhInPlace(float* x, size_t count);

// x = x·σ(x) = x / (1 + exp(−x)), in place.   x: [count]
void SiluInPlace(float* x, size_t count);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_ACTIVATIONS_H_
