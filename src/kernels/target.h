// Which SIMD the kernels were compiled for, as attn.info.target reports it, and the height of
// their register tiles.
#pragma once

#include <type_traits>

namespace attn {

// "wasm-relaxed-simd" (SIMD128 + relaxed FMA), "wasm-simd128", or "native".
const char* KernelTarget();

// Query rows (fused attention) and rows of a (MatMul) per register tile: 6 or 4 in the
// relaxed build, 4 elsewhere (SIMD128's mul + add needs a temporary more). Six rows take 15
// live vectors: Chromium 156 keeps them in registers (one head at N = 1024: 5.72-5.86 ms
// against 6.12 with 4 rows), but Node 20's V8 schedules every splat load ahead of the FMAs
// and spills (N = 256: 0.62 ms against 0.44). JS picks at init: 4 in Node, 6 in browsers.
// The height never changes a result's bits: every row's arithmetic is the same either way.
int TileRows();

// Sets the tile height to `rows` where the build has it (6 only in the relaxed build; 4
// everywhere). Call before any work, as init does. Returns the height in effect.
int SetTileRows(int rows);

// The tallest tile this build has: only the relaxed kernels are compiled for 6 rows.
#if defined(__wasm_relaxed_simd__)
constexpr int kMaxTileRows = 6;
#else
constexpr int kMaxTileRows = 4;
#endif

// Calls f(std::integral_constant<int, R>()) with R = TileRows(), so that a kernel can take
// the height as a template argument: `WithTileRows([&](auto rows) { Run<rows()>(...); })`.
template <typename F>
void WithTileRows(F&& f) {
  if constexpr (kMaxTileRows == 6) {
    if (TileRows() == 6) {
      f(std::integral_constant<int, 6>());
      return;
    }
  }
  f(std::integral_constant<int, 4>());
}

}  // namespace attn
