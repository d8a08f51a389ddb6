// MatMul (Highway, static dispatch). Eigen runs scalar under emcc, so the SIMD is here.
// Each output row is built as Σ_p a[i][p]·b[p][:]: a broadcast times a contiguous row of b,
// so every load is unit-stride. Blocks of 4 rows share each load of b.
#include "kernels/matmul.h"

#include <algorithm>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::Full128<float>;
using V = hn::Vec<D>;
constexpr int kLanes = 4;
constexpr int kRows = 4;

// out[r0 .. r0+n_rows) = a[r0 .. r0+n_rows)·b for the columns [c, c + 4).
//   a_rows: n_rows × [inner]   b: [inner, cols]   out_rows: n_rows × [cols]
HWY_INLINE void RowBlockColumns(const float* const a_rows[kRows], const float* b,
                                const float* bias, int inner, int cols, int c,
                                float* const out_rows[kRows]) {
  const D d;
  const V start = bias != nullptr ? hn::LoadU(d, bias + c) : hn::Zero(d);
  V acc0 = start, acc1 = start, acc2 = start, acc3 = start;
  const float* b_col = b + c;
  for (int p = 0; p < inner; ++p, b_col += cols) {
    const V bv = hn::LoadU(d, b_col);
    acc0 = hn::MulAdd(hn::Set(d, a_rows[0][p]), bv, acc0);
    acc1 = hn::MulAdd(hn::Set(d, a_rows[1][p]), bv, acc1);
    acc2 = hn::MulAdd(hn::Set(d, a_rows[2][p]), bv, acc2);
    acc3 = hn::MulAdd(hn::Set(d, a_rows[3][p]), bv, acc3);
  }
  hn::StoreU(acc0, d, out_rows[0] + c);
  hn::StoreU(acc1, d, out_rows[1] + c);
  hn::StoreU(acc2, d, out_rows[2] + c);
  hn::StoreU(acc3, d, out_rows[3] + c);
}

void MatMulImpl(const float* a, const float* b, const float* bias, int rows, int inner,
                int cols, float* out) {
  for (int r0 = 0; r0 < rows; r0 += kRows) {
    const int n_rows = std::min(kRows, rows - r0);
    const float* a_rows[kRows];
    float* out_rows[kRows];
    // A short last block repeats its last row, so the tile stays 4 high (it writes the same
    // values twice rather than branching in the inner loop).
    for (int r = 0; r < kRows; ++r) {
      const int row = r0 + std::min(r, n_rows - 1);
      a_rows[r] = a + static_cast<size_t>(row) * inner;
      out_rows[r] = out + static_cast<size_t>(row) * cols;
    }
    int c = 0;
    for (; c + kLanes <= cols; c += kLanes) RowBlockColumns(a_rows, b, bias, inner, cols, c, out_rows);
    // Scalar tail columns.
    for (; c < cols; ++c) {
      for (int r = 0; r < n_rows; ++r) {
        float sum = bias != nullptr ? bias[c] : 0.0f;
        for (int p = 0; p < inner; ++p) sum += a_rows[r][p] * b[static_cast<size_t>(p) * cols + c];
        out_rows[r][c] = sum;
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

void MatMul(const float* a, const float* b, const float* bias, int rows, int inner, int cols,
            float* out) {
  HWY_STATIC_DISPATCH(MatMulImpl)(a, b, bias, rows, inner, cols, out);
}

}  // namespace attn
