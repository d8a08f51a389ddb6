// The register tile shared by the fused attention scores and MatMul: R rows times a panel
// of 8 columns, 2·R accumulators. Include inside HWY_NAMESPACE.
//
// How many rows: an FMA has ~4 cycles of latency and two pipes, so at least 8 independent
// accumulators keep them busy, and more give the scheduler slack (a microbenchmark of this
// loop in Node 20 and Chromium 156 on the project's machine: 4 rows 52 GFLOP/s, 6 rows 56).
// 6 rows need 15 live vectors (12 accumulators, 2 panel halves, 1 splat), exactly what V8
// has: it maps wasm SIMD onto 16 xmm registers and keeps one as scratch; 7 rows spill (35
// GFLOP/s). Callers pick 6 with relaxed FMA and 4 with SIMD128's mul + add (which needs a
// temporary).

#if defined(ATTENTION_WASM_TILE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTENTION_WASM_TILE_INL_H_
#undef ATTENTION_WASM_TILE_INL_H_
#else
#define ATTENTION_WASM_TILE_INL_H_
#endif

#include "kernels/simd-inl.h"  // the vector types (D, V, kLanes)

constexpr int kTileCols = 2 * kLanes;

// acc[2r], acc[2r+1] += rows[r] · panel[:, 0..7] for r < kRows.
//   rows: kRows × [depth]   panel: [depth, 8] (contiguous)   acc: 2·kRows vectors (row r:
//   2r, 2r+1)
template <int kRows>
HWY_INLINE void AccumulateTile(const float* const rows[kRows], const float* panel, int depth,
                               V acc[2 * kRows]) {
  const D d;
  const float* row[kRows];
  for (int r = 0; r < kRows; ++r) row[r] = rows[r];
  ATTN_NO_UNROLL
  for (int c = 0; c < depth; ++c, panel += kTileCols) {
    const V lo = hn::LoadU(d, panel);
    const V hi = hn::LoadU(d, panel + kLanes);
    ATTN_UNROLL_FULLY
    for (int r = 0; r < kRows; ++r) {
      const V x = hn::Set(d, row[r][c]);
      acc[2 * r] = Fma(x, lo, acc[2 * r]);
      acc[2 * r + 1] = Fma(x, hi, acc[2 * r + 1]);
    }
  }
}

#endif  // ATTENTION_WASM_TILE_INL_H_
