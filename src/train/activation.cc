#include "train/activation.h"

#include <cmath>

namespace attn {
namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1/√(2π): the normal density's scale

float Phi(float x) { return 0.5f * (1.0f + std::erf(x * kInvSqrt2)); }

}  // namespace

void ActivationForward(Activation activation, const float* x, size_t count, float* y) {
  if (activation == Activation::kRelu) {
    for (size_t i = 0; i < count; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
  } else {
    for (size_t i = 0; i < count; ++i) y[i] = x[i] * Phi(x[i]);
  }
}

void ActivationBackward(Activation activation, const float* x, const float* dy, size_t count,
                        float* dx) {
  if (activation == Activation::kRelu) {
    for (size_t i = 0; i < count; ++i) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
  } else {
    for (size_t i = 0; i < count; ++i) {
      const float density = kInvSqrt2Pi * std::exp(-0.5f * x[i] * x[i]);
      dx[i] = dy[i] * (Phi(x[i]) + x[i] * density);
    }
  }
}

}  // namespace attn
