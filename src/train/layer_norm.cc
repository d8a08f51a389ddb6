#include "train/layer_norm.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace attn {

void LayerNormBackward(const float* x, const float* mean, const float* rstd, const float* gamma,
                       const float* dy, int rows, int dim, float* dx, float* dgamma, float* dbeta) {
  std::fill(dgamma, dgamma + dim, 0.0f);
  std::fill(dbeta, dbeta + dim, 0.0f);
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<size_t>(r) * dim;
    const float* g_out = dy + static_cast<size_t>(r) * dim;
    float* g_in = dx + static_cast<size_t>(r) * dim;
    // 1. The parameters' gradients, and the two row means the input's gradient needs.
    float mean_g = 0.0f, mean_gx = 0.0f;
    for (int c = 0; c < dim; ++c) {
      const float xhat = (in[c] - mean[r]) * rstd[r];
      const float g = g_out[c] * gamma[c];
      dgamma[c] += g_out[c] * xhat;
      dbeta[c] += g_out[c];
      mean_g += g;
      mean_gx += g * xhat;
    }
    mean_g /= dim;
    mean_gx /= dim;
    // 2. dx: the gradient through the normalisation (mean and variance depend on x too).
    for (int c = 0; c < dim; ++c) {
      const float xhat = (in[c] - mean[r]) * rstd[r];
      g_in[c] = rstd[r] * (g_out[c] * gamma[c] - mean_g - xhat * mean_gx);
    }
  }
}

}  // namespace attn
