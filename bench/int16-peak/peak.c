// The ceiling of the int16 dot product in wasm SIMD on this machine: i32x4.dot_i16x8_s and the
// i32x4.add of its sum (V8: vpmaddwd, vpaddd), 12 independent accumulators, 8 multiply-adds a
// product. What an int8 GEMM without 7-bit operands can reach at most here (docs/quantization.md,
// "Why not faster"); bench/int16-peak.js compiles and runs it.
#include <wasm_simd128.h>
#include <stdint.h>
// Operands in registers (one of them changed each iteration, so that nothing is hoisted).
__attribute__((export_name("dots"))) int32_t dots(int iters, int32_t seed) {
  v128_t a0 = wasm_i32x4_splat(seed), a1 = wasm_i32x4_splat(seed + 1), a2 = wasm_i32x4_splat(seed + 2);
  v128_t b = wasm_i32x4_splat(seed * 3);
  v128_t s[12];
  for (int i = 0; i < 12; ++i) s[i] = wasm_i32x4_splat(i);
  for (int n = 0; n < iters; ++n) {
#pragma clang loop unroll(full)
    for (int i = 0; i < 12; ++i) {
      const v128_t x = i % 3 == 0 ? a0 : i % 3 == 1 ? a1 : a2;
      s[i] = wasm_i32x4_add(s[i], wasm_i32x4_dot_i16x8(x, b));
    }
    b = wasm_i16x8_add(b, wasm_i16x8_splat(1));
  }
  v128_t t = s[0];
  for (int i = 1; i < 12; ++i) t = wasm_i32x4_add(t, s[i]);
  return wasm_i32x4_extract_lane(t, 0);
}
// The same with the dot products' operands loaded (as a kernel streams them): 8 loads an iteration.
__attribute__((export_name("dotsLoaded"))) int32_t dotsLoaded(int iters, const int16_t* w, int32_t seed) {
  v128_t b = wasm_i32x4_splat(seed * 3);
  v128_t s[12];
  for (int i = 0; i < 12; ++i) s[i] = wasm_i32x4_splat(i);
  for (int n = 0; n < iters; ++n) {
    const int16_t* p = w + (n & 63) * 8 * 6;
#pragma clang loop unroll(full)
    for (int i = 0; i < 12; ++i) {
      const v128_t x = wasm_v128_load(p + 8 * (i % 6));
      s[i] = wasm_i32x4_add(s[i], wasm_i32x4_dot_i16x8(x, b));
    }
    b = wasm_i16x8_add(b, wasm_i16x8_splat(1));
  }
  v128_t t = s[0];
  for (int i = 1; i < 12; ++i) t = wasm_i32x4_add(t, s[i]);
  return wasm_i32x4_extract_lane(t, 0);
}
