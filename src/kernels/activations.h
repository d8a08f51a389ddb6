// The pretrained models' feed-forward activations, vectorised (Highway): GELU in its tanh form
// (GPT-2's "gelu_new") and SiLU (Llama's gate), beside the erf GELU of gelu.h. The other
// layers keep their double-precision scalar forms (their results are pinned bit for bit);
// these run 4.7 million times per forward of a 12-layer, 128-token model, where the scalar
// forms took about 10% of the time.
#ifndef ATTENTION_WASM_SRC_KERNELS_ACTIVATIONS_H_
#define ATTENTION_WASM_SRC_KERNELS_ACTIVATIONS_H_

#include <cstddef>

namespace attn {

// x = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), in place.   x: [count]
void GeluTanhInPlace(float* x, size_t count);

// x = x·σ(x) = x / (1 + exp(−x)), in place.   x: [count]
void SiluInPlace(float* x, size_t count);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_ACTIVATIONS_H_
