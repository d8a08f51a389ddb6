#include "train/linear.h"

#include <algorithm>
#include <cstring>

#include "kernels/matmul.h"
#include "kernels/matmul_at.h"

namespace attn {
uint64_t LinearScratchFloats(int rows, int in, int out) {
  const uint64_t forward = PanelFloats(in, out);
  const uint64_t input_grad = PanelFloats(out, in);  // wᵀ
  return std::max(forward, input_grad);
}

Status LinearForward(const float* x, int rows, int in, const float* w, const float* b, int out,
                     float* y, Buffer<float>& scratch) {
  if (!scratch.Resize(std::max<uint64_t>(scratch.size(), PanelFloats(in, out)))) {
    return Status::kOutOfMemory;
  }
  PackColumnPanels(w, out, in, out, scratch.data());
  MultiplyPanels(x, in, rows, in, scratch.data(), b, out, y, out);
  return Status::kOk;
}

Status LinearBackward(const float* x, const float* w, const float* dy, int rows, int in, int out,
                      float* dx, float* dw, float* db, Buffer<float>& scratch) {
  const uint64_t need = LinearScratchFloats(rows, in, out);
  if (scratch.size() < need && !scratch.Resize(need)) return Status::kOutOfMemory;
  float* panels = scratch.data();
  // 1. dx = dy·wᵀ: wᵀ packed straight from w's rows (w is [in, out], so wᵀ's panels of
  //    8 columns are 8 rows of w).
  if (dx != nullptr) {
    PackTransposedPanels(w, out, in, out, panels);
    MultiplyPanels(dy, out, rows, out, panels, nullptr, in, dx, in);
  }
  // 2. dw = xᵀ·dy, summed over the rows as x and dy lie (no transpose, no packing).
  MultiplyTransposedA(x, rows, in, dy, out, dw);
  // 3. db = column sums of dy, in row order (the same bits on every thread count).
  if (db != nullptr) {
    std::fill(db, db + out, 0.0f);
    for (int r = 0; r < rows; ++r) {
      const float* row = dy + static_cast<size_t>(r) * out;
      for (int c = 0; c < out; ++c) db[c] += row[c];
    }
  }
  return Status::kOk;
}

}  // namespace attn
