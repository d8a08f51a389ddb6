// Layer normalisation over the trailing axes of a tensor, with the per-row statistics ONNX's
// LayerNormalization returns (its Mean and InvStdDev outputs).
#ifndef ATTENTION_WASM_SRC_NORMALIZATION_H_
#define ATTENTION_WASM_SRC_NORMALIZATION_H_

namespace attn {

// out[r] = (x[r] - mean_r) · inv_std_r · gamma + beta with mean_r = mean(x[r]) and
// inv_std_r = 1/sqrt(var_r + eps), var_r the biased variance (two passes, sums and the
// normalisation in double). gamma/beta null mean 1/0; mean and inv_std_dev, when not null,
// receive the statistics. A "row" is everything from the normalised axis on, flattened.
//   x, out: [rows, dim] (out may equal x)   gamma, beta: [dim]
//   mean, inv_std_dev: [rows]
void LayerNormWithStats(const float* x, int rows, int dim, const float* gamma, const float* beta,
                        double eps, float* out, float* mean, float* inv_std_dev);

// RMS normalisation is block.h's RmsNorm (the same formula, in double).

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_NORMALIZATION_H_
