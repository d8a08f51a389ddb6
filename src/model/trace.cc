#include "model/trace.h"

#include "attention.h"
#include "buffer.h"
#include "model/descriptor.h"
#include "model/weights.h"

namespace attn {

namespace {

constexpr bool kPerLayer[] = {
#define ATTN_TRACE_FIELD_PER_LAYER(name, per_layer) per_layer,
    ATTN_TRACE_FIELDS(ATTN_TRACE_FIELD_PER_LAYER)
#undef ATTN_TRACE_FIELD_PER_LAYER
};

bool PerLayer(TraceField field) { return kPerLayer[static_cast<int>(field)]; }

// The floats of the fields before `end` that are per layer (or model-wide).
uint64_t FloatsBefore(const ModelDescriptor& m, int len, int end, bool per_layer) {
  uint64_t floats = 0;
  for (int f = 0; f < end; ++f) {
    if (kPerLayer[f] == per_layer) floats += TraceFieldFloats(m, len, static_cast<TraceField>(f));
  }
  return floats;
}

constexpr int kFieldCount = static_cast<int>(TraceField::kCount);

}  // namespace

uint64_t TraceFieldFloats(const ModelDescriptor& m, int len, TraceField field) {
  const uint64_t t = static_cast<uint64_t>(len);
  switch (field) {
    case TraceField::kLogits:
      return static_cast<uint64_t>(m.vocab_size);
    case TraceField::kQuery:
    case TraceField::kHeads:
      return static_cast<uint64_t>(QueryWidth(m));
    case TraceField::kKeys:
    case TraceField::kValues:
      return t * KvWidth(m);
    case TraceField::kScores:
    case TraceField::kMaskedScores:
    case TraceField::kWeights:
      return t * m.num_heads;
    case TraceField::kMlpPre:
    case TraceField::kMlpUp:
    case TraceField::kMlpHidden:
      return static_cast<uint64_t>(m.d_ff);
    default:
      return static_cast<uint64_t>(m.d_model);
  }
}

// Model-wide fields first (in list order), then each layer's fields (in list order).
uint64_t TraceOffset(const ModelDescriptor& m, int len, TraceField field, int layer) {
  const bool per_layer = PerLayer(field);
  const uint64_t before = FloatsBefore(m, len, static_cast<int>(field), per_layer);
  if (!per_layer) return before;
  return FloatsBefore(m, len, kFieldCount, false) +
         static_cast<uint64_t>(layer) * FloatsBefore(m, len, kFieldCount, true) + before;
}

uint64_t TraceFloats(const ModelDescriptor& m, int len) {
  return FloatsBefore(m, len, kFieldCount, false) +
         static_cast<uint64_t>(m.num_layers) * FloatsBefore(m, len, kFieldCount, true);
}

Status TraceAttentionRow(const TraceRowCall& c, const AttentionTrace& trace) {
  const int qw = c.num_heads * c.head_dim, kv = c.num_kv_heads * c.head_dim;
  const int group = c.num_heads / c.num_kv_heads;
  // 1. One entry per head: the traced query (one row) against every key of its kv head; the
  //    row sits at position `row` (the causal rule and the window's centre).
  Buffer<int32_t> entries;
  Buffer<float> out;  // the heads' outputs again (the runner's own are trace.heads)
  if (!entries.Resize(static_cast<uint64_t>(c.num_heads) * kEntryColumns) || !out.Resize(qw)) {
    return Status::kOutOfMemory;
  }
  for (int h = 0; h < c.num_heads; ++h) {
    int32_t* e = entries.data() + static_cast<size_t>(h) * kEntryColumns;
    e[kQOffset] = h * c.head_dim;
    e[kKOffset] = e[kVOffset] = (h / group) * c.head_dim;
    e[kMaskOffset] = 0;
    e[kKeyLimit] = c.key_limit;
    e[kCausalOffset] = trace.row;
  }
  AttentionRequest a;
  a.q = trace.query, a.k = trace.keys, a.v = trace.values;
  a.entries = entries.data();
  a.batch = c.num_heads, a.seq_q = 1, a.seq_k = c.len;
  a.head_dim = a.value_dim = c.head_dim;
  a.q_stride = qw, a.k_stride = a.v_stride = kv;
  a.scale = c.scale, a.softcap = c.softcap, a.causal = c.causal;
  a.window_left = c.window_left, a.window_right = c.window_right;
  // 2. The stages: capped scores (the scaled ones without a cap), masked scores, weights.
  a.out = out.data();
  a.weights = trace.weights;
  a.capped_scores = trace.scores;
  a.masked_scores = trace.masked;
  return RunAttention(a);
}

uint64_t TraceRowScratchBytes(const ModelDescriptor& m, int len) {
  AttentionRequest a;
  a.batch = m.num_heads, a.seq_q = 1, a.seq_k = len, a.head_dim = a.value_dim = m.head_dim;
  a.weights = reinterpret_cast<float*>(&a);  // the step-by-step path (any non-null)
  const uint64_t own =
      sizeof(int32_t) * m.num_heads * kEntryColumns + sizeof(float) * QueryWidth(m);
  return own + AttentionScratchBytes(a);
}

}  // namespace attn
