// The register tile shared by the fused attention scores and MatMul: 4 rows times a panel
// of 8 columns, 8 accumulators and 11 live vectors (V8 maps wasm SIMD onto 16 xmm
// registers and spills past ~14). Include inside HWY_NAMESPACE.

#if defined(ATTENTION_WASM_TILE_4X8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTENTION_WASM_TILE_4X8_INL_H_
#undef ATTENTION_WASM_TILE_4X8_INL_H_
#else
#define ATTENTION_WASM_TILE_4X8_INL_H_
#endif

#include "kernels/simd-inl.h"  // the vector types (D, V, kLanes)

constexpr int kTileRows = 4;
constexpr int kTileCols = 2 * kLanes;

// acc[2r], acc[2r+1] += rows[r] · panel[:, 0..7] for r = 0..3.
//   rows: 4 × [depth]   panel: [depth, 8] (contiguous)   acc: 8 vectors (row r: 2r, 2r+1)
HWY_INLINE void AccumulateTile4x8(const float* const rows[kTileRows], const float* panel, int depth,
                                  V acc[2 * kTileRows]) {
  const D d;
  const float* r0 = rows[0];
  const float* r1 = rows[1];
  const float* r2 = rows[2];
  const float* r3 = rows[3];
  ATTN_NO_UNROLL
  for (int c = 0; c < depth; ++c, panel += kTileCols) {
    const V lo = hn::LoadU(d, panel);
    const V hi = hn::LoadU(d, panel + kLanes);
    V x = hn::Set(d, r0[c]);
    acc[0] = Fma(x, lo, acc[0]);
    acc[1] = Fma(x, hi, acc[1]);
    x = hn::Set(d, r1[c]);
    acc[2] = Fma(x, lo, acc[2]);
    acc[3] = Fma(x, hi, acc[3]);
    x = hn::Set(d, r2[c]);
    acc[4] = Fma(x, lo, acc[4]);
    acc[5] = Fma(x, hi, acc[5]);
    x = hn::Set(d, r3[c]);
    acc[6] = Fma(x, lo, acc[6]);
    acc[7] = Fma(x, hi, acc[7]);
  }
}

#endif  // ATTENTION_WASM_TILE_4X8_INL_H_
