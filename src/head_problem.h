// One attention head as the kernels see it: non-owning views of q, k, v, the mask and
// the output, plus the rule that says which keys each query row may see.
#ifndef ATTENTION_WASM_SRC_HEAD_PROBLEM_H_
#define ATTENTION_WASM_SRC_HEAD_PROBLEM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace attn {

// Causal masking and key padding both hide a suffix of the keys, so together they are one
// number per query row: row i sees keys 0 .. VisibleKeys(i) - 1 (before the explicit mask).
struct VisibleKeyRule {
  int key_limit = 0;      // keys j >= key_limit are padding (per-sequence key length)
  bool causal = false;    // hide keys after the query's own position
  int causal_offset = 0;  // causal: row i sees j <= i + causal_offset
                          // (0: top-left aligned, seq_k - seq_q: bottom-right aligned)

  int VisibleKeys(int row) const {
    if (!causal) return key_limit;
    const int64_t last_visible = int64_t{row} + causal_offset;  // 64-bit: no overflow
    return static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(key_limit, last_visible + 1)));
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
struct HeadProblem {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
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
  float* out = nullptr;
};

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_HEAD_PROBLEM_H_
