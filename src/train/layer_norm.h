// Layer normalisation for training: the forward keeps each row's mean and 1/std, and the
// backward uses them (xhat = (x − mean)·rstd, g = dy·gamma):
//   dgamma = Σ_rows dy·xhat,  dbeta = Σ_rows dy,
//   dx = rstd·(g − mean(g) − xhat·mean(g·xhat))
#ifndef ATTENTION_WASM_SRC_TRAIN_LAYER_NORM_H_
#define ATTENTION_WASM_SRC_TRAIN_LAYER_NORM_H_

namespace attn {

constexpr float kLayerNormEps = 1e-5f;

// out = (x − mean)·rstd·gamma + beta per row, rstd = 1/√(biased variance + eps), as
// attn::LayerNorm.   x, out: [rows, dim]  gamma, beta: [dim]  mean, rstd: [rows] (written)
void LayerNormTrainForward(const float* x, int rows, int dim, const float* gamma, const float* beta,
                           float eps, float* out, float* mean, float* rstd);

// x, dy: [rows, dim]  mean, rstd: [rows] (from the forward)  gamma: [dim]
// dx: [rows, dim] (written)  dgamma, dbeta: [dim] (written)
void LayerNormBackward(const float* x, const float* mean, const float* rstd, const float* gamma,
                       const float* dy, int rows, int dim, float* dx, float* dgamma, float* dbeta);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_LAYER_NORM_H_
