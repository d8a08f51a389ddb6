#include "model/self_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

#include "attention.h"
#include "block.h"
#include "kernels/matmul.h"

namespace attn {

double RotaryFrequency(const RotarySpec& spec, int i) {
  const double f = std::pow(spec.base, -2.0 * i / spec.dim);
  switch (spec.scaling) {
    case RopeScaling::kLinear:
      return f / spec.factor;
    case RopeScaling::kLlama3: {  // _compute_llama3_parameters
      constexpr double kPi = 3.141592653589793;
      const double wavelength = 2.0 * kPi / f;
      const double low_wavelength = spec.original_max / spec.low_freq_factor;
      const double high_wavelength = spec.original_max / spec.high_freq_factor;
      if (wavelength > low_wavelength) return f / spec.factor;  // low frequencies: scaled
      if (wavelength < high_wavelength) return f;               // high frequencies: kept
      const double smooth = (spec.original_max / wavelength - spec.low_freq_factor) /
                            (spec.high_freq_factor - spec.low_freq_factor);
      return (1.0 - smooth) * f / spec.factor + smooth * f;
    }
    case RopeScaling::kLongRope:  // _compute_longrope_parameters: 1 / (ext · base^(2i/dim))
      return f / spec.factors[i];
    default:
      return f;
  }
}

void ApplyRotary(float* x, int rows, int heads, int head_dim, const int32_t* positions,
                 const RotarySpec& spec) {
  const int half = spec.dim / 2;
  if (half == 0) return;
  // The frequencies once per call: base^(-2i/dim), in double.
  Buffer<double> inverse;
  if (!inverse.Resize(half)) return;  // never: half <= head_dim / 2 doubles
  for (int i = 0; i < half; ++i) inverse[i] = RotaryFrequency(spec, i);
  const int width = heads * head_dim;
  for (int r = 0; r < rows; ++r) {
    float* row = x + static_cast<size_t>(r) * width;
    for (int i = 0; i < half; ++i) {
      const double angle = positions[r] * inverse[i];
      const double c = std::cos(angle) * spec.attention_factor;
      const double s = std::sin(angle) * spec.attention_factor;
      const int a = spec.interleaved ? 2 * i : i;             // first of the pair
      const int b = spec.interleaved ? 2 * i + 1 : i + half;  // second of the pair
      for (int h = 0; h < heads; ++h) {
        float* head = row + h * head_dim;
        const double xa = head[a], xb = head[b];
        head[a] = static_cast<float>(xa * c - xb * s);
        head[b] = static_cast<float>(xb * c + xa * s);
      }
    }
  }
}

namespace {

// How the keys and values attention reads lie, for sequence b and kv head h: `slices` blocks of
// `slice_rows` rows of `width` elements each per sequence; head h's rows start in slice
// h·head_dim / width at column h·head_dim % width, width elements apart.
//   a cache read in place: [batch, kv / w, capacity, w] (w = CacheRowWidth, head-major)
//   the new keys (no cache) or a q8_0 cache's rows read into scratch: [batch, 1, rows, kv]
struct ReadLayout {
  int slices, slice_rows, width;
};

struct Sizes {
  int rows, head_dim, qw, kv, group, seq_k;
  ReadLayout read;
};

bool Q8Cache(const SelfAttentionCall& c) {
  return c.cache != nullptr && c.cache->storage == KvStorage::kQ8_0;
}

// Whether attention reads a q8_0 cache where it lies: when its rows are whole blocks
// (head_dim, or else kv, a multiple of 32, as every real model's is); else the rows a call
// reads are dequantized into scratch first (ReadQ8Cache).
bool Q8InPlace(const SelfAttentionCall& c) {
  return Q8Cache(c) &&
         CacheRowWidth(KvStorage::kQ8_0, c.num_kv_heads, c.head_dim) % kKvQ8Block == 0;
}
bool Q8Scratch(const SelfAttentionCall& c) { return Q8Cache(c) && !Q8InPlace(c); }

Sizes SizesOf(const SelfAttentionCall& c) {
  Sizes s;
  s.rows = c.batch * c.len;
  s.head_dim = c.head_dim;
  s.qw = c.num_heads * s.head_dim;
  s.kv = c.num_kv_heads * s.head_dim;
  s.group = c.num_heads / c.num_kv_heads;
  s.seq_k = c.cache != nullptr ? c.past + c.len : c.len;
  if (c.cache == nullptr) {
    s.read = {1, c.len, s.kv};
  } else if (Q8Scratch(c)) {
    s.read = {1, s.seq_k, s.kv};
  } else {
    const int w = CacheRowWidth(c.cache->storage, c.num_kv_heads, c.head_dim);
    s.read = {s.kv / w, c.capacity, w};
  }
  return s;
}

// Where kv head h of sequence b starts in the keys (and values) attention reads, in elements.
int64_t ReadOffset(const Sizes& s, int b, int h) {
  const ReadLayout& r = s.read;
  const int column = h * s.head_dim;
  const int64_t slice = int64_t{b} * r.slices + column / r.width;
  return slice * r.slice_rows * r.width + column % r.width;
}

// Appends the new keys and values of each sequence at position `past` of the cache, rounded
// to a half or q8_0 cache's storage, each new row split into its kv / w head-major rows.
//   k_new, v_new: [rows, kv]
void AppendToCache(const SelfAttentionCall& c, const Sizes& s, const float* k_new,
                   const float* v_new) {
  const LayerCache& cache = *c.cache;
  const int w = CacheRowWidth(cache.storage, c.num_kv_heads, c.head_dim), slices = s.kv / w;
  const size_t row_bytes = KvRowBytes(KvStorage::kQ8_0, w);
  for (int b = 0; b < c.batch; ++b) {
    for (int slice = 0; slice < slices; ++slice) {
      for (int t = 0; t < c.len; ++t) {
        // Row `past + t` of the slice, and its w elements in the new rows.
        const size_t row = (static_cast<size_t>(b) * slices + slice) * c.capacity + c.past + t;
        const size_t from = (static_cast<size_t>(b) * c.len + t) * s.kv + slice * w;
        if (cache.storage == KvStorage::kQ8_0) {
          QuantizeKvRow(k_new + from, w, cache.kq + row * row_bytes);
          QuantizeKvRow(v_new + from, w, cache.vq + row * row_bytes);
        } else if (cache.storage == KvStorage::kFloat32) {
          std::memcpy(cache.k + row * w, k_new + from, sizeof(float) * w);
          std::memcpy(cache.v + row * w, v_new + from, sizeof(float) * w);
        } else {
          NarrowRow(k_new + from, w, cache.storage, cache.k16 + row * w);
          NarrowRow(v_new + from, w, cache.storage, cache.v16 + row * w);
        }
      }
    }
  }
}

// The first seq_k rows of each sequence of a q8_0 cache whose rows are whole kv rows (heads
// not in whole blocks: CacheRowWidth), dequantized for attention to read (the new rows
// included: every call reads the rounded keys and values alike).
//   k, v: [batch, seq_k, kv]
bool ReadQ8Cache(const SelfAttentionCall& c, const Sizes& s, Buffer<float>& k, Buffer<float>& v) {
  if (!k.Resize(static_cast<uint64_t>(c.batch) * s.seq_k * s.kv) ||
      !v.Resize(static_cast<uint64_t>(c.batch) * s.seq_k * s.kv)) {
    return false;
  }
  const size_t row_bytes = KvRowBytes(KvStorage::kQ8_0, s.kv);
  for (int b = 0; b < c.batch; ++b) {
    for (int t = 0; t < s.seq_k; ++t) {
      const size_t from = (static_cast<size_t>(b) * c.capacity + t) * row_bytes;
      const size_t to = (static_cast<size_t>(b) * s.seq_k + t) * s.kv;
      DequantizeKvRow(c.cache->kq + from, s.kv, k.data() + to);
      DequantizeKvRow(c.cache->vq + from, s.kv, v.data() + to);
    }
  }
  return true;
}

// Each head of x normalised on its own (an RMS norm over head_dim columns), in place.
//   x: [rows, heads · head_dim]   weight: [head_dim]
void NormEachHead(float* x, int rows, int heads, int head_dim, const float* weight, float eps) {
  RmsNorm(x, rows * heads, head_dim, weight, eps, x);
}

// The traced row's query, every row's keys and values.   q: [rows, qw]   k, v: [rows, kv]
void KeepTraced(const AttentionTrace& t, const Sizes& s, const float* q, const float* k,
                const float* v) {
  std::memcpy(t.query, q + static_cast<size_t>(t.row) * s.qw, sizeof(float) * s.qw);
  std::memcpy(t.keys, k, sizeof(float) * s.rows * s.kv);
  std::memcpy(t.values, v, sizeof(float) * s.rows * s.kv);
}

// The traced row's heads as the call computed them, then its attention stages.
//   concat: [rows, qw]
Status TraceRow(const SelfAttentionCall& c, const Sizes& s, const AttentionRequest& a,
                const float* concat) {
  const AttentionTrace& t = *c.trace;
  std::memcpy(t.heads, concat + static_cast<size_t>(t.row) * s.qw, sizeof(float) * s.qw);
  TraceRowCall row;
  row.len = c.len, row.num_heads = c.num_heads, row.num_kv_heads = c.num_kv_heads;
  row.head_dim = s.head_dim;
  row.key_limit = c.lengths != nullptr ? c.lengths[0] : s.seq_k;
  row.window_left = a.window_left, row.window_right = a.window_right;
  row.scale = a.scale, row.softcap = a.softcap, row.causal = a.causal;
  return TraceAttentionRow(row, t);
}

}  // namespace

Status SelfAttentionForward(const SelfAttentionCall& c, const AttentionWeights& w) {
  const Sizes s = SizesOf(c);
  // 0. Scratch: the projections and the heads' concatenated outputs.
  Buffer<float> q, k_new, v_new, concat;
  Buffer<int32_t> entries;
  const int entry_count = c.batch * c.num_heads;
  if (!q.Resize(static_cast<uint64_t>(s.rows) * s.qw) ||
      !k_new.Resize(static_cast<uint64_t>(s.rows) * s.kv) ||
      !v_new.Resize(static_cast<uint64_t>(s.rows) * s.kv) ||
      !concat.Resize(static_cast<uint64_t>(s.rows) * s.qw) ||
      !entries.Resize(static_cast<uint64_t>(entry_count) * kEntryColumns)) {
    return Status::kOutOfMemory;
  }
  // 1. Projections, the per-head norms of queries and keys, then their rotary embedding.
  for (const auto& [weights, bias, width, out] :
       {std::tuple{w.wq, w.bq, s.qw, q.data()}, std::tuple{w.wk, w.bk, s.kv, k_new.data()},
        std::tuple{w.wv, w.bv, s.kv, v_new.data()}}) {
    const Status status =
        MultiplyPanels(c.x, c.d_model, s.rows, c.d_model, weights, bias, width, out, width);
    if (status != Status::kOk) return status;
  }
  if (w.q_norm != nullptr && c.qk_norm_full_width) {  // OLMo 2: over heads · head_dim at once
    RmsNorm(q.data(), s.rows, s.qw, w.q_norm, c.norm_eps, q.data());
    RmsNorm(k_new.data(), s.rows, s.kv, w.k_norm, c.norm_eps, k_new.data());
  } else if (w.q_norm != nullptr) {
    NormEachHead(q.data(), s.rows, c.num_heads, s.head_dim, w.q_norm, c.norm_eps);
    NormEachHead(k_new.data(), s.rows, c.num_kv_heads, s.head_dim, w.k_norm, c.norm_eps);
  }
  if (c.rotary.dim > 0) {
    ApplyRotary(q.data(), s.rows, c.num_heads, s.head_dim, c.positions, c.rotary);
    ApplyRotary(k_new.data(), s.rows, c.num_kv_heads, s.head_dim, c.positions, c.rotary);
  }
  if (c.keep_q != nullptr) std::memcpy(c.keep_q, q.data(), sizeof(float) * q.size());
  if (c.keep_k != nullptr) std::memcpy(c.keep_k, k_new.data(), sizeof(float) * k_new.size());
  if (c.trace != nullptr) KeepTraced(*c.trace, s, q.data(), k_new.data(), v_new.data());
  // 2. The keys and values attended to: the new ones, or the cache they join (read back from
  //    it, so a half cache's new keys and values are the rounded ones too).
  AttentionRequest a;
  a.k = k_new.data(), a.v = v_new.data();
  Buffer<float> k_read, v_read;  // a q8_0 cache's rows, dequantized
  if (c.cache != nullptr) AppendToCache(c, s, k_new.data(), v_new.data());
  if (Q8Scratch(c)) {
    if (!ReadQ8Cache(c, s, k_read, v_read)) return Status::kOutOfMemory;
    a.k = k_read.data(), a.v = v_read.data();
  } else if (c.cache != nullptr) {
    a.kv_storage = c.cache->storage;
    a.kq = c.cache->kq, a.vq = c.cache->vq;
    a.k = c.cache->k, a.v = c.cache->v;
    a.k16 = c.cache->k16, a.v16 = c.cache->v16;
  }
  // 3. One entry per (sequence, head); head h reads kv head h / group. A decode step (one new
  //    position) with heads sharing a kv head, and no window, takes one entry per (sequence,
  //    kv head) instead: the group's query heads are its rows (head_dim apart in q and in the
  //    output), so each key tile is packed and each value read once for all of them. Every
  //    row sees the same keys either way (keys < past + 1, or the sequence's length), and a
  //    row's bits do not depend on the rows beside it (kernels/fused_attention.cc).
  const bool by_kv_head =
      c.len == 1 && s.group > 1 && c.window_left < 0 && c.attention_weights == nullptr;
  const int heads_per_entry = by_kv_head ? s.group : 1;
  const int entries_per_sequence = c.num_heads / heads_per_entry;
  for (int b = 0; b < c.batch; ++b) {
    for (int i = 0; i < entries_per_sequence; ++i) {
      const int h = i * heads_per_entry;  // the entry's first head
      int32_t* e =
          entries.data() + static_cast<size_t>(b * entries_per_sequence + i) * kEntryColumns;
      e[kQOffset] = b * c.len * s.qw + h * s.head_dim;
      e[kKOffset] = static_cast<int32_t>(ReadOffset(s, b, h / s.group));
      e[kVOffset] = e[kKOffset];
      e[kMaskOffset] = 0;
      e[kKeyLimit] = c.lengths != nullptr ? c.lengths[b] : s.seq_k;
      e[kCausalOffset] = c.cache != nullptr ? c.past : 0;  // bottom-right: query t is at past + t
    }
  }
  const int used_entries = c.batch * entries_per_sequence;
  Buffer<int32_t> out_offsets;
  if (!out_offsets.Resize(used_entries)) return Status::kOutOfMemory;
  for (int i = 0; i < used_entries; ++i)
    out_offsets[i] = entries[static_cast<size_t>(i) * kEntryColumns];
  a.q = q.data();
  a.entries = entries.data();
  a.batch = used_entries;
  a.seq_q = by_kv_head ? s.group : c.len, a.seq_k = s.seq_k;
  a.head_dim = a.value_dim = s.head_dim;
  const int row_stride = by_kv_head ? s.head_dim : s.qw;  // between an entry's rows
  a.q_stride = row_stride, a.k_stride = a.v_stride = s.read.width, a.out_stride = row_stride;
  a.out_offsets = out_offsets.data();
  a.scale = c.scale > 0.0f ? c.scale : 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  a.softcap = c.softcap;
  a.causal = c.causal;
  a.window_left = c.window_left;  // around the same diagonal (past + t with a cache)
  a.window_right = c.causal ? -1 : c.window_left;  // bidirectional: the same on both sides
  a.out = concat.data();
  a.weights = c.attention_weights;
  Status status = RunAttention(a);
  if (status != Status::kOk) return status;
  if (c.trace != nullptr) {
    status = TraceRow(c, s, a, concat.data());
    if (status != Status::kOk) return status;
  }
  // 4. Output projection.
  return MultiplyPanels(concat.data(), s.qw, s.rows, s.qw, w.wo, w.bo, c.d_model, c.out, c.d_model);
}

uint64_t SelfAttentionScratchBytes(const SelfAttentionCall& c) {
  const Sizes s = SizesOf(c);
  const uint64_t rows = static_cast<uint64_t>(c.batch) * c.len;
  const uint64_t entries = static_cast<uint64_t>(c.batch) * c.num_heads * (kEntryColumns + 1);
  AttentionRequest a;
  a.batch = 1, a.seq_q = c.len, a.seq_k = s.seq_k, a.head_dim = a.value_dim = s.head_dim;
  if (c.cache != nullptr && !Q8Scratch(c)) a.kv_storage = c.cache->storage;
  a.weights = c.attention_weights;
  const uint64_t read = Q8Scratch(c) ? 2 * static_cast<uint64_t>(c.batch) * s.seq_k * s.kv : 0;
  return sizeof(float) * (rows * (2 * s.qw + 2 * s.kv) + entries + read) + AttentionScratchBytes(a);
}

}  // namespace attn
