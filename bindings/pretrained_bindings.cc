// Embind glue for pretrained models (src/model/). A model is a heap object addressed by a
// number; JS checked every argument (bindings/js/models/), so these functions only forward.
// Statuses come back as numbers for the JS layer to turn into errors.
#include <emscripten/bind.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "contract.h"
#include "heap_address.h"
#include "model/runner.h"

namespace {

using attn::PretrainedModel;

PretrainedModel* Model(uintptr_t handle) { return Ptr<PretrainedModel>(handle); }

// The descriptor as bindings/js/models/descriptor.js packs it: kDescriptorSlotCount int32 at
// `ints` (contract.h, DescriptorSlot), then the lists of ATTN_DESCRIPTOR_LISTS; norm_eps and
// the rotary base as arguments. A list is read only as far as the descriptor can use it.
attn::ModelDescriptor DescriptorOf(const int32_t* v, float norm_eps, double rotary_base) {
  const auto flag = [&](DescriptorFlag f) { return (v[kFlags] & static_cast<int>(f)) != 0; };
  const auto real = [&](const int32_t* at) {
    float f;
    std::memcpy(&f, at, sizeof(f));
    return f;
  };
  attn::ModelDescriptor m;
  m.vocab_size = v[kVocabSize], m.max_positions = v[kMaxPositions];
  m.type_vocab_size = v[kTypeVocabSize], m.d_model = v[kDModel];
  m.num_heads = v[kNumHeads], m.num_kv_heads = v[kNumKvHeads], m.head_dim = v[kQkvHeadDim];
  m.num_layers = v[kNumLayers], m.d_ff = v[kDFF];
  m.pre_norm = flag(DescriptorFlag::kPreNorm), m.post_norms = flag(DescriptorFlag::kPostNorms);
  m.embedding_norm = flag(DescriptorFlag::kEmbeddingNorm);
  m.final_norm = flag(DescriptorFlag::kFinalNorm), m.causal = flag(DescriptorFlag::kCausal);
  m.qkv_bias = flag(DescriptorFlag::kQkvBias), m.out_bias = flag(DescriptorFlag::kOutBias);
  m.qk_norm = flag(DescriptorFlag::kQkNorm), m.mlp_bias = flag(DescriptorFlag::kMlpBias);
  m.input_norms = !flag(DescriptorFlag::kNoInputNorms);
  m.qk_norm_full_width = flag(DescriptorFlag::kQkNormFullWidth);
  m.norm_biases = !flag(DescriptorFlag::kNoNormBiases);
  m.first_attention_norm = !flag(DescriptorFlag::kNoFirstAttentionNorm);
  m.lm_transform_bias = !flag(DescriptorFlag::kNoLmTransformBias);
  m.lm_head = flag(DescriptorFlag::kLmHead), m.lm_transform = flag(DescriptorFlag::kLmTransform);
  m.lm_bias = flag(DescriptorFlag::kLmBias);
  m.activation = static_cast<attn::Activation>(v[kActivation]);
  m.lm_activation = static_cast<attn::Activation>(v[kLmActivation]);
  m.gated_ffn = flag(DescriptorFlag::kGatedFfn);
  m.rotary_interleaved = flag(DescriptorFlag::kRotaryInterleaved);
  m.matrix_storage = static_cast<attn::MatrixStorage>(v[kMatrixStorage]);
  m.matrix_storage_count = v[kMatrixStorageCount];
  m.norm = static_cast<attn::NormKind>(v[kNorm]);
  m.rotary_dim = v[kRotaryDim];
  m.rope_scaling = v[kRopeScaling], m.rope_original_max = v[kRopeOriginalMax];
  m.rope_factor = real(v + kRopeFactor), m.rope_low_freq_factor = real(v + kRopeLowFreqFactor);
  m.rope_high_freq_factor = real(v + kRopeHighFreqFactor);
  m.rope_attention_factor = real(v + kRopeAttentionFactor);
#define ATTN_READ_SCALAR(name, member, type, fallback, check) \
  m.member = static_cast<type>(real(v + name));
  ATTN_DESCRIPTOR_SCALARS(ATTN_READ_SCALAR)
#undef ATTN_READ_SCALAR
  m.norm_eps = norm_eps, m.rotary_base = rotary_base;
  // The lists, in ATTN_DESCRIPTOR_LISTS order, each as long as its slot says up to its most
  // (what JS wrote).
  const int32_t* list = v + kDescriptorSlotCount;
  const int layers = std::clamp(m.num_layers, 0, attn::kMaxLayers);
  const int pairs = std::clamp(m.rotary_dim / 2, 0, attn::kMaxRotaryPairs);
  for (int l = 0; l < layers; ++l) m.layer_windows[l] = list[l];
  list += layers;
  // 0 or 1; any other value stays one the check refuses (2), not a byte that wrapped.
  for (int l = 0; l < layers; ++l) m.layer_no_rope[l] = list[l] == 0 ? 0 : list[l] == 1 ? 1 : 2;
  list += layers;
  for (int i = 0; i < pairs; ++i) m.rope_short_factors[i] = real(list + i);
  list += pairs;
  for (int i = 0; i < pairs; ++i) m.rope_long_factors[i] = real(list + i);
  list += pairs;
  // Borrowed from the heap JS wrote (CheckDescriptor bounds its count before it is read; the
  // model copies it).
  m.matrix_storages = list;
  return m;
}

// Checks the descriptor: 0, or its Status.
int Check(uintptr_t ints, float norm_eps, double rotary_base) {
  return static_cast<int>(
      attn::CheckDescriptor(DescriptorOf(Ptr<int32_t>(ints), norm_eps, rotary_base)));
}

// Parameter floats of a descriptor (for the loader's memory estimate and its message when the
// weights pass the heap): also for a kTooLarge one whose widths fit an int; else -1.
double ParameterFloats(uintptr_t ints, float norm_eps, double rotary_base) {
  const attn::ModelDescriptor m = DescriptorOf(Ptr<int32_t>(ints), norm_eps, rotary_base);
  const attn::Status status = attn::CheckDescriptor(m);
  const bool widths_fit = int64_t{m.num_heads} * m.head_dim <= INT32_MAX &&
                          int64_t{m.num_kv_heads} * m.head_dim <= INT32_MAX;
  if (status != attn::Status::kOk && (status != attn::Status::kTooLarge || !widths_fit)) return -1;
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

// blocks: a GGUF tensor's Q8_0, Q4_0, Q4_K or Q6_K blocks (storage: attn::MatrixStorage). 0, or the Status.
int SetQuantizedWeight(uintptr_t handle, int index, uintptr_t blocks, int storage) {
  return static_cast<int>(Model(handle)->SetQuantizedWeight(
      index, Ptr<const uint8_t>(blocks), static_cast<attn::MatrixStorage>(storage)));
}

// flags: ForwardFlag bits (contract.h), and 1 + the layer whose queries and keys to keep from
// bit kKeepQkShift up (0: none). trace: the position to trace, or -1.
attn::ModelInput InputOf(uintptr_t ids, uintptr_t positions, uintptr_t token_types,
                         uintptr_t lengths, int batch, int len, int flags, int trace) {
  const auto flag = [&](ForwardFlag f) { return (flags & static_cast<int>(f)) != 0; };
  attn::ModelInput in;
  in.ids = Ptr<const int32_t>(ids);
  in.positions = Ptr<const int32_t>(positions);
  in.token_types = Ptr<const int32_t>(token_types);
  in.lengths = Ptr<const int32_t>(lengths);
  in.batch = batch, in.len = len;
  in.hidden_states = flag(ForwardFlag::kHiddenStates),
  in.attentions = flag(ForwardFlag::kAttentions);
  in.logits = flag(ForwardFlag::kLogits), in.last_logits_only = flag(ForwardFlag::kLastLogitsOnly);
  in.use_cache = flag(ForwardFlag::kUseCache);
  in.keep_qk_layer = (flags >> kKeepQkShift) - 1;
  in.trace_position = trace;
  return in;
}

int Forward(uintptr_t handle, uintptr_t ids, uintptr_t positions, uintptr_t token_types,
            uintptr_t lengths, int batch, int len, int flags, int trace) {
  return static_cast<int>(Model(handle)->Forward(
      InputOf(ids, positions, token_types, lengths, batch, len, flags, trace)));
}

// Bytes Forward would allocate for this call.
double ForwardBytes(uintptr_t handle, int batch, int len, int flags, int trace) {
  return static_cast<double>(
      Model(handle)->ForwardBytes(InputOf(0, 0, 0, 0, batch, len, flags, trace)));
}

// A cache for `batch` sequences of `capacity` tokens stored as `storage` (a KvStorage number,
// which JS checked): 1, or 0 when out of memory (or too large).
int ReserveCache(uintptr_t handle, int batch, int capacity, int storage) {
  return Model(handle)->ReserveCache(batch, capacity, static_cast<attn::KvStorage>(storage)) ? 1
                                                                                             : 0;
}
// Bytes the cache's keys and values take (0 without one).
double CacheBytes(uintptr_t handle) { return static_cast<double>(Model(handle)->cache_bytes()); }
void DropCache(uintptr_t handle) { Model(handle)->DropCache(); }
int CacheLength(uintptr_t handle) { return Model(handle)->cache_length(); }
void TruncateCache(uintptr_t handle, int length) { Model(handle)->TruncateCache(length); }

double Address(const float* p) { return static_cast<double>(reinterpret_cast<uintptr_t>(p)); }
double HiddenStates(uintptr_t handle) { return Address(Model(handle)->hidden_states()); }
double Output(uintptr_t handle) { return Address(Model(handle)->output()); }
double Attentions(uintptr_t handle) { return Address(Model(handle)->attentions()); }
double Queries(uintptr_t handle) { return Address(Model(handle)->queries()); }
double Keys(uintptr_t handle) { return Address(Model(handle)->keys()); }
// Where a traced call's field (attn::TraceField) of `layer` starts, for a call of `len`.
double Trace(uintptr_t handle, int field, int layer, int len) {
  const PretrainedModel& m = *Model(handle);
  return Address(m.trace() + attn::TraceOffset(m.descriptor(), len,
                                               static_cast<attn::TraceField>(field), layer));
}
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
  emscripten::function("_pretrainedSetQuantizedWeight", &SetQuantizedWeight);
  emscripten::function("_pretrainedForward", &Forward);
  emscripten::function("_pretrainedHiddenStates", &HiddenStates);
  emscripten::function("_pretrainedOutput", &Output);
  emscripten::function("_pretrainedAttentions", &Attentions);
  emscripten::function("_pretrainedLogits", &Logits);
  emscripten::function("_pretrainedQueries", &Queries);
  emscripten::function("_pretrainedKeys", &Keys);
  emscripten::function("_pretrainedTrace", &Trace);
  emscripten::function("_pretrainedForwardBytes", &ForwardBytes);
  emscripten::function("_pretrainedReleaseOutputs", &ReleaseOutputs);
  emscripten::function("_pretrainedReserveCache", &ReserveCache);
  emscripten::function("_pretrainedDropCache", &DropCache);
  emscripten::function("_pretrainedCacheBytes", &CacheBytes);
  emscripten::function("_pretrainedCacheLength", &CacheLength);
  emscripten::function("_pretrainedTruncateCache", &TruncateCache);
}
