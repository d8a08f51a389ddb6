#include "kernels/target.h"

namespace attn {

const char* KernelTarget() {
#if defined(__wasm_relaxed_simd__)
  return "wasm-relaxed-simd";
#elif defined(__wasm_simd128__)
  return "wasm-simd128";
#else
  return "native";
#endif
}

}  // namespace attn
