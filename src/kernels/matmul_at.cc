// MultiplyTransposedA (Highway, static dispatch).
#include "kernels/matmul_at.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "parallel.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"

// out[i0..i0+3][j0..j0+7] = Σ_p a[p][i0 + r] · b[p][j0..j0+7]: 8 accumulators, 2 loads of b
// and 4 splat loads of a per p (the same register budget as AccumulateTile4x8).
HWY_INLINE void TileAtB(const float* a, int m, const float* b, int n, int inner, float* out) {
  const D d;
  V acc[8];
  for (V& v : acc) v = hn::Zero(d);
  ATTN_NO_UNROLL
  for (int p = 0; p < inner; ++p, a += m, b += n) {
    const V lo = hn::LoadU(d, b);
    const V hi = hn::LoadU(d, b + kLanes);
    for (int r = 0; r < 4; ++r) {
      const V x = hn::Set(d, a[r]);
      acc[2 * r] = Fma(x, lo, acc[2 * r]);
      acc[2 * r + 1] = Fma(x, hi, acc[2 * r + 1]);
    }
  }
  for (int r = 0; r < 4; ++r) {
    hn::StoreU(acc[2 * r], d, out + static_cast<size_t>(r) * n);
    hn::StoreU(acc[2 * r + 1], d, out + static_cast<size_t>(r) * n + kLanes);
  }
}

// Rows i_begin .. i_end - 1 of out: whole tiles, then the edges element by element.
void MultiplyTransposedAImpl(const float* a, int inner, int m, const float* b, int n, float* out,
                             int i_begin, int i_end) {
  const int i_tiles = i_begin + (i_end - i_begin) / 4 * 4, j_tiles = n / 8 * 8;
  for (int i0 = i_begin; i0 < i_tiles; i0 += 4) {
    for (int j0 = 0; j0 < j_tiles; j0 += 8) {
      TileAtB(a + i0, m, b + j0, n, inner, out + static_cast<size_t>(i0) * n + j0);
    }
  }
  auto element = [&](int i, int j) {
    float sum = 0.0f;
    for (int p = 0; p < inner; ++p)
      sum += a[static_cast<size_t>(p) * m + i] * b[static_cast<size_t>(p) * n + j];
    out[static_cast<size_t>(i) * n + j] = sum;
  };
  for (int i = i_begin; i < i_tiles; ++i)
    for (int j = j_tiles; j < n; ++j) element(i, j);
  for (int i = i_tiles; i < i_end; ++i)
    for (int j = 0; j < n; ++j) element(i, j);
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

void MultiplyTransposedA(const float* a, int inner, int m, const float* b, int n, float* out) {
  // Blocks of 16 rows of out spread over the threads; each element is one task's sum.
  constexpr int kRowsPerTask = 16;
  auto block = [&](int task, int) {
    const int i0 = task * kRowsPerTask;
    HWY_STATIC_DISPATCH(MultiplyTransposedAImpl)
    (a, inner, m, b, n, out, i0, std::min(m, i0 + kRowsPerTask));
  };
  const uint64_t work = 2ull * inner * m * n;
  ParallelForEach((m + kRowsPerTask - 1) / kRowsPerTask, work, block);
}

}  // namespace attn
