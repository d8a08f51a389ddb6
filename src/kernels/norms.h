// The one layer norm and the one RMS norm of the core, vectorised (Highway): the layer
// classes, the pretrained runner, the training model and the ONNX-style layerNorm/rmsNorm
// calls all normalise through these two (issue 33 A.3).
#ifndef ATTENTION_WASM_SRC_KERNELS_NORMS_H_
#define ATTENTION_WASM_SRC_KERNELS_NORMS_H_

namespace attn {

// out[r] = (x[r] − mean_r)·rstd_r·γ + β, rstd_r = 1/√(var_r + eps), var_r the biased variance
// of the row (PyTorch's LayerNorm; two passes, so large offsets stay accurate). γ/β null mean
// 1/0; mean and rstd, when not null, receive each row's statistics (the training backward and
// ONNX LayerNormalization's Mean and InvStdDev). out may equal x.
//   x, out: [rows, dim]   gamma, beta: [dim]   mean, rstd: [rows]
void LayerNorm(const float* x, int rows, int dim, const float* gamma, const float* beta, float eps,
               float* out, float* mean = nullptr, float* rstd = nullptr);

// out[r] = x[r] / √(mean(x[r]²) + eps)·γ (Llama's RMSNorm, ONNX RMSNormalization). γ null
// means 1. out may equal x.   x, out: [rows, dim]   gamma: [dim]
void RmsNorm(const float* x, int rows, int dim, const float* gamma, float eps, float* out);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_NORMS_H_
