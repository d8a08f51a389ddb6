// Layer normalisation over flattened trailing axes, in double, with its statistics.
#include "normalization.h"

#include <cmath>
#include <cstddef>

namespace attn {

void LayerNormWithStats(const float* x, int rows, int dim, const float* gamma, const float* beta,
                        double eps, float* out, float* mean, float* inv_std_dev) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<size_t>(r) * dim;
    float* o = out + static_cast<size_t>(r) * dim;
    // 1. Mean.
    double sum = 0.0;
    for (int c = 0; c < dim; ++c) sum += in[c];
    const double mu = sum / dim;
    // 2. Biased variance of x - mean (two passes: stable for large offsets).
    double squares = 0.0;
    for (int c = 0; c < dim; ++c) squares += (in[c] - mu) * (in[c] - mu);
    const double inv = 1.0 / std::sqrt(squares / dim + eps);
    // 3. Normalise, scale, shift (after the reads: out may equal x).
    for (int c = 0; c < dim; ++c) {
      const double g = gamma != nullptr ? gamma[c] : 1.0;
      const double b = beta != nullptr ? beta[c] : 0.0;
      o[c] = static_cast<float>((in[c] - mu) * inv * g + b);
    }
    if (mean != nullptr) mean[r] = static_cast<float>(mu);
    if (inv_std_dev != nullptr) inv_std_dev[r] = static_cast<float>(inv);
  }
}

}  // namespace attn
