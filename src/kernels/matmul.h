// Matrix products on panels: the right-hand matrix B [inner, cols] is stored as
// ceil(cols / 8) panels of [inner, 8] (zero-padded), so the 4 × 8 register tile
// streams two whole vectors per step. Used for the projections (X·W), the raw
// scores of the step-by-step path (Q·Kᵀ) and, through the packing, the fused
// kernel.
#ifndef ATTENTION_WASM_SRC_KERNELS_MATMUL_H_
#define ATTENTION_WASM_SRC_KERNELS_MATMUL_H_

#include <cstdint>

#include "kernels/quantized.h"
#include "status.h"

namespace attn {

constexpr int kPanelWidth = 8;

// A model's matrix in its storage type (set one of the three): float32 panels, bfloat16
// panels, or quantized blocks (kernels/quantized.h). bfloat16 panels hold a bfloat16
// checkpoint's own values in half the bytes; the kernels widen each weight to float32 as they
// read it and then do exactly what they do on float32 panels, so a product on bfloat16 panels
// has the same bits as one on the same values widened.
struct Panels {
  const float* f32 = nullptr;
  const Bf16* bf16 = nullptr;
  QuantMatrix quant;  // quant.data non-null: quantized blocks (Q8_0, Q4_0, Q4_K, Q6_K)
};

// Number of panels for `cols` columns.
inline int PanelCount(int cols) { return (cols + kPanelWidth - 1) / kPanelWidth; }

// Floats of the panels of a [inner, cols] matrix (MatMul's scratch).
inline uint64_t PanelFloats(int inner, int cols) {
  return static_cast<uint64_t>(PanelCount(cols)) * inner * kPanelWidth;
}

// Packs b into panels.   b: [inner, cols] (row stride b_stride)
//   panels: [PanelCount(cols), inner, 8]
void PackColumnPanels(const float* b, int b_stride, int inner, int cols, float* panels);

// The same for bfloat16 weights (packed as they are, not widened).
void PackColumnPanels(const Bf16* b, int b_stride, int inner, int cols, Bf16* panels);

// Packs kᵀ into panels (B = kᵀ, so panel t holds keys 8t .. 8t + 7).
//   k: [seq_k, head_dim] (row stride k_stride)
//   panels: [PanelCount(seq_k), head_dim, 8]
void PackTransposedPanels(const float* k, int k_stride, int seq_k, int head_dim, float* panels);

// The same for bfloat16 weights (packed as they are).
void PackTransposedPanels(const Bf16* k, int k_stride, int seq_k, int head_dim, Bf16* panels);

// out = a·B + bias, with B given as panels.
//   a: [rows, inner] (row stride a_stride)   bias: [cols] or null
//   out: [rows, cols] (row stride out_stride)
void MultiplyPanels(const float* a, int a_stride, int rows, int inner, const float* panels,
                    const float* bias, int cols, float* out, int out_stride);

// out = a·B + bias with B in any storage (see Panels). kOutOfMemory only for quantized
// blocks, whose product needs the input rows' codes (QuantScratchBytes).
[[nodiscard]] Status MultiplyPanels(const float* a, int a_stride, int rows, int inner,
                                    Panels panels, const float* bias, int cols, float* out,
                                    int out_stride);

// out = a·b + bias (bias added to every row; null for none)
//   a: [rows, inner]  b: [inner, cols]  bias: [cols]  out: [rows, cols]
//   (row-major)   b_panels: b already packed by PackColumnPanels (a layer keeps its weights
//   packed), or null to pack b here. Returns kOutOfMemory when the panels' scratch cannot
//   be allocated.
Status MatMul(const float* a, const float* b, const float* bias, int rows, int inner, int cols,
              float* out, const float* b_panels = nullptr);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_MATMUL_H_
