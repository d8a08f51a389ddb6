// Softmax and log-softmax over one axis of a tensor, in the layout [outer, axis_len, inner]
// (the axis need not be the last: inner > 1 walks it with stride inner, no transpose).
#ifndef ATTENTION_WASM_SRC_SOFTMAX_H_
#define ATTENTION_WASM_SRC_SOFTMAX_H_

#include "status.h"

namespace attn {

// out = exp(x - max) / Σ exp(x - max) (log = false), or
// out = x - max - log(Σ exp(x - max)) (log = true; never log of the softmax), along the
// middle axis. Sums in double. A line whose max is not finite (all -Infinity, a +Infinity,
// or a NaN anywhere in it) is NaN throughout, as PyTorch and ONNX compute it.
//   x, out: [outer, axis_len, inner] (out must not alias x)
// kBadArgument for a negative size, a null buffer with values, or out == x.
Status Softmax(const float* x, int outer, int axis_len, int inner, bool log, float* out);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_SOFTMAX_H_
