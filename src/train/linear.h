// A linear layer in the row-vector convention of the course material, forward and backward:
//   forward:   y = x·w + b
//   backward:  dx = dy·wᵀ,   dw = xᵀ·dy,   db = Σ_rows dy
// All three products run on the Highway panel kernel (kernels/matmul.h), threaded by row
// blocks in the threaded builds. `scratch` is the caller's, reused across calls so a training
// step allocates nothing once its sizes have been seen.
#ifndef ATTENTION_WASM_SRC_TRAIN_LINEAR_H_
#define ATTENTION_WASM_SRC_TRAIN_LINEAR_H_

#include "buffer.h"
#include "status.h"

namespace attn {

// x: [rows, in]  w: [in, out]  b: [out] or null  y: [rows, out] (written)
Status LinearForward(const float* x, int rows, int in, const float* w, const float* b, int out,
                     float* y, Buffer<float>& scratch);

// x: [rows, in]  w: [in, out]  dy: [rows, out]
// dx: [rows, in] or null (written)  dw: [in, out] (written)  db: [out] or null (written)
Status LinearBackward(const float* x, const float* w, const float* dy, int rows, int in, int out,
                      float* dx, float* dw, float* db, Buffer<float>& scratch);

// Floats of scratch LinearForward and LinearBackward need for these sizes, at most.
uint64_t LinearScratchFloats(int rows, int in, int out);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_LINEAR_H_
