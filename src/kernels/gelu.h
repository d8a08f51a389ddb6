// The exact (erf) GELU and its derivative, vectorised (Highway) for the training model's
// feed-forward layers:
//   gelu(x) = x·Φ(x),  Φ(x) = 0.5·(1 + erf(x/√2)),  gelu'(x) = Φ(x) + x·φ(x)
// erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, so Φ is within 7.5e-8).
#ifndef ATTENTION_WASM_SRC_KERNELS_GELU_H_
#define ATTENTION_WASM_SRC_KERNELS_GELU_H_

#include <cstddef>

namespace attn {

// y = gelu(x).   x, y: [count]
void GeluForward(const float* x, size_t count, float* y);

// dx = dy·gelu'(x).   x, dy, dx: [count]
void GeluBackward(const float* x, const float* dy, size_t count, float* dx);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_GELU_H_
