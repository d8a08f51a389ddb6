// Embind glue for pretrained models (src/model/). A model is a heap object addressed by a
// number; JS checked every argument (bindings/js/models/), so these functions only forward.
// Statuses come back as numbers for the JS layer to turn into errors.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "contract.h"
#include "heap_address.h"
#include "model/runner.h"

namespace {

using attn::PretrainedModel;

PretrainedModel* Model(uintptr_t handle) { return Ptr<PretrainedModel>(handle); }

// A field's value from its float64 slot (JS wrote a number of the field's type): an int or
// an enum's number outside int32 becomes INT32_MIN, which every check of a size or an enum
// refuses.
template <typename T>
T FromSlot(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    const bool fits = v >= static_cast<double>(INT32_MIN) && v <= static_cast<double>(INT32_MAX);
    return static_cast<T>(fits ? static_cast<int32_t>(v) : INT32_MIN);
  }
}

// A list element from its 4 bytes: float32 bits, or an int32; a byte list's element outside
// [0, 255] becomes 255, which its check refuses, not a byte that wrapped.
template <typename T>
T FromListElement(const int32_t* at) {
  if constexpr (std::is_floating_point_v<T>) {
    float f;
    std::memcpy(&f, at, sizeof(f));
    return static_cast<T>(f);
  } else if constexpr (sizeof(T) == 1) {
    return static_cast<T>(*at >= 0 && *at <= 255 ? *at : 255);
  } else {
    return static_cast<T>(*at);
  }
}

// The descriptor as bindings/js/models/descriptor.js packs it (src/model/descriptor.h): one
// float64 per ATTN_DESCRIPTOR_FIELDS entry in order, then each list of ATTN_DESCRIPTOR_LISTS
// as long as the fields say (within its array: what JS wrote), then the per-matrix storages.
attn::ModelDescriptor DescriptorOf(const double* v) {
  attn::ModelDescriptor m;
  int slot = 0;
  attn::ForEachDescriptorField([&](const char*, auto member, attn::FieldCheck) {
    using T = std::remove_reference_t<decltype(m.*member)>;
    m.*member = FromSlot<T>(v[slot++]);
  });
  const int32_t* list = reinterpret_cast<const int32_t*>(v + attn::kDescriptorFieldCount);
  attn::ForEachDescriptorList([&](const char*, auto member, auto length, int divisor, auto, auto) {
    auto& elements = m.*member;
    using T = typename std::remove_reference_t<decltype(elements)>::value_type;
    const int n = attn::ListLength(m, elements, length, divisor);
    for (int i = 0; i < n; ++i) elements[i] = FromListElement<T>(list + i);
    list += n;
  });
  // Borrowed from the heap JS wrote (CheckDescriptor bounds its count before it is read; the
  // model copies it).
  m.matrix_storages = list;
  return m;
}

// The descriptor as DescriptorOf read it: { field name: value (an enum's number, a bool's 0
// or 1), list name: [its elements as read] } (kVocabSize: 2, ...), for the test that JS packs
// every field where C++ reads it.
emscripten::val DescriptorRead(uintptr_t descriptor) {
  const attn::ModelDescriptor m = DescriptorOf(Ptr<double>(descriptor));
  emscripten::val out = emscripten::val::object();
  const auto number = [](auto value) {
    if constexpr (std::is_enum_v<decltype(value)>) {
      return static_cast<double>(static_cast<int>(value));
    } else {
      return static_cast<double>(value);
    }
  };
  attn::ForEachDescriptorField(
      [&](const char* name, auto member, attn::FieldCheck) { out.set(name, number(m.*member)); });
  attn::ForEachDescriptorList(
      [&](const char* name, auto member, auto length, int divisor, auto, attn::FieldCheck) {
        emscripten::val list = emscripten::val::array();
        for (int i = 0; i < attn::ListLength(m, m.*member, length, divisor); ++i) {
          list.call<void>("push", number((m.*member)[i]));
        }
        out.set(name, list);
      });
  emscripten::val storages = emscripten::val::array();
  for (int i = 0; i < m.matrix_storage_count; ++i)
    storages.call<void>("push", m.matrix_storages[i]);
  out.set("kMatrixStorages", storages);
  return out;
}

// Checks the descriptor: 0, or its Status.
int Check(uintptr_t descriptor) {
  return static_cast<int>(attn::CheckDescriptor(DescriptorOf(Ptr<double>(descriptor))));
}

// Whether the weight table of a descriptor can be walked: checked, or only too large with
// widths that fit an int (its sizes are still the ones to report).
bool Walkable(const attn::ModelDescriptor& m) {
  const attn::Status status = attn::CheckDescriptor(m);
  const bool widths_fit = int64_t{m.num_heads} * m.head_dim <= INT32_MAX &&
                          int64_t{m.num_kv_heads} * m.head_dim <= INT32_MAX;
  return status == attn::Status::kOk || (status == attn::Status::kTooLarge && widths_fit);
}

// Parameter floats of a descriptor (for the loader's memory estimate and its message when the
// weights pass the heap): also for a kTooLarge one whose widths fit an int; else -1.
double ParameterFloats(uintptr_t descriptor) {
  const attn::ModelDescriptor m = DescriptorOf(Ptr<double>(descriptor));
  if (!Walkable(m)) return -1;
  return static_cast<double>(attn::ForEachWeight(m, [](const attn::WeightEntry&) {}));
}

// The weight table of a descriptor without allocating its parameters (the same in any matrix
// storage; also for a kTooLarge one whose widths fit, so that the loader can choose a storage
// that fits): returns the entry count, or -1, and writes [kind, layer, rows, cols, matrix] per
// entry at `table` unless it is 0.
int TableOf(uintptr_t descriptor, uintptr_t table) {
  const attn::ModelDescriptor m = DescriptorOf(Ptr<double>(descriptor));
  if (!Walkable(m)) return -1;
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
double Create(uintptr_t descriptor) {
  const attn::ModelDescriptor m = DescriptorOf(Ptr<double>(descriptor));
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
  emscripten::function("_pretrainedDescriptorRead", &DescriptorRead);
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
