#include "train/activation.h"

#include <cmath>

#include "kernels/gelu.h"

namespace attn {
void ActivationBackward(Activation activation, const float* x, const float* dy, size_t count,
                        float* dx) {
  if (activation == Activation::kRelu) {
    for (size_t i = 0; i < count; ++i) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
  } else {
    GeluBackward(x, dy, count, dx);
  }
}

}  // namespace attn
