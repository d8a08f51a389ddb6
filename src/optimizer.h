// Optimizers for training in wasm memory (issue 10): AdamW (bias-corrected, decoupled weight
// decay) and SGD with momentum, over flat parameter arrays, and the global gradient norm for
// clipping. Parameters, gradients and optimizer state are the caller's arrays.
#ifndef ATTENTION_WASM_SRC_OPTIMIZER_H_
#define ATTENTION_WASM_SRC_OPTIMIZER_H_

#include <cstdint>

namespace attn {

struct AdamWConfig {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.01f;  // decoupled: params -= lr·wd·params, not added to the gradient
};

// sqrt(Σ grads²) over several arrays, in double (clip by global norm: scale = min(1, c / norm)).
double GlobalGradNorm(const float* const* grads, const uint64_t* counts, int arrays);

// One AdamW step (step counts from 1) on `count` parameters:
//   g = grads·grad_scale;  m = β1·m + (1 − β1)·g;  v = β2·v + (1 − β2)·g²
//   params -= lr·( m / (1 − β1^step) / (sqrt(v / (1 − β2^step)) + eps) + wd·params )
//   params, m, v: [count] (updated)   grads: [count]
void AdamWStep(float* params, const float* grads, float* m, float* v, uint64_t count,
               const AdamWConfig& config, int step, float grad_scale);

// One SGD step: velocity = momentum·velocity + g;  params -= lr·velocity (g = grads·grad_scale).
//   velocity may be null when momentum is 0.
void SgdStep(float* params, const float* grads, float* velocity, uint64_t count, float lr,
             float momentum, float grad_scale);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_OPTIMIZER_H_
