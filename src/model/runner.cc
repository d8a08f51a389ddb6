#include "model/runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "block.h"
#include "kernels/matmul.h"
#include "multi_head.h"
#include "sizes.h"

namespace attn {

PretrainedModel::PretrainedModel(const ModelDescriptor& descriptor) : m_(descriptor) {}

bool PretrainedModel::Allocate() {
  int count = 0;
  const uint64_t floats = ForEachWeight(m_, [&](const WeightEntry&) { ++count; });
  if (!table_.Resize(count) || !params_.Assign(floats, 0.0f)) return false;
  int i = 0;
  ForEachWeight(m_, [&](const WeightEntry& e) { table_[i++] = e; });
  return true;
}

void PretrainedModel::SetWeight(int index, const float* src, int src_stride, bool transposed) {
  const WeightEntry& e = table_[index];
  float* dst = params_.data() + e.offset;
  if (e.matrix && transposed) {
    PackTransposedPanels(src, src_stride, e.cols, e.rows, dst);  // src: [cols, rows]
  } else if (e.matrix) {
    PackColumnPanels(src, src_stride, e.rows, e.cols, dst);
  } else {
    for (int r = 0; r < e.rows; ++r) {
      std::memcpy(dst + static_cast<size_t>(r) * e.cols, src + static_cast<size_t>(r) * src_stride,
                  sizeof(float) * e.cols);
    }
  }
}

const float* PretrainedModel::Weight(WeightKind kind, int layer) const {
  for (size_t i = 0; i < table_.size(); ++i) {
    if (table_[i].kind == kind && table_[i].layer == layer) return params_.data() + table_[i].offset;
  }
  return nullptr;  // the descriptor has no such weight (a bias it lacks)
}

Status PretrainedModel::CheckInput(const ModelInput& in) const {
  if (in.batch < 0 || in.len < 0) return Status::kNegativeDimension;
  if (in.ids == nullptr || (m_.max_positions > 0 && in.positions == nullptr)) {
    return Status::kNullPointer;
  }
  const int64_t rows = int64_t{in.batch} * in.len;
  if (!FloatsFit({in.batch, m_.num_heads, in.len, in.len}) ||
      !FloatsFit({rows, std::max({m_.d_model, m_.d_ff, m_.vocab_size})}) ||
      !FloatsFit({m_.num_layers + 1, rows, m_.d_model})) {
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

// x[r] = E[id] + P[position] + TT[type], then the embedding norm.   x: [rows, d]
void PretrainedModel::Embed(const ModelInput& in, float* x) const {
  const int d = m_.d_model;
  const int rows = in.batch * in.len;
  const float* words = Weight(WeightKind::kWordEmbeddings);
  const float* positions = Weight(WeightKind::kPositionEmbeddings);
  const float* types = Weight(WeightKind::kTokenTypeEmbeddings);
  for (int r = 0; r < rows; ++r) {
    float* row = x + static_cast<size_t>(r) * d;
    std::memcpy(row, words + static_cast<size_t>(in.ids[r]) * d, sizeof(float) * d);
    if (positions != nullptr) {
      const float* p = positions + static_cast<size_t>(in.positions[r]) * d;
      for (int c = 0; c < d; ++c) row[c] += p[c];
    }
    if (types != nullptr) {
      const float* t = types + static_cast<size_t>(in.token_types ? in.token_types[r] : 0) * d;
      for (int c = 0; c < d; ++c) row[c] += t[c];
    }
  }
  if (m_.embedding_norm) {
    LayerNorm(x, rows, d, Weight(WeightKind::kEmbeddingNormWeight),
              Weight(WeightKind::kEmbeddingNormBias), m_.norm_eps, x);
  }
}

// One block, in place.   x: [rows, d]   attention_weights: [B, H, T, T] or null
//   pre-norm:  x += Attn(Norm1(x));  x += FFN(Norm2(x))
//   post-norm: x = Norm1(x + Attn(x));  x = Norm2(x + FFN(x))
Status PretrainedModel::Block(int l, const ModelInput& in, float* x, float* attention_weights) {
  const int d = m_.d_model;
  const int rows = in.batch * in.len;
  float* normed = normed_.data();
  float* sub = sub_.data();
  auto norm = [&](WeightKind weight, WeightKind bias, const float* from, float* to) {
    LayerNorm(from, rows, d, Weight(weight, l), Weight(bias, l), m_.norm_eps, to);
  };
  // 1. Attention with its residual.
  const float* attention_in = x;
  if (m_.pre_norm) {
    norm(WeightKind::kNorm1Weight, WeightKind::kNorm1Bias, x, normed);
    attention_in = normed;
  }
  MultiHeadRequest r;
  r.query = r.key = r.value = attention_in;
  r.batch = in.batch;
  r.seq_q = r.seq_k = in.len;
  r.d_model = r.k_dim = r.v_dim = d;
  r.num_heads = m_.num_heads;
  r.num_kv_heads = m_.num_kv_heads;
  r.weights.wq_panels = Weight(WeightKind::kQuery, l);
  r.weights.wk_panels = Weight(WeightKind::kKey, l);
  r.weights.wv_panels = Weight(WeightKind::kValue, l);
  r.weights.wo_panels = Weight(WeightKind::kAttentionOut, l);
  r.weights.bq = Weight(WeightKind::kQueryBias, l);
  r.weights.bk = Weight(WeightKind::kKeyBias, l);
  r.weights.bv = Weight(WeightKind::kValueBias, l);
  r.weights.bo = Weight(WeightKind::kAttentionOutBias, l);
  r.key_lengths = in.lengths;
  r.causal = m_.causal;
  r.out = sub;
  r.attention_weights = attention_weights;
  Status status = MultiHeadForward(r);
  if (status != Status::kOk) return status;
  AddInto(x, sub, rows * d, x);
  if (!m_.pre_norm) norm(WeightKind::kNorm1Weight, WeightKind::kNorm1Bias, x, x);
  // 2. Feed-forward network with its residual.
  const float* ffn_in = x;
  if (m_.pre_norm) {
    norm(WeightKind::kNorm2Weight, WeightKind::kNorm2Bias, x, normed);
    ffn_in = normed;
  }
  status = FeedForward(ffn_in, rows, d, m_.d_ff, nullptr, Weight(WeightKind::kUpBias, l), nullptr,
                       Weight(WeightKind::kDownBias, l), m_.activation, sub,
                       Weight(WeightKind::kUp, l), Weight(WeightKind::kDown, l));
  if (status != Status::kOk) return status;
  AddInto(x, sub, rows * d, x);
  if (!m_.pre_norm) norm(WeightKind::kNorm2Weight, WeightKind::kNorm2Bias, x, x);
  return Status::kOk;
}

// logits = transform(x)·D + bias.   x: [rows, d]   logits_: [rows, V]
Status PretrainedModel::LmHead(const float* x, int rows) {
  const int d = m_.d_model;
  if (!logits_.Resize(static_cast<uint64_t>(rows) * m_.vocab_size)) return Status::kOutOfMemory;
  const float* t = x;
  if (m_.lm_transform) {
    float* h = normed_.data();
    const Status status = MatMul(x, nullptr, Weight(WeightKind::kLmTransformBias), rows, d, d, h,
                                 Weight(WeightKind::kLmTransform));
    if (status != Status::kOk) return status;
    ApplyActivation(m_.lm_activation, h, static_cast<size_t>(rows) * d);
    LayerNorm(h, rows, d, Weight(WeightKind::kLmNormWeight), Weight(WeightKind::kLmNormBias),
              m_.norm_eps, h);
    t = h;
  }
  return MatMul(t, nullptr, Weight(WeightKind::kLmBias), rows, d, m_.vocab_size, logits_.data(),
                Weight(WeightKind::kLmDecoder));
}

Status PretrainedModel::Forward(const ModelInput& in) {
  const Status checked = CheckInput(in);
  if (checked != Status::kOk) return checked;
  const int d = m_.d_model;
  const uint64_t rows = static_cast<uint64_t>(in.batch) * in.len;
  const uint64_t layer_floats = rows * d;
  const uint64_t map_floats = static_cast<uint64_t>(in.batch) * m_.num_heads * in.len * in.len;
  // 1. Buffers: the running state, the block's scratch, and the outputs asked for.
  if (!x_.Resize(layer_floats) || !normed_.Resize(layer_floats) || !sub_.Resize(layer_floats) ||
      !hidden_.Resize(in.hidden_states ? layer_floats * (m_.num_layers + 1) : 0) ||
      !attn_.Resize(in.attentions ? map_floats * m_.num_layers : 0)) {
    return Status::kOutOfMemory;
  }
  output_ = x_.data();
  if (rows == 0) return Status::kOk;
  // 2. Embeddings, then the blocks; each layer's state copied out when asked.
  float* x = x_.data();
  Embed(in, x);
  auto keep = [&](int slot) {
    if (in.hidden_states) std::memcpy(hidden_.data() + slot * layer_floats, x, sizeof(float) * layer_floats);
  };
  keep(0);
  for (int l = 0; l < m_.num_layers; ++l) {
    float* maps = in.attentions ? attn_.data() + l * map_floats : nullptr;
    const Status status = Block(l, in, x, maps);
    if (status != Status::kOk) return status;
    if (l + 1 < m_.num_layers || !m_.final_norm) keep(l + 1);
  }
  // 3. The final norm (its output is the last hidden state), then the LM head.
  if (m_.final_norm) {
    LayerNorm(x, static_cast<int>(rows), d, Weight(WeightKind::kFinalNormWeight),
              Weight(WeightKind::kFinalNormBias), m_.norm_eps, x);
    keep(m_.num_layers);
  }
  if (m_.lm_head && in.logits) return LmHead(x, static_cast<int>(rows));
  return Status::kOk;
}

void PretrainedModel::ReleaseOutputs() {
  for (Buffer<float>* b : {&hidden_, &attn_, &logits_, &x_, &normed_, &sub_}) b->Clear();
  output_ = nullptr;
}

uint64_t PretrainedModel::ForwardBytes(int batch, int len, bool hidden_states, bool attentions,
                                       bool logits) const {
  const uint64_t rows = static_cast<uint64_t>(batch) * len;
  const uint64_t layer_floats = rows * m_.d_model;
  const uint64_t map_floats = static_cast<uint64_t>(batch) * m_.num_heads * len * len;
  uint64_t floats = 3 * layer_floats;
  if (hidden_states) floats += layer_floats * (m_.num_layers + 1);
  if (attentions) floats += map_floats * m_.num_layers;
  if (logits && m_.lm_head) floats += rows * m_.vocab_size;
  // A block's own scratch at its peak: the attention's projections or the FFN's hidden layer.
  MultiHeadRequest r;
  r.batch = batch, r.seq_q = r.seq_k = len, r.d_model = r.k_dim = r.v_dim = m_.d_model;
  r.num_heads = m_.num_heads, r.num_kv_heads = m_.num_kv_heads;
  r.weights.wq_panels = r.weights.wk_panels = r.weights.wv_panels = r.weights.wo_panels =
      params_.data();
  r.attention_weights = attentions ? const_cast<float*>(params_.data()) : nullptr;  // only tested for null
  const uint64_t block = std::max(MultiHeadScratchBytes(r),
                                  FeedForwardScratchBytes(static_cast<int>(rows), m_.d_model, m_.d_ff, true));
  return sizeof(float) * floats + block;
}

}  // namespace attn
