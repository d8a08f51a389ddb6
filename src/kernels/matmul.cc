// MatMul (Highway, static dispatch). Eigen runs scalar under emcc, so the SIMD
// is here.
//
// The loop nest:
//   1. pack b into panels of 8 columns ([inner, 8] each, zero-padded), so the
//   micro-kernel
//      loads two whole vectors per step from one contiguous, L1-resident
//      stream;
//   2. for each block of 64 rows of a, for each panel, for each 4 rows of the
//   block:
//        out[4 × 8] = bias + Σ_p a[r][p]·panel[p][:]     (8 accumulators, 11
//        live vectors)
//      Rows of a are re-read from L2 per panel; each panel is reused by 16 row
//      quads.
// Register tile 4 × 8 as in the fused attention kernel: V8 has 16 xmm
// registers.
#include "kernels/matmul.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"
#include "kernels/tile_4x8-inl.h"

constexpr int kRows = kTileRows;  // rows of a per register tile
constexpr int kCols = kTileCols;  // columns of b per panel
constexpr int kRowBlock =
    16 * kRows;  // rows of a that share one pass over the panels

// Step 1. panels[t][p][c] = b[p][t·8 + c], zero past cols; bias likewise in
// [tiles, 8].
//   b: [inner, cols]   panels: [ceil(cols / 8), inner, 8]
void PackPanels(const float* b, const float* bias, int inner, int cols,
                float* panels, float* bias_panels) {
  const int tiles = (cols + kCols - 1) / kCols;
  for (int t = 0; t < tiles; ++t) {
    const int c0 = t * kCols;
    const int width = std::min(kCols, cols - c0);
    float* panel = panels + static_cast<size_t>(t) * inner * kCols;
    for (int p = 0; p < inner; ++p) {
      float* dst = panel + static_cast<size_t>(p) * kCols;
      std::memcpy(dst, b + static_cast<size_t>(p) * cols + c0,
                  sizeof(float) * width);
      std::fill(dst + width, dst + kCols, 0.0f);
    }
    for (int c = 0; c < kCols; ++c)
      bias_panels[t * kCols + c] =
          (bias != nullptr && c < width) ? bias[c0 + c] : 0.0f;
  }
}

// Step 2. out[r][0..7] = bias + a_rows[r] · panel over `inner`, for r = 0..3.
//   a_rows: 4 × [inner]   panel: [inner, 8]   out: 4 × [8] (row stride
//   out_stride)
HWY_INLINE void MicroKernel(const float* const a_rows[kRows],
                            const float* panel, const float* bias8, int inner,
                            float* out, int out_stride) {
  const D d;
  V acc[2 * kRows];
  for (int r = 0; r < kRows; ++r) {
    acc[2 * r] = hn::LoadU(d, bias8);
    acc[2 * r + 1] = hn::LoadU(d, bias8 + kLanes);
  }
  AccumulateTile4x8(a_rows, panel, inner, acc);
  for (int r = 0; r < kRows; ++r) {
    hn::StoreU(acc[2 * r], d, out + r * out_stride);
    hn::StoreU(acc[2 * r + 1], d, out + r * out_stride + kLanes);
  }
}

void MatMulImpl(const float* a, const float* b, const float* bias, int rows,
                int inner, int cols, float* out) {
  const int tiles = (cols + kCols - 1) / kCols;
  std::vector<float> panels(static_cast<size_t>(tiles) * inner * kCols);
  std::vector<float> bias_panels(static_cast<size_t>(tiles) * kCols);
  PackPanels(b, bias, inner, cols, panels.data(), bias_panels.data());
  alignas(16) float
      edge[kRows * kCols];  // the last panel's tile when cols % 8 != 0
  for (int r_block = 0; r_block < rows; r_block += kRowBlock) {
    const int block_end = std::min(rows, r_block + kRowBlock);
    for (int t = 0; t < tiles; ++t) {
      const float* panel =
          panels.data() + static_cast<size_t>(t) * inner * kCols;
      const int c0 = t * kCols;
      const int width = std::min(kCols, cols - c0);
      for (int r0 = r_block; r0 < block_end; r0 += kRows) {
        const int n_rows = std::min(kRows, block_end - r0);
        const float* a_rows[kRows];
        for (int r = 0; r < kRows;
             ++r) {  // a short last quad repeats its last row
          a_rows[r] =
              a + static_cast<size_t>(r0 + std::min(r, n_rows - 1)) * inner;
        }
        if (width == kCols && n_rows == kRows) {
          MicroKernel(a_rows, panel, bias_panels.data() + t * kCols, inner,
                      out + static_cast<size_t>(r0) * cols + c0, cols);
          continue;
        }
        MicroKernel(a_rows, panel, bias_panels.data() + t * kCols, inner, edge,
                    kCols);
        for (int r = 0; r < n_rows; ++r) {
          std::memcpy(out + static_cast<size_t>(r0 + r) * cols + c0,
                      edge + r * kCols, sizeof(float) * width);
        }
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

void MatMul(const float* a, const float* b, const float* bias, int rows,
            int inner, int cols, float* out) {
  HWY_STATIC_DISPATCH(MatMulImpl)(a, b, bias, rows, inner, cols, out);
}

}  // namespace attn
