#include "model/runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "block.h"
#include "kernels/activations.h"
#include "kernels/matmul.h"
#include "sizes.h"

namespace attn {

PretrainedModel::PretrainedModel(const ModelDescriptor& descriptor) : m_(descriptor) {}

bool PretrainedModel::Allocate() {
  // The descriptor's per-matrix storages are borrowed: keep a copy for as long as the model.
  if (!storages_.Resize(m_.matrix_storage_count)) return false;
  std::copy(m_.matrix_storages, m_.matrix_storages + m_.matrix_storage_count, storages_.data());
  m_.matrix_storages = storages_.data();
  int count = 0;
  const uint64_t floats = ForEachWeight(m_, [&](const WeightEntry&) { ++count; });
  if (!table_.Resize(count) || !params_.Assign(floats, 0.0f) ||
      !layers_.Assign(m_.num_layers, LayerWeights{}) ||
      !specs_.Assign(m_.num_layers, LayerSpec{})) {
    return false;
  }
  int i = 0;
  ForEachWeight(m_, [&](const WeightEntry& e) {
    table_[i++] = e;
    any_quantized_ = any_quantized_ || IsQuantized(e.storage);
  });
  ResolveWeights();
  return true;
}

// Every table entry's address into its named member, once; and each layer's attention spec.
void PretrainedModel::ResolveWeights() {
  for (size_t i = 0; i < table_.size(); ++i) {
    const WeightEntry& e = table_[i];
    float* at = params_.data() + e.offset;
    Panels panels;
    if (IsQuantized(e.storage)) {
      panels.quant = QuantMatrix{e.storage, reinterpret_cast<const uint8_t*>(at)};
    } else if (e.storage == MatrixStorage::kBfloat16) {
      panels.bf16 = reinterpret_cast<const Bf16*>(at);
    } else {
      panels.f32 = at;
    }
    GlobalWeights& g = global_;
    LayerWeights* l = e.layer >= 0 ? &layers_[e.layer] : nullptr;
    // clang-format off
    switch (e.kind) {
      case WeightKind::kWordEmbeddings: g.words = at; g.words_quant = panels.quant; break;
      case WeightKind::kPositionEmbeddings: g.positions = at; break;
      case WeightKind::kTokenTypeEmbeddings: g.types = at; break;
      case WeightKind::kEmbeddingNormWeight: g.embedding_norm.weight = at; break;
      case WeightKind::kEmbeddingNormBias: g.embedding_norm.bias = at; break;
      case WeightKind::kQuery: l->attention.wq = panels; break;
      case WeightKind::kQueryBias: l->attention.bq = at; break;
      case WeightKind::kKey: l->attention.wk = panels; break;
      case WeightKind::kKeyBias: l->attention.bk = at; break;
      case WeightKind::kValue: l->attention.wv = panels; break;
      case WeightKind::kValueBias: l->attention.bv = at; break;
      case WeightKind::kAttentionOut: l->attention.wo = panels; break;
      case WeightKind::kAttentionOutBias: l->attention.bo = at; break;
      case WeightKind::kQueryNormWeight: l->attention.q_norm = at; break;
      case WeightKind::kKeyNormWeight: l->attention.k_norm = at; break;
      case WeightKind::kNorm1Weight: l->norm1.weight = at; break;
      case WeightKind::kNorm1Bias: l->norm1.bias = at; break;
      case WeightKind::kPostAttentionNormWeight: l->post_attention.weight = at; break;
      case WeightKind::kPostAttentionNormBias: l->post_attention.bias = at; break;
      case WeightKind::kGate: l->gate = panels; break;
      case WeightKind::kUp: l->up = panels; break;
      case WeightKind::kUpBias: l->up_bias = at; break;
      case WeightKind::kDown: l->down = panels; break;
      case WeightKind::kDownBias: l->down_bias = at; break;
      case WeightKind::kNorm2Weight: l->norm2.weight = at; break;
      case WeightKind::kNorm2Bias: l->norm2.bias = at; break;
      case WeightKind::kPostFfnNormWeight: l->post_ffn.weight = at; break;
      case WeightKind::kPostFfnNormBias: l->post_ffn.bias = at; break;
      case WeightKind::kFinalNormWeight: g.final_norm.weight = at; break;
      case WeightKind::kFinalNormBias: g.final_norm.bias = at; break;
      case WeightKind::kLmTransform: g.lm_transform = panels; break;
      case WeightKind::kLmTransformBias: g.lm_transform_bias = at; break;
      case WeightKind::kLmNormWeight: g.lm_norm.weight = at; break;
      case WeightKind::kLmNormBias: g.lm_norm.bias = at; break;
      case WeightKind::kLmDecoder: g.lm_decoder = panels; break;
      case WeightKind::kLmBias: g.lm_bias = at; break;
    }
    // clang-format on
  }
  for (int l = 0; l < m_.num_layers; ++l) {
    LayerSpec& spec = specs_[l];
    const int window = m_.layer_windows[l];
    spec.window_left = window > 0 ? window - 1 : -1;
    RotarySpec& r = spec.rotary;
    r.dim = m_.rotary_dim, r.base = m_.rotary_base, r.interleaved = m_.rotary_interleaved;
    r.scaling = m_.rope_scaling;
    r.factor = m_.rope_factor, r.original_max = m_.rope_original_max;
    r.low_freq_factor = m_.rope_low_freq_factor, r.high_freq_factor = m_.rope_high_freq_factor;
    r.attention_factor = m_.rope_attention_factor;
    if (window > 0 && m_.local_rotary_base > 0.0) {  // Gemma 3's local layers: their own base
      r.base = m_.local_rotary_base;
      r.scaling = RopeScaling::kNone;
      r.attention_factor = 1.0;
    }
    if (m_.layer_no_rope[l] != 0) r.dim = 0;  // SmolLM3's NoPE layers: positions by the mask alone
  }
}

namespace {

// A [rows, cols] matrix entry packed as panels from src (row stride src_stride; transposed:
// src is [cols, rows]), float32 or bfloat16 alike.
template <typename T>
void PackMatrix(const WeightEntry& e, const T* src, int src_stride, bool transposed, T* panels) {
  if (transposed) {
    PackTransposedPanels(src, src_stride, e.cols, e.rows, panels);
  } else {
    PackColumnPanels(src, src_stride, e.rows, e.cols, panels);
  }
}

// One row of a vector or table entry, widened to float32.
void CopyRow(const float* src, int cols, float* out) {
  std::memcpy(out, src, sizeof(float) * cols);
}
void CopyRow(const Bf16* src, int cols, float* out) {
  for (int c = 0; c < cols; ++c) out[c] = Bf16ToFloat(src[c]);
}

template <typename T>
void FillEntry(const WeightEntry& e, const T* src, int src_stride, bool transposed, float* dst) {
  if (IsQuantized(e.storage)) {
    // A table [V, d] is the [d, V] matrix's transposed form.
    if (e.matrix) {
      QuantizeMatrix(src, src_stride, transposed, e.rows, e.cols, e.storage,
                     reinterpret_cast<uint8_t*>(dst));
    } else {
      QuantizeMatrix(src, src_stride, !transposed, e.cols, e.rows, e.storage,
                     reinterpret_cast<uint8_t*>(dst));
    }
    return;
  }
  if (e.matrix) {
    PackMatrix(e, src, src_stride, transposed, reinterpret_cast<T*>(dst));
    return;
  }
  for (int r = 0; r < e.rows; ++r) {
    CopyRow(src + static_cast<size_t>(r) * src_stride, e.cols,
            dst + static_cast<size_t>(r) * e.cols);
  }
}

}  // namespace

Status PretrainedModel::SetWeight(int index, const void* source, bool src_bf16, int src_stride,
                                  bool transposed) {
  if (index < 0 || index >= weight_count()) return Status::kBadArgument;
  const WeightEntry& e = table_[index];
  // Panels take their own precision; quantized blocks are made from either, but K-quants'
  // only come from a file's blocks (SetQuantizedWeight).
  if (e.matrix && !IsQuantized(e.storage) && (e.storage == MatrixStorage::kBfloat16) != src_bf16) {
    return Status::kBadArgument;
  }
  if (IsKQuant(e.storage)) return Status::kBadArgument;
  float* dst = params_.data() + e.offset;
  if (src_bf16) {
    FillEntry(e, static_cast<const Bf16*>(source), src_stride, transposed, dst);
  } else {
    FillEntry(e, static_cast<const float*>(source), src_stride, transposed, dst);
  }
  // Gemma's norms scale by 1 + γ, which float32 rounds once (as `1.0 + weight.float()` does).
  if (m_.norm == NormKind::kRmsNormPlusOne && IsNormWeight(e.kind)) {
    for (int c = 0; c < e.cols; ++c) dst[c] += 1.0f;
  }
  return Status::kOk;
}

Status PretrainedModel::SetQuantizedWeight(int index, const uint8_t* blocks,
                                           MatrixStorage storage) {
  if (index < 0 || index >= weight_count()) return Status::kBadArgument;
  const WeightEntry& e = table_[index];
  // inner × outputs: a matrix [in, out]; the word embeddings [V, d] as [d, V].
  const int inner = e.matrix ? e.rows : e.cols, outputs = e.matrix ? e.cols : e.rows;
  if (e.storage != storage || !IsQuantized(storage) || inner % GgmlBlockWeights(storage) != 0) {
    return Status::kBadArgument;
  }
  PackGgmlBlocks(blocks, inner, outputs, storage,
                 reinterpret_cast<uint8_t*>(params_.data() + e.offset));
  return Status::kOk;
}

bool PretrainedModel::ReserveCache(int batch, int capacity, KvStorage storage) {
  DropCache();
  // One of the two (keys, values): checked against kMaxBufferBytes in 64-bit, saturating,
  // before anything is allocated (a float32 cache of 2^31 bytes may be a half one of 2^30).
  const uint64_t position_bytes = CachePositionBytes(storage, m_.num_kv_heads, m_.head_dim);
  const uint64_t bytes =
      BufferBytes(1, {m_.num_layers, batch, capacity, static_cast<int64_t>(position_bytes)});
  if (batch < 1 || capacity < 1 || bytes > kMaxBufferBytes) return false;
  bool ok;
  switch (storage) {
    case KvStorage::kFloat32:
      ok = cache_k_.Resize(bytes / 4) && cache_v_.Resize(bytes / 4);
      break;
    case KvStorage::kQ8_0:
      ok = cache_kq_.Resize(bytes) && cache_vq_.Resize(bytes);
      break;
    default:
      ok = cache_k16_.Resize(bytes / 2) && cache_v16_.Resize(bytes / 2);
  }
  if (!ok) {
    DropCache();
    return false;
  }
  cache_storage_ = storage, cache_bytes_ = 2 * bytes;
  cache_batch_ = batch, cache_capacity_ = capacity;
  return true;
}

void PretrainedModel::DropCache() {
  for (Buffer<float>* b : {&cache_k_, &cache_v_}) b->Clear();
  for (Buffer<uint16_t>* b : {&cache_k16_, &cache_v16_}) b->Clear();
  for (Buffer<uint8_t>* b : {&cache_kq_, &cache_vq_}) b->Clear();
  cache_storage_ = KvStorage::kFloat32, cache_bytes_ = 0;
  cache_batch_ = cache_capacity_ = cache_length_ = 0;
}

// Layer `layer`'s view of the cache (null pointers without one).
LayerCache PretrainedModel::CacheOf(int layer) {
  const size_t per_layer = static_cast<size_t>(cache_batch_) * cache_capacity_ * KvWidth(m_);
  LayerCache cache;
  cache.storage = cache_storage_;
  if (cache_batch_ == 0) return cache;
  if (cache_storage_ == KvStorage::kFloat32) {
    cache.k = cache_k_.data() + layer * per_layer, cache.v = cache_v_.data() + layer * per_layer;
  } else if (cache_storage_ == KvStorage::kQ8_0) {
    const size_t layer_bytes = static_cast<size_t>(cache_batch_) * cache_capacity_ *
                               CachePositionBytes(KvStorage::kQ8_0, m_.num_kv_heads, m_.head_dim);
    cache.kq = cache_kq_.data() + layer * layer_bytes;
    cache.vq = cache_vq_.data() + layer * layer_bytes;
  } else {
    cache.k16 = cache_k16_.data() + layer * per_layer;
    cache.v16 = cache_v16_.data() + layer * per_layer;
  }
  return cache;
}

Status PretrainedModel::CheckInput(const ModelInput& in) const {
  if (in.batch < 0 || in.len < 0) return Status::kNegativeDimension;
  if (in.ids == nullptr ||
      ((m_.max_positions > 0 || m_.rotary_dim > 0) && in.positions == nullptr)) {
    return Status::kNullPointer;
  }
  if (in.keep_qk_layer >= m_.num_layers) return Status::kBadArgument;
  if (in.trace_position >= 0 && (in.batch != 1 || in.use_cache || in.trace_position >= in.len ||
                                 (in.lengths != nullptr && in.trace_position >= in.lengths[0]))) {
    return Status::kBadArgument;
  }
  if (in.use_cache && (in.batch != cache_batch_ || in.lengths != nullptr ||
                       int64_t{cache_length_} + in.len > cache_capacity_)) {
    return Status::kBadArgument;
  }
  // The buffers this call makes: activations of the rows it runs at once, and the outputs it
  // asks for (attention maps [L, B, H, T, S], hidden states, logits of every row or the last).
  const int64_t rows = int64_t{in.batch} * in.len;
  const int64_t at_once = int64_t{in.batch} * LenAtOnce(in);
  const int64_t seq_k = int64_t{in.use_cache ? cache_length_ : 0} + in.len;
  const int64_t logit_rows = in.logits && m_.lm_head ? (in.last_logits_only ? in.batch : rows) : 0;
  if ((in.attentions && !FloatsFit({m_.num_layers, in.batch, m_.num_heads, in.len, seq_k})) ||
      !FloatsFit({at_once, std::max({m_.d_model, 2 * m_.d_ff, QueryWidth(m_)})}) ||
      !FloatsFit({logit_rows, m_.vocab_size}) ||
      (in.hidden_states && !FloatsFit({m_.num_layers + 1, rows, m_.d_model})) ||
      (in.trace_position >= 0 && TraceFloats(m_, in.len) > kMaxBufferBytes / sizeof(float))) {
    return Status::kTooLarge;
  }
  for (int64_t r = 0; r < rows; ++r) {
    if (in.ids[r] < 0 || in.ids[r] >= m_.vocab_size) return Status::kBadArgument;
    if (m_.max_positions > 0 && (in.positions[r] < 0 || in.positions[r] >= m_.max_positions)) {
      return Status::kBadArgument;
    }
    if (in.token_types != nullptr &&
        (in.token_types[r] < 0 || in.token_types[r] >= std::max(1, m_.type_vocab_size))) {
      return Status::kBadArgument;
    }
  }
  if (in.lengths != nullptr) {
    for (int b = 0; b < in.batch; ++b) {
      if (in.lengths[b] < 1 || in.lengths[b] > in.len) return Status::kBadKeyLength;
    }
  }
  return Status::kOk;
}

// row = E[id]·multiplier.   row: [d]
void PretrainedModel::WordRow(int32_t id, float* row) const {
  const int d = m_.d_model;
  if (global_.words_quant.data != nullptr) {
    DequantizeColumn(global_.words_quant, d, id, row);
  } else {
    std::memcpy(row, global_.words + static_cast<size_t>(id) * d, sizeof(float) * d);
  }
  if (m_.embedding_multiplier != 1.0f) {
    for (int c = 0; c < d; ++c) row[c] *= m_.embedding_multiplier;
  }
}

// x[r] = E[id]·multiplier + P[position] + TT[type], then the embedding norm.   x: [rows, d]
void PretrainedModel::Embed(const ModelInput& in, float* x) const {
  const int d = m_.d_model;
  const int rows = in.batch * in.len;
  const GlobalWeights& g = global_;
  for (int r = 0; r < rows; ++r) {
    float* row = x + static_cast<size_t>(r) * d;
    WordRow(in.ids[r], row);
    if (g.positions != nullptr) {
      const float* p = g.positions + static_cast<size_t>(in.positions[r]) * d;
      for (int c = 0; c < d; ++c) row[c] += p[c];
    }
    if (g.types != nullptr) {
      const float* t = g.types + static_cast<size_t>(in.token_types ? in.token_types[r] : 0) * d;
      for (int c = 0; c < d; ++c) row[c] += t[c];
    }
  }
  if (m_.embedding_norm) Norm(g.embedding_norm, x, rows, x);
}

// The descriptor's norm (a layer norm, or an RMS norm whose weights hold γ or 1 + γ).
//   x, out: [rows, d]
void PretrainedModel::Norm(const NormWeights& w, const float* x, int rows, float* out) const {
  if (m_.norm == NormKind::kLayerNorm) {
    LayerNorm(x, rows, m_.d_model, w.weight, w.bias, m_.norm_eps, out);
  } else {
    RmsNorm(x, rows, m_.d_model, w.weight, m_.norm_eps, out);
  }
}

// A sub-layer's output × residual_multiplier before it joins the residual (Granite).
//   sub: [count]
void PretrainedModel::ScaleResidual(float* sub, size_t count) const {
  if (m_.residual_multiplier == 1.0f) return;
  for (size_t i = 0; i < count; ++i) sub[i] *= m_.residual_multiplier;
}

// out = act(x·W_up + b)·W_down + b, or down(act(x·W_gate) ⊙ (x·W_up)) when gated.
//   x, out: [rows, d]
//   trace: the traced row's activation input, up projection and hidden, or null.
Status PretrainedModel::FeedForwardOf(const LayerWeights& w, const float* x, int rows, float* out,
                                      const FfnTrace* trace) const {
  const int d = m_.d_model, f = m_.d_ff;
  const auto keep = [&](const Buffer<float>& from, float* to) {
    if (trace != nullptr)
      std::memcpy(to, from.data() + static_cast<size_t>(trace->row) * f, sizeof(float) * f);
  };
  Buffer<float> gate, up;
  if (!up.Resize(static_cast<uint64_t>(rows) * f) ||
      (m_.gated_ffn && !gate.Resize(static_cast<uint64_t>(rows) * f))) {
    return Status::kOutOfMemory;
  }
  Status status = MultiplyPanels(x, d, rows, d, w.up, w.up_bias, f, up.data(), f);
  if (status != Status::kOk) return status;
  if (m_.gated_ffn) {
    status = MultiplyPanels(x, d, rows, d, w.gate, nullptr, f, gate.data(), f);
    if (status != Status::kOk) return status;
    if (trace != nullptr) keep(gate, trace->pre), keep(up, trace->up);
    Activate(m_.activation, gate.data(), gate.size(), gate.data());
    for (size_t i = 0; i < up.size(); ++i) up[i] *= gate[i];
  } else {
    if (trace != nullptr) keep(up, trace->pre);
    Activate(m_.activation, up.data(), up.size(), up.data());
  }
  if (trace != nullptr) keep(up, trace->hidden);
  return MultiplyPanels(up.data(), f, rows, f, w.down, w.down_bias, d, out, d);
}

// One block, in place.   x: [rows, d]   attention_weights: [B, H, T, S] or null
//   pre-norm:  x += Attn(Norm1(x));  x += FFN(Norm2(x))
//   sandwich:  x += PostAttn(Attn(Norm1(x)));  x += PostFfn(FFN(Norm2(x)))   (post_norms)
//   after:     x += PostAttn(Attn(x));  x += PostFfn(FFN(x))   (post_norms, no input_norms: OLMo 2)
//   post-norm: x = Norm1(x + Attn(x));  x = Norm2(x + FFN(x))
// long_rope: this call's positions reach past rope_original_max (longrope's long factors).
Status PretrainedModel::Block(int l, const ModelInput& in, bool long_rope, float* x,
                              float* attention_weights) {
  const int d = m_.d_model;
  const int rows = in.batch * in.len;
  const LayerWeights& w = layers_[l];
  float* normed = normed_.data();
  float* sub = sub_.data();
  // 1. Attention with its residual.
  const float* attention_in = x;
  if (m_.pre_norm && m_.input_norms && (l > 0 || m_.first_attention_norm)) {
    Norm(w.norm1, x, rows, normed);
    attention_in = normed;
  }
  LayerCache cache = CacheOf(l);
  SelfAttentionCall c;
  c.x = attention_in, c.positions = in.positions, c.lengths = in.lengths;
  c.batch = in.batch, c.len = in.len, c.d_model = d;
  c.num_heads = m_.num_heads, c.num_kv_heads = m_.num_kv_heads, c.head_dim = m_.head_dim;
  c.scale = m_.attention_scale, c.softcap = m_.attention_softcap, c.norm_eps = m_.norm_eps;
  c.causal = m_.causal;
  c.qk_norm_full_width = m_.qk_norm_full_width;
  c.window_left = specs_[l].window_left;
  c.rotary = specs_[l].rotary;
  if (c.rotary.scaling == RopeScaling::kLongRope) {
    c.rotary.factors = long_rope ? m_.rope_long_factors.data() : m_.rope_short_factors.data();
  }
  c.cache = in.use_cache ? &cache : nullptr;
  c.past = cache_length_, c.capacity = cache_capacity_;
  c.out = sub, c.attention_weights = attention_weights;
  if (l == in.keep_qk_layer) c.keep_q = q_keep_.data(), c.keep_k = k_keep_.data();
  const bool traced = in.trace_position >= 0;
  AttentionTrace attention_trace;
  if (traced) {
    attention_trace = AttentionTraceOf(in, l);
    c.trace = &attention_trace;
    KeepTraced(in, TraceField::kNorm1, l, attention_in, d);
  }
  Status status = SelfAttentionForward(c, w.attention);
  if (status != Status::kOk) return status;
  if (traced) KeepTraced(in, TraceField::kAttentionOut, l, sub, d);
  if (m_.post_norms) Norm(w.post_attention, sub, rows, sub);
  ScaleResidual(sub, rows * d);
  AddInto(x, sub, rows * d, x);
  if (!m_.pre_norm) Norm(w.norm1, x, rows, x);
  if (traced) KeepTraced(in, TraceField::kAttentionResidual, l, x, d);
  // 2. Feed-forward network with its residual.
  const float* ffn_in = x;
  if (m_.pre_norm && m_.input_norms) {
    Norm(w.norm2, x, rows, normed);
    ffn_in = normed;
  }
  FfnTrace ffn_trace;
  if (traced) {
    ffn_trace = FfnTraceOf(in, l);
    KeepTraced(in, TraceField::kNorm2, l, ffn_in, d);
  }
  status = FeedForwardOf(w, ffn_in, rows, sub, traced ? &ffn_trace : nullptr);
  if (status != Status::kOk) return status;
  if (traced) KeepTraced(in, TraceField::kMlpOut, l, sub, d);
  if (m_.post_norms) Norm(w.post_ffn, sub, rows, sub);
  ScaleResidual(sub, rows * d);
  AddInto(x, sub, rows * d, x);
  if (!m_.pre_norm) Norm(w.norm2, x, rows, x);
  if (traced) KeepTraced(in, TraceField::kResidual, l, x, d);
  return Status::kOk;
}

// logits = transform(x)·D + bias, on every row or each sequence's last real row.
//   x: [rows, d]   logits_: [rows or B, V]
Status PretrainedModel::LmHead(const ModelInput& in, const float* x) {
  const int d = m_.d_model;
  int rows = in.batch * in.len;
  if (in.last_logits_only) {
    float* picked = sub_.data();  // free after the last block
    for (int b = 0; b < in.batch; ++b) {
      const int last = b * in.len + (in.lengths != nullptr ? in.lengths[b] : in.len) - 1;
      std::memcpy(picked + static_cast<size_t>(b) * d, x + static_cast<size_t>(last) * d,
                  sizeof(float) * d);
    }
    x = picked;
    rows = in.batch;
  }
  if (!logits_.Resize(static_cast<uint64_t>(rows) * m_.vocab_size)) return Status::kOutOfMemory;
  const GlobalWeights& g = global_;
  const float* t = x;
  if (m_.lm_transform) {
    float* h = normed_.data();
    const Status status =
        MultiplyPanels(x, d, rows, d, g.lm_transform, g.lm_transform_bias, d, h, d);
    if (status != Status::kOk) return status;
    Activate(m_.lm_activation, h, static_cast<size_t>(rows) * d, h);
    Norm(g.lm_norm, h, rows, h);
    t = h;
  }
  const Status status = MultiplyPanels(t, d, rows, d, g.lm_decoder, g.lm_bias, m_.vocab_size,
                                       logits_.data(), m_.vocab_size);
  if (status != Status::kOk) return status;
  if (m_.logits_scaling != 1.0f) {  // Granite: logits / logits_scaling
    for (size_t i = 0; i < logits_.size(); ++i) logits_[i] /= m_.logits_scaling;
  }
  if (m_.final_softcap > 0.0f) {  // Gemma 2: cap·tanh(logits / cap)
    const float cap = m_.final_softcap;
    for (size_t i = 0; i < logits_.size(); ++i) logits_[i] = cap * std::tanh(logits_[i] / cap);
  }
  return Status::kOk;
}

// Whether this call's last position passes longrope's original context (Hugging Face's
// _longrope_frequency_update: max(position_ids) + 1 > original_max_position_embeddings picks
// the long factors for the whole call).
bool PretrainedModel::LongRope(const ModelInput& in) const {
  if (m_.rope_scaling != RopeScaling::kLongRope) return false;
  const int64_t rows = int64_t{in.batch} * in.len;
  for (int64_t r = 0; r < rows; ++r) {
    if (int64_t{in.positions[r]} + 1 > m_.rope_original_max) return true;
  }
  return false;
}

Status PretrainedModel::Forward(const ModelInput& in) {
  const Status checked = CheckInput(in);
  if (checked != Status::kOk) return checked;
  // longrope's factors follow the whole call's last position, in chunks too.
  const bool long_rope = LongRope(in);
  return Chunked(in) ? ForwardInChunks(in, long_rope) : ForwardRows(in, long_rope);
}

// One checked call's rows at once: embeddings, blocks, final norm, LM head.
Status PretrainedModel::ForwardRows(const ModelInput& in, bool long_rope) {
  const int d = m_.d_model;
  const uint64_t rows = static_cast<uint64_t>(in.batch) * in.len;
  const uint64_t layer_floats = rows * d;
  const uint64_t map_floats = static_cast<uint64_t>(in.batch) * m_.num_heads * in.len * SeqK(in);
  // 1. Buffers: the running state, the block's scratch, and the outputs asked for.
  if (!x_.Resize(layer_floats) || !normed_.Resize(layer_floats) || !sub_.Resize(layer_floats) ||
      !hidden_.Resize(in.hidden_states ? layer_floats * (m_.num_layers + 1) : 0) ||
      !attn_.Resize(in.attentions ? map_floats * m_.num_layers : 0) ||
      !q_keep_.Resize(in.keep_qk_layer >= 0 ? rows * QueryWidth(m_) : 0) ||
      !k_keep_.Resize(in.keep_qk_layer >= 0 ? rows * KvWidth(m_) : 0) ||
      !trace_.Assign(in.trace_position >= 0 ? TraceFloats(m_, in.len) : 0, 0.0f)) {
    return Status::kOutOfMemory;
  }
  trace_len_ = in.len;
  output_ = x_.data();
  if (rows == 0) return Status::kOk;
  // 2. Embeddings, then the blocks; each layer's state copied out when asked.
  float* x = x_.data();
  Embed(in, x);
  if (in.trace_position >= 0) TraceEmbedding(in, x);
  auto keep = [&](int slot) {
    if (in.hidden_states)
      std::memcpy(hidden_.data() + slot * layer_floats, x, sizeof(float) * layer_floats);
  };
  keep(0);
  for (int l = 0; l < m_.num_layers; ++l) {
    float* maps = in.attentions ? attn_.data() + l * map_floats : nullptr;
    const Status status = Block(l, in, long_rope, x, maps);
    if (status != Status::kOk) return status;
    if (l + 1 < m_.num_layers || !m_.final_norm) keep(l + 1);
  }
  if (in.use_cache) cache_length_ += in.len;
  // 3. The final norm (its output is the last hidden state), then the LM head.
  if (m_.final_norm) {
    Norm(global_.final_norm, x, static_cast<int>(rows), x);
    keep(m_.num_layers);
  }
  KeepTraced(in, TraceField::kFinal, 0, x, d);
  if (!m_.lm_head || !in.logits) return Status::kOk;
  const Status status = LmHead(in, x);
  if (status == Status::kOk && !in.last_logits_only)
    KeepTraced(in, TraceField::kLogits, 0, logits_.data(), m_.vocab_size);
  return status;
}

void PretrainedModel::ReleaseOutputs() {
  for (Buffer<float>* b :
       {&hidden_, &attn_, &logits_, &x_, &normed_, &sub_, &q_keep_, &k_keep_, &trace_})
    b->Clear();
  output_ = nullptr;
}

uint64_t PretrainedModel::ForwardBytes(const ModelInput& in) const {
  // In chunks, the activations of one chunk (the last attends over the most keys), and its
  // ids, positions and token types gathered.
  const int len = LenAtOnce(in);
  const uint64_t rows = static_cast<uint64_t>(in.batch) * len;
  const uint64_t layer_floats = rows * m_.d_model;
  const uint64_t map_floats = static_cast<uint64_t>(in.batch) * m_.num_heads * in.len * SeqK(in);
  uint64_t floats = 3 * layer_floats + (Chunked(in) ? 3 * rows : 0);
  if (in.hidden_states) floats += layer_floats * (m_.num_layers + 1);
  if (in.attentions) floats += map_floats * m_.num_layers;
  if (in.logits && m_.lm_head) floats += (in.last_logits_only ? in.batch : rows) * m_.vocab_size;
  if (in.keep_qk_layer >= 0) floats += rows * (QueryWidth(m_) + KvWidth(m_));
  if (in.trace_position >= 0) floats += TraceFloats(m_, len);
  // A block's own scratch at its peak: the attention's or the feed-forward network's.
  SelfAttentionCall c;
  c.batch = in.batch, c.len = len, c.d_model = m_.d_model;
  c.num_heads = m_.num_heads, c.num_kv_heads = m_.num_kv_heads, c.head_dim = m_.head_dim;
  LayerCache cache;  // its storage is what the scratch depends on
  cache.storage = cache_storage_;
  c.cache = in.use_cache ? &cache : nullptr;
  c.past = cache_length_ + in.len - len, c.capacity = cache_capacity_;
  c.attention_weights = in.attentions ? const_cast<float*>(params_.data()) : nullptr;  // likewise
  const uint64_t ffn =
      m_.gated_ffn ? sizeof(float) * 2 * rows * m_.d_ff
                   : FeedForwardScratchBytes(static_cast<int>(rows), m_.d_model, m_.d_ff, true);
  // Quantized matrices code their activations first: rows of the widest input.
  const int widest = std::max({m_.d_model, m_.d_ff, QueryWidth(m_)});
  const uint64_t codes = any_quantized_ ? QuantScratchBytes(static_cast<int>(rows), widest) : 0;
  const uint64_t trace = in.trace_position >= 0 ? TraceRowScratchBytes(m_, len) : 0;
  return sizeof(float) * floats + std::max(SelfAttentionScratchBytes(c), ffn) + codes + trace;
}

}  // namespace attn
