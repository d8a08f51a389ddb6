#include "train/model_activations.h"

#include "sizes.h"

namespace attn {

bool ModelActivations::Reserve(const ModelConfig& c, int batch_size, int seq_len) {
  const int64_t d = c.d_model, f = c.d_ff;
  const int64_t r = int64_t{batch_size} * seq_len;
  const int64_t hr = c.classify ? batch_size : r;
  const int64_t p = int64_t{batch_size} * c.num_heads * seq_len * seq_len;
  // Floats: per layer 12 [rows, d] + 2 [rows, d_ff] + 4 [rows] + P; then the model's own.
  const int64_t per_layer = 12 * r * d + 2 * r * f + 4 * r + p;
  const int64_t total = c.num_layers * per_layer + 2 * r * d + 2 * r + hr * d + 2 * hr * c.outputs +
                        6 * r * d + 2 * r * f;
  if (!FloatsFit({total}) || !FloatsFit({r * f}) || !FloatsFit({p})) return false;
  if (!arena_.Resize(static_cast<uint64_t>(total))) return false;
  if (!ints_.Resize(static_cast<uint64_t>(batch_size + hr + r))) return false;
  float* next = arena_.data();
  auto take = [&next](int64_t count) {
    float* at = next;
    next += count;
    return at;
  };
  for (int l = 0; l < c.num_layers; ++l) {
    LayerActivations& a = layers_[l];
    a.x = take(r * d), a.a_in = take(r * d), a.q = take(r * d), a.k = take(r * d);
    a.v = take(r * d), a.p = take(p), a.o = take(r * d), a.r1 = take(r * d), a.h = take(r * d);
    a.f_in = take(r * d), a.f_pre = take(r * f), a.f_act = take(r * f), a.r2 = take(r * d);
    a.mean1 = take(r), a.rstd1 = take(r), a.mean2 = take(r), a.rstd2 = take(r);
    a.out = take(r * d);
    if (l > 0) layers_[l - 1].out = a.x;  // one tensor: a block's output is the next's input
  }
  // The last block's `out` was taken in the loop: it is the final norm's input.
  final_in = layers_[c.num_layers - 1].out;
  final_out = take(r * d);
  final_mean = take(r), final_rstd = take(r);
  head_in = take(hr * d);
  logits_ = take(hr * c.outputs), d_logits = take(hr * c.outputs);
  d_x = take(r * d), d_a = take(r * d), d_b = take(r * d);
  dq = take(r * d), dk = take(r * d), dv = take(r * d);
  d_f1 = take(r * f), d_f2 = take(r * f);
  key_limits = ints_.data();
  targets = key_limits + batch_size;
  token_ids = targets + hr;
  batch = batch_size, seq = seq_len, rows = static_cast<int>(r), head_rows = static_cast<int>(hr);
  return true;
}

}  // namespace attn
