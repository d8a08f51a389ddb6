// out = aᵀ·b without transposing or packing anything: the weight gradient of a linear layer,
// dW = xᵀ·dy, where x and dy are [rows, ·] activations (rows = batch · sequence, the long
// axis, is summed over). A 4 × 8 register tile of out accumulates a[p][i0..i0+3] ⊗
// b[p][j0..j0+7] over p, reading both matrices row by row as they lie.
#ifndef ATTENTION_WASM_SRC_KERNELS_MATMUL_AT_H_
#define ATTENTION_WASM_SRC_KERNELS_MATMUL_AT_H_

namespace attn {

// out = aᵀ·b, each element summed over p in order (the same bits on any thread count).
//   a: [inner, m]  b: [inner, n]  out: [m, n] (written)
void MultiplyTransposedA(const float* a, int inner, int m, const float* b, int n, float* out);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_MATMUL_AT_H_
