#include "optimizer.h"

#include <cmath>

namespace attn {

double GlobalGradNorm(const float* const* grads, const uint64_t* counts, int arrays) {
  double sum = 0.0;
  for (int a = 0; a < arrays; ++a) {
    for (uint64_t i = 0; i < counts[a]; ++i) sum += static_cast<double>(grads[a][i]) * grads[a][i];
  }
  return std::sqrt(sum);
}

void AdamWStep(float* params, const float* grads, float* m, float* v, uint64_t count,
               const AdamWConfig& c, int step, float grad_scale) {
  const double correction1 = 1.0 - std::pow(static_cast<double>(c.beta1), step);
  const double correction2 = 1.0 - std::pow(static_cast<double>(c.beta2), step);
  for (uint64_t i = 0; i < count; ++i) {
    const float g = grads[i] * grad_scale;
    m[i] = c.beta1 * m[i] + (1.0f - c.beta1) * g;
    v[i] = c.beta2 * v[i] + (1.0f - c.beta2) * g * g;
    const double m_hat = m[i] / correction1;
    const double v_hat = v[i] / correction2;
    const double update = m_hat / (std::sqrt(v_hat) + c.eps) + c.weight_decay * params[i];
    params[i] = static_cast<float>(params[i] - c.lr * update);
  }
}

void SgdStep(float* params, const float* grads, float* velocity, uint64_t count, float lr,
             float momentum, float grad_scale) {
  for (uint64_t i = 0; i < count; ++i) {
    float g = grads[i] * grad_scale;
    if (velocity != nullptr) g = velocity[i] = momentum * velocity[i] + g;
    params[i] -= lr * g;
  }
}

}  // namespace attn
