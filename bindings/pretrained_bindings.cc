// Embind glue for pretrained models (src/model/). A model is a heap object addressed by a
// number; JS checked every argument (bindings/js/models/), so these functions only forward.
// Statuses come back as numbers for the JS layer to turn into errors.
#include <emscripten/bind.h>

#include <cstdint>
#include <cstring>
#include <new>

#include "heap_address.h"
#include "model/runner.h"

namespace {

using attn::PretrainedModel;

PretrainedModel* Model(uintptr_t handle) { return Ptr<PretrainedModel>(handle); }

// The descriptor as bindings/js/models/descriptor.js packs it: 18 int32 at `ints`
// (see DescriptorOf), norm_eps and the rotary base.
enum Flag : int {
  kPreNorm = 1,
  kEmbeddingNorm = 2,
  kFinalNorm = 4,
  kCausal = 8,
  kAttentionBias = 16,
  kMlpBias = 32,
  kLmHead = 64,
  kLmTransform = 128,
  kLmBias = 256,
  kGatedFfn = 512,
  kRmsNorm = 1024,
  kRotaryInterleaved = 2048,
  kBf16Matrices = 4096,
};

attn::ModelDescriptor DescriptorOf(const int32_t* v, float norm_eps, double rotary_base) {
  attn::ModelDescriptor m;
  m.vocab_size = v[0], m.max_positions = v[1], m.type_vocab_size = v[2], m.d_model = v[3];
  m.num_heads = v[4], m.num_kv_heads = v[5], m.num_layers = v[6], m.d_ff = v[7];
  const int flags = v[8];
  m.pre_norm = flags & kPreNorm, m.embedding_norm = flags & kEmbeddingNorm;
  m.final_norm = flags & kFinalNorm, m.causal = flags & kCausal;
  m.attention_bias = flags & kAttentionBias, m.mlp_bias = flags & kMlpBias;
  m.lm_head = flags & kLmHead, m.lm_transform = flags & kLmTransform, m.lm_bias = flags & kLmBias;
  m.activation = static_cast<attn::Activation>(v[9]);
  m.lm_activation = static_cast<attn::Activation>(v[10]);
  m.gated_ffn = flags & kGatedFfn, m.rotary_interleaved = flags & kRotaryInterleaved;
  m.bf16_matrices = flags & kBf16Matrices;
  m.norm = (flags & kRmsNorm) ? attn::NormKind::kRmsNorm : attn::NormKind::kLayerNorm;
  m.rotary_dim = v[11];
  m.sliding_window = v[12];
  // rope_scaling: its type and original_max_position_embeddings, then factor, low_freq_factor
  // and high_freq_factor as float32 bits (v[15..17]).
  m.rope_scaling = v[13], m.rope_original_max = v[14];
  float f[3];
  std::memcpy(f, v + 15, sizeof(f));
  m.rope_factor = f[0], m.rope_low_freq_factor = f[1], m.rope_high_freq_factor = f[2];
  m.norm_eps = norm_eps, m.rotary_base = rotary_base;
  return m;
}

// Checks the descriptor: 0, or its Status.
int Check(uintptr_t ints, float norm_eps, double rotary_base) {
  return static_cast<int>(
      attn::CheckDescriptor(DescriptorOf(Ptr<int32_t>(ints), norm_eps, rotary_base)));
}

// Parameter floats of a checked descriptor (for the loader's memory estimate).
double ParameterFloats(uintptr_t ints, float norm_eps, double rotary_base) {
  const attn::ModelDescriptor m = DescriptorOf(Ptr<int32_t>(ints), norm_eps, rotary_base);
  if (attn::CheckDescriptor(m) != attn::Status::kOk) return -1;
  return static_cast<double>(attn::ForEachWeight(m, [](const attn::WeightEntry&) {}));
}

// The weight table of a checked descriptor without allocating its parameters: returns the
// entry count, and writes [kind, layer, rows, cols, matrix] per entry at `table` unless it is 0.
int TableOf(uintptr_t ints, float norm_eps, double rotary_base, uintptr_t table) {
  const attn::ModelDescriptor m = DescriptorOf(Ptr<int32_t>(ints), norm_eps, rotary_base);
  if (attn::CheckDescriptor(m) != attn::Status::kOk) return -1;
  int32_t* out = Ptr<int32_t>(table);
  int count = 0;
  attn::ForEachWeight(m, [&](const attn::WeightEntry& e) {
    ++count;
    if (out == nullptr) return;
    *out++ = static_cast<int32_t>(e.kind);
    *out++ = e.layer;
    *out++ = e.rows;
    *out++ = e.cols;
    *out++ = e.matrix ? 1 : 0;
  });
  return count;
}

// A new model: its address, or minus a Status (the descriptor's problem, or out of memory).
double Create(uintptr_t ints, float norm_eps, double rotary_base) {
  const attn::ModelDescriptor m = DescriptorOf(Ptr<int32_t>(ints), norm_eps, rotary_base);
  const attn::Status status = attn::CheckDescriptor(m);
  if (status != attn::Status::kOk) return -static_cast<double>(status);
  PretrainedModel* model = new (std::nothrow) PretrainedModel(m);
  if (model == nullptr || !model->Allocate()) {
    delete model;
    return -static_cast<double>(attn::Status::kOutOfMemory);
  }
  return static_cast<double>(reinterpret_cast<uintptr_t>(model));
}

void Destroy(uintptr_t handle) { delete Model(handle); }

// src: float32 elements, or bfloat16 ones (src_bf16). 0, or the Status.
int SetWeight(uintptr_t handle, int index, uintptr_t src, bool src_bf16, int src_stride,
              bool transposed) {
  return static_cast<int>(
      Model(handle)->SetWeight(index, Ptr<const void>(src), src_bf16, src_stride, transposed));
}

// flags: 1 hidden states, 2 attentions, 4 logits, 8 last logits only, 16 use the cache;
// bits 8 and up: 1 + the layer whose queries and keys to keep (0: none).
attn::ModelInput InputOf(uintptr_t ids, uintptr_t positions, uintptr_t token_types,
                         uintptr_t lengths, int batch, int len, int flags) {
  attn::ModelInput in;
  in.ids = Ptr<const int32_t>(ids);
  in.positions = Ptr<const int32_t>(positions);
  in.token_types = Ptr<const int32_t>(token_types);
  in.lengths = Ptr<const int32_t>(lengths);
  in.batch = batch, in.len = len;
  in.hidden_states = flags & 1, in.attentions = flags & 2, in.logits = flags & 4;
  in.last_logits_only = flags & 8, in.use_cache = flags & 16;
  in.keep_qk_layer = (flags >> 8) - 1;
  return in;
}

int Forward(uintptr_t handle, uintptr_t ids, uintptr_t positions, uintptr_t token_types,
            uintptr_t lengths, int batch, int len, int flags) {
  return static_cast<int>(
      Model(handle)->Forward(InputOf(ids, positions, token_types, lengths, batch, len, flags)));
}

// Bytes Forward would allocate for this call.
double ForwardBytes(uintptr_t handle, int batch, int len, int flags) {
  return static_cast<double>(Model(handle)->ForwardBytes(InputOf(0, 0, 0, 0, batch, len, flags)));
}

// A cache for `batch` sequences of `capacity` tokens: 1, or 0 when out of memory.
int ReserveCache(uintptr_t handle, int batch, int capacity) {
  return Model(handle)->ReserveCache(batch, capacity) ? 1 : 0;
}
void DropCache(uintptr_t handle) { Model(handle)->DropCache(); }
int CacheLength(uintptr_t handle) { return Model(handle)->cache_length(); }
void TruncateCache(uintptr_t handle, int length) { Model(handle)->TruncateCache(length); }

double Address(const float* p) { return static_cast<double>(reinterpret_cast<uintptr_t>(p)); }
double HiddenStates(uintptr_t handle) { return Address(Model(handle)->hidden_states()); }
double Output(uintptr_t handle) { return Address(Model(handle)->output()); }
double Attentions(uintptr_t handle) { return Address(Model(handle)->attentions()); }
double Queries(uintptr_t handle) { return Address(Model(handle)->queries()); }
double Keys(uintptr_t handle) { return Address(Model(handle)->keys()); }
double Logits(uintptr_t handle) { return Address(Model(handle)->logits()); }
void ReleaseOutputs(uintptr_t handle) { Model(handle)->ReleaseOutputs(); }

}  // namespace

