// Dense matrix product for projections (X·W), row-vector convention.
#ifndef ATTENTION_WASM_SRC_KERNELS_MATMUL_H_
#define ATTENTION_WASM_SRC_KERNELS_MATMUL_H_

namespace attn {

// out = a·b
//   a: [rows, inner]  b: [inner, cols]  out: [rows, cols]   (all contiguous, row-major)
void MatMul(const float* a, const float* b, int rows, int inner, int cols, float* out);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_MATMUL_H_
