// LoadedLanes: vector constants kept in memory, one 128-bit vector a row, that the kernels
// load at each use (FastExp2's, WidenHalf's, the bfloat16 tile's high-half mask).
//
// Why in memory: V8 builds a wasm vector constant (v128.const) anew at each use inside a
// loop: movabs, vmovq, vpunpcklqdq, three x64 instructions where a load is one (~27 of the
// ~45 of a FastExp2 of four scores). So that clang keeps the loads rather than folding them
// back into v128.const, define each table non-const:
//   inline auto kName = SplatRows<float>({...});   // never `const`, `constexpr` or `static`
// The type is alignas(64), so a table fills cache lines of its own: beside data another
// thread writes, a load of it stalled each tile.
#ifndef ATTENTION_WASM_KERNELS_LOADED_LANES_H_
#define ATTENTION_WASM_KERNELS_LOADED_LANES_H_

#include <cstddef>

namespace attn {

// kRows vectors of lane type T.   row: [kRows, 16 / sizeof(T)]
template <typename T, size_t kRows>
struct alignas(64) LoadedLanes {
  static constexpr size_t kLanesPerRow = 16 / sizeof(T);
  T row[kRows][kLanesPerRow];
};

// The table whose row i holds values[i] in every lane (constant-initialised: no code runs).
//   values: [kRows]
template <typename T, size_t kRows>
constexpr LoadedLanes<T, kRows> SplatRows(const T (&values)[kRows]) {
  LoadedLanes<T, kRows> table{};
  for (size_t i = 0; i < kRows; ++i) {
    for (size_t lane = 0; lane < LoadedLanes<T, kRows>::kLanesPerRow; ++lane) {
      table.row[i][lane] = values[i];
    }
  }
  return table;
}

}  // namespace attn

#endif  // ATTENTION_WASM_KERNELS_LOADED_LANES_H_
