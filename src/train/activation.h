// The derivatives of the feed-forward network's activations:
//   ReLU: max(0, x), derivative 1 where x > 0, else 0
//   GELU (exact, PyTorch's default): x·Φ(x) = 0.5·x·(1 + erf(x/√2)), derivative Φ(x) + x·φ(x)
#ifndef ATTENTION_WASM_SRC_TRAIN_ACTIVATION_H_
#define ATTENTION_WASM_SRC_TRAIN_ACTIVATION_H_

#include <cstddef>

#include "block.h"

namespace attn {

// The forward is kernels/activations.h's Activate (the core's one table).

// dx = dy·act'(x), with x the pre-activation.   x, dy, dx: [count]
void ActivationBackward(Activation activation, const float* x, const float* dy, size_t count,
                        float* dx);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_ACTIVATION_H_
