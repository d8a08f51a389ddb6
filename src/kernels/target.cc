#include "kernels/target.h"

namespace attn {

namespace {

int tile_rows = kMaxTileRows;

}  // namespace

const char* KernelTarget() {
#if defined(__wasm_relaxed_simd__)
  return "wasm-relaxed-simd";
#elif defined(__wasm_simd128__)
  return "wasm-simd128";
#else
  return "native";
#endif
}

int TileRows() { return tile_rows; }

int SetTileRows(int rows) {
  tile_rows = (rows == 6 && kMaxTileRows == 6) ? 6 : 4;
  return tile_rows;
}

}  // namespace attn
