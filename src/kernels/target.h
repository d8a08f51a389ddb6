// Which SIMD the kernels were compiled for, as attn.info.target reports it.
#pragma once

namespace attn {

// "wasm-relaxed-simd" (SIMD128 + relaxed FMA), "wasm-simd128", or "native".
const char* KernelTarget();

}  // namespace attn
