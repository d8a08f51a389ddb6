#include "train/cross_entropy.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace attn {

CrossEntropyResult SoftmaxCrossEntropy(const float* logits, const int32_t* targets, int rows,
                                       int classes, float* d_logits) {
  CrossEntropyResult result;
  for (int r = 0; r < rows; ++r) result.count += targets[r] >= 0 ? 1 : 0;
  const float inv_count = result.count > 0 ? 1.0f / result.count : 0.0f;
  double loss_sum = 0.0;
  for (int r = 0; r < rows; ++r) {
    const float* z = logits + static_cast<size_t>(r) * classes;
    float* dz = d_logits != nullptr ? d_logits + static_cast<size_t>(r) * classes : nullptr;
    const int target = targets[r];
    if (target < 0) {
      if (dz != nullptr) std::fill(dz, dz + classes, 0.0f);
      continue;
    }
    // 1. Log-sum-exp from the row's max (stable), and the first argmax.
    int argmax = 0;
    for (int c = 1; c < classes; ++c) argmax = z[c] > z[argmax] ? c : argmax;
    const float max = z[argmax];
    double sum = 0.0;
    for (int c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(z[c]) - max);
    const double lse = max + std::log(sum);
    loss_sum += lse - z[target];
    result.correct += argmax == target ? 1 : 0;
    // 2. The gradient: softmax minus the one-hot target, over the counted rows.
    if (dz != nullptr) {
      for (int c = 0; c < classes; ++c) {
        const float p = static_cast<float>(std::exp(static_cast<double>(z[c]) - lse));
        dz[c] = (p - (c == target ? 1.0f : 0.0f)) * inv_count;
      }
    }
  }
  result.loss = result.count > 0 ? loss_sum / result.count : 0.0;
  return result;
}

}  // namespace attn
