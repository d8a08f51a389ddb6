// One attention head as the kernels see it: non-owning views of q, k, v, the mask and
// the output, plus the rule that says which keys each query row may see.
#ifndef ATTENTION_WASM_SRC_HEAD_PROBLEM_H_
#define ATTENTION_WASM_SRC_HEAD_PROBLEM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "dropout.h"
#include "kernels/kv_storage.h"

namespace attn {

// Which keys query row i may see before the explicit mask: one contiguous range
// KeyBegin(i) .. KeyEnd(i) - 1. Row i sits at key position i + causal_offset (the
// diagonal); key padding hides the keys from key_limit on, the causal rule those after the
// diagonal, and a sliding window those more than window_left before it or window_right after.
struct VisibleKeyRule {
  int key_limit = 0;      // keys j >= key_limit are padding (per-sequence key length)
  bool causal = false;    // hide keys after the query's own position
  int causal_offset = 0;  // row i sits at key i + causal_offset (causal rule and window)
                          // (0: top-left aligned, seq_k - seq_q: bottom-right aligned)
  int window_left = -1;   // >= 0: hide keys j < i + causal_offset - window_left; < 0: none
  int window_right = -1;  // >= 0: hide keys j > i + causal_offset + window_right; < 0: none

  // The first visible key of row `row` (may be >= KeyEnd(row): none visible).
  int KeyBegin(int row) const {
    if (window_left < 0) return 0;
    const int64_t first = int64_t{row} + causal_offset - window_left;  // 64-bit: no overflow
    return static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(key_limit, first)));
  }

  // One past the last visible key of row `row`.
  int KeyEnd(int row) const {
    int64_t end = key_limit;
    const int64_t diagonal = int64_t{row} + causal_offset;  // 64-bit: no overflow
    if (causal) end = std::min(end, diagonal + 1);
    if (window_right >= 0) end = std::min(end, diagonal + window_right + 1);
    return static_cast<int>(std::max<int64_t>(0, end));
  }
};

// The explicit mask of one head: [seq_q, seq_k] with row stride row_stride (0: one row
// shared by every query), either additive floats (-Infinity blocks the key whatever its
// score) or booleans (nonzero = may attend), or neither.
struct MaskView {
  const float* additive = nullptr;
  const uint8_t* allowed = nullptr;
  int row_stride = 0;

  bool empty() const { return additive == nullptr && allowed == nullptr; }

  // Writes the additive value of keys j0 .. j0 + count - 1 of row i into out
  // (0 or -Infinity for a boolean mask).
  void Row(int i, int j0, int count, float* out) const {
    const size_t start = static_cast<size_t>(i) * row_stride + j0;
    if (additive != nullptr) {
      for (int j = 0; j < count; ++j) out[j] = additive[start + j];
    } else {
      constexpr float kBlocked = -std::numeric_limits<float>::infinity();
      for (int j = 0; j < count; ++j) out[j] = allowed[start + j] != 0 ? 0.0f : kBlocked;
    }
  }
};

// q: [seq_q, head_dim]  k: [seq_k, head_dim]  v: [seq_k, value_dim]  out: [seq_q, value_dim]
//   each with its own row stride (a head of a multi-head projection is a column block of a
//   wider matrix); elements within a row are contiguous.
// mask: see MaskView.
// k and v are float32, or (kv_storage bfloat16/float16, a model's half key/value cache) k16
// and v16 hold them instead, or (kv_storage q8_0) kq and vq, with the same strides in
// elements; the kernels widen them exactly as they read them.
struct HeadProblem {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  KvStorage kv_storage = KvStorage::kFloat32;
  const uint16_t* k16 = nullptr;
  const uint16_t* v16 = nullptr;
  Q8Elements kq, vq;
  MaskView mask;
  int seq_q = 0;
  int seq_k = 0;
  int head_dim = 0;
  int value_dim = 0;
  int q_stride = 0;  // row strides, in floats
  int k_stride = 0;
  int v_stride = 0;
  int out_stride = 0;
  float scale = 1.0f;
  // Score capping (Gemma 2, ONNX Attention's softcap): s = softcap·tanh(s·scale / softcap)
  // before the mask. 0: none.
  float softcap = 0.0f;
  VisibleKeyRule visible;
  DropoutRule dropout;  // of the weights, after the softmax (none by default)
  float* out = nullptr;
};

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_HEAD_PROBLEM_H_
