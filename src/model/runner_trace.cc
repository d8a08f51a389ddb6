// The runner's side of a trace (trace.h, ModelInput::trace_position): where each field of the
// trace buffer lies, and the traced row copied into it as the forward pass goes. A call
// without a trace never comes here (each hook is behind trace_position >= 0).
#include <cstring>

#include "model/runner.h"

namespace attn {

float* PretrainedModel::TraceAt(TraceField field, int layer) {
  return trace_.data() + TraceOffset(m_, trace_len_, field, layer);
}

// Row trace_position of x into the field.   x: [rows, width]
void PretrainedModel::KeepTraced(const ModelInput& in, TraceField field, int layer, const float* x,
                                 int width) {
  if (in.trace_position < 0) return;
  std::memcpy(TraceAt(field, layer), x + static_cast<size_t>(in.trace_position) * width,
              sizeof(float) * width);
}

// The traced row's embedding, and its parts: the token's row of the table (× the multiplier)
// and the position's row of a learned table.   x: [rows, d] the embeddings
void PretrainedModel::TraceEmbedding(const ModelInput& in, const float* x) {
  const int d = m_.d_model;
  const int p = in.trace_position;
  KeepTraced(in, TraceField::kEmbedding, 0, x, d);
  WordRow(in.ids[p], TraceAt(TraceField::kTokenEmbedding, 0));
  if (global_.positions != nullptr) {
    std::memcpy(TraceAt(TraceField::kPositionEmbedding, 0),
                global_.positions + static_cast<size_t>(in.positions[p]) * d, sizeof(float) * d);
  }
}

AttentionTrace PretrainedModel::AttentionTraceOf(const ModelInput& in, int layer) {
  AttentionTrace t;
  t.row = in.trace_position;
  t.query = TraceAt(TraceField::kQuery, layer);
  t.keys = TraceAt(TraceField::kKeys, layer);
  t.values = TraceAt(TraceField::kValues, layer);
  t.scores = TraceAt(TraceField::kScores, layer);
  t.masked = TraceAt(TraceField::kMaskedScores, layer);
  t.weights = TraceAt(TraceField::kWeights, layer);
  t.heads = TraceAt(TraceField::kHeads, layer);
  return t;
}

FfnTrace PretrainedModel::FfnTraceOf(const ModelInput& in, int layer) {
  FfnTrace t;
  t.row = in.trace_position;
  t.pre = TraceAt(TraceField::kMlpPre, layer);
  t.up = TraceAt(TraceField::kMlpUp, layer);
  t.hidden = TraceAt(TraceField::kMlpHidden, layer);
  return t;
}

}  // namespace attn
