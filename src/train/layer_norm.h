// Layer normalisation's backward, for training. The forward is kernels/norms.h's LayerNorm,
// asked for each row's mean and 1/std; the backward uses them (xhat = (x − mean)·rstd, g = dy·gamma):
//   dgamma = Σ_rows dy·xhat,  dbeta = Σ_rows dy,
//   dx = rstd·(g − mean(g) − xhat·mean(g·xhat))
#ifndef ATTENTION_WASM_SRC_TRAIN_LAYER_NORM_H_
#define ATTENTION_WASM_SRC_TRAIN_LAYER_NORM_H_

namespace attn {

constexpr float kLayerNormEps = 1e-5f;

// x, dy: [rows, dim]  mean, rstd: [rows] (from the forward)  gamma: [dim]
// dx: [rows, dim] (written)  dgamma, dbeta: [dim] (written)
void LayerNormBackward(const float* x, const float* mean, const float* rstd, const float* gamma,
                       const float* dy, int rows, int dim, float* dx, float* dgamma, float* dbeta);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_LAYER_NORM_H_
