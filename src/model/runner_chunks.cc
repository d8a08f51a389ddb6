// A cached call in chunks (runner.h, kPrefillChunk): a long prompt runs kPrefillChunk
// positions at a time, each chunk's keys and values appended to the cache before the next
// chunk attends over them. Query t of a chunk starting at s sits at position past + s + t and
// sees keys < past + s + t + 1, as it would in one call, so the keys, values and logits are
// those of the one call; only the activations shrink, from [B·T, ...] to [B·kPrefillChunk, ...].
#include <algorithm>
#include <cstring>

#include "model/runner.h"

namespace attn {

bool PretrainedModel::Chunked(const ModelInput& in) const {
  const bool per_row_logits = in.logits && m_.lm_head && !in.last_logits_only;
  return in.use_cache && in.len > kPrefillChunk && !in.hidden_states && !in.attentions &&
         in.keep_qk_layer < 0 && !per_row_logits;
}

int PretrainedModel::LenAtOnce(const ModelInput& in) const {
  return Chunked(in) ? kPrefillChunk : in.len;
}

namespace {

// Columns [start, start + len) of each of `batch` rows of `from` (row length `stride`), packed
// into `to`; null stays null.   from: [batch, stride]   to: [batch, len]
const int32_t* GatherColumns(const int32_t* from, int batch, int stride, int start, int len,
                             int32_t* to) {
  if (from == nullptr) return nullptr;
  for (int b = 0; b < batch; ++b) {
    std::memcpy(to + static_cast<size_t>(b) * len, from + static_cast<size_t>(b) * stride + start,
                sizeof(int32_t) * len);
  }
  return to;
}

}  // namespace

// `in` is checked and Chunked. Every chunk but the last runs without the LM head.
//   in.ids, in.positions, in.token_types: [B, T]
Status PretrainedModel::ForwardInChunks(const ModelInput& in, bool long_rope) {
  const uint64_t slots = static_cast<uint64_t>(in.batch) * kPrefillChunk;
  Buffer<int32_t> ids, positions, types;
  if (!ids.Resize(slots) || !positions.Resize(in.positions != nullptr ? slots : 0) ||
      !types.Resize(in.token_types != nullptr ? slots : 0)) {
    return Status::kOutOfMemory;
  }
  for (int start = 0; start < in.len; start += kPrefillChunk) {
    ModelInput chunk = in;
    chunk.len = std::min(kPrefillChunk, in.len - start);
    chunk.logits = in.logits && start + chunk.len == in.len;
    chunk.ids = GatherColumns(in.ids, in.batch, in.len, start, chunk.len, ids.data());
    chunk.positions =
        GatherColumns(in.positions, in.batch, in.len, start, chunk.len, positions.data());
    chunk.token_types =
        GatherColumns(in.token_types, in.batch, in.len, start, chunk.len, types.data());
    const Status status = ForwardRows(chunk, long_rope);  // appends to the cache
    if (status != Status::kOk) return status;
  }
  return Status::kOk;
}

}  // namespace attn
