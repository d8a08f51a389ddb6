// Dense matrix product for projections (X·W), row-vector convention.
#ifndef ATTENTION_WASM_SRC_KERNELS_MATMUL_H_
#define ATTENTION_WASM_SRC_KERNELS_MATMUL_H_

namespace attn {

// out = a·b + bias (bias added to every row; null for none)
//   a: [rows, inner]  b: [inner, cols]  bias: [cols]  out: [rows, cols]
//   (row-major)
void MatMul(const float* a, const float* b, const float* bias, int rows,
            int inner, int cols, float* out);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_MATMUL_H_