EMSCRIPTEN_BINDINGS(pretrained) {
  emscripten::function("_pretrainedCheck", &Check);
  emscripten::function("_pretrainedParameterFloats", &ParameterFloats);
  emscripten::function("_pretrainedTableOf", &TableOf);
  emscripten::function("_pretrainedCreate", &Create);
  emscripten::function("_pretrainedDestroy", &Destroy);
  emscripten::function("_pretrainedSetWeight", &SetWeight);
  emscripten::function("_pretrainedForward", &Forward);
  emscripten::function("_pretrainedHiddenStates", &HiddenStates);
  emscripten::function("_pretrainedOutput", &Output);
  emscripten::function("_pretrainedAttentions", &Attentions);
  emscripten::function("_pretrainedLogits", &Logits);
  emscripten::function("_pretrainedQueries", &Queries);
  emscripten::function("_pretrainedKeys", &Keys);
  emscripten::function("_pretrainedForwardBytes", &ForwardBytes);
  emscripten::function("_pretrainedReleaseOutputs", &ReleaseOutputs);
  emscripten::function("_pretrainedReserveCache", &ReserveCache);
  emscripten::function("_pretrainedDropCache", &DropCache);
  emscripten::function("_pretrainedCacheLength", &CacheLength);
  emscripten::function("_pretrainedTruncateCache", &TruncateCache);
}
