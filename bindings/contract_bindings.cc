// Embind glue: the JS↔C++ contract as one object, read once at init by bindings/js/contract.js.
// Every table is made from the list that also makes the C++ enum (status.h, model/weights.h,
// block.h, model/self_attention.h, contract.h), so JS packs and compares by names whose
// numbers only C++ holds.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <type_traits>

#include "block.h"
#include "contract.h"
#include "model/descriptor.h"
#include "model/runner.h"
#include "model/self_attention.h"
#include "model/weights.h"
#include "status.h"
#include "train/model_config.h"

namespace {

using emscripten::val;

// { name: value } of an X-macro list of (name, value, ...) entries.
#define ATTN_SET_VALUE(name, value, ...) table.set(#name, static_cast<int>(value));

val Statuses() {
  val table = val::object();
#define ATTN_SET_STATUS(name, code, message) table.set(#name, code);
  ATTN_STATUSES(ATTN_SET_STATUS)
#undef ATTN_SET_STATUS
  return table;
}

val StatusMessages() {
  val table = val::object();
#define ATTN_SET_MESSAGE(name, code, message) table.set(#name, std::string(message));
  ATTN_STATUSES(ATTN_SET_MESSAGE)
#undef ATTN_SET_MESSAGE
  return table;
}

val WeightKinds() {
  val table = val::object();
  ATTN_WEIGHT_KINDS(ATTN_SET_VALUE)
  return table;
}

val Activations() {
  val table = val::object();
  ATTN_ACTIVATIONS(ATTN_SET_VALUE)
  return table;
}

val RopeScalings() {
  val table = val::object();
  ATTN_ROPE_SCALINGS(ATTN_SET_VALUE)
  return table;
}

val ForwardFlags() {
  val table = val::object();
#define ATTN_SET_FORWARD_FLAG(name, bit) table.set(#name, static_cast<int>(ForwardFlag::name));
  ATTN_FORWARD_FLAGS(ATTN_SET_FORWARD_FLAG)
#undef ATTN_SET_FORWARD_FLAG
  return table;
}

// The trace's fields (src/model/trace.h): { kEmbedding: 0, ... }.
val TraceFields() {
  val table = val::object();
#define ATTN_SET_TRACE_FIELD(name, per_layer) \
  table.set(#name, static_cast<int>(attn::TraceField::name));
  ATTN_TRACE_FIELDS(ATTN_SET_TRACE_FIELD)
#undef ATTN_SET_TRACE_FIELD
  return table;
}

val TrainingFlags() {
  val table = val::object();
#define ATTN_SET_TRAINING_FLAG(name, bit) table.set(#name, static_cast<int>(TrainingFlag::name));
  ATTN_TRAINING_FLAGS(ATTN_SET_TRAINING_FLAG)
#undef ATTN_SET_TRAINING_FLAG
  return table;
}

// The training model's parameter names, in ParamKind order.
val ParamKindNames() {
  val names = val::array();
#define ATTN_PUSH_PARAM_NAME(name, js_name) names.call<void>("push", std::string(js_name));
  ATTN_PARAM_KINDS(ATTN_PUSH_PARAM_NAME)
#undef ATTN_PUSH_PARAM_NAME
  return names;
}

val NormKinds() {
  val table = val::object();
  ATTN_NORM_KINDS(ATTN_SET_VALUE)
  return table;
}

val MatrixStorages() {
  val table = val::object();
  ATTN_MATRIX_STORAGES(ATTN_SET_VALUE)
  return table;
}

val KvStorages() {
  val table = val::object();
  ATTN_KV_STORAGES(ATTN_SET_VALUE)
  return table;
}

// A slot layout: { count, slots: { name: index }, floats: [names of float32 slots] }.
#define ATTN_SET_SLOT(name, type)           \
  slots.set(#name, static_cast<int>(name)); \
  if (SlotType::type == SlotType::kFloat) floats.call<void>("push", std::string(#name));

val CallLayout() {
  val slots = val::object(), floats = val::array(), layout = val::object();
  ATTN_CALL_SLOTS(ATTN_SET_SLOT)
  layout.set("count", static_cast<int>(kCallSlotCount));
  layout.set("slots", slots);
  layout.set("floats", floats);
  return layout;
}

#undef ATTN_SET_SLOT
#undef ATTN_SET_VALUE

// How JS writes a descriptor field or list element of type T: "int", "bool", "float" (float32
// or float64 alike: JS writes the number), or the name of the enum whose list names its values.
template <typename T>
std::string TypeName() {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, uint8_t>) {
    return "bool";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "float";
  } else if constexpr (std::is_same_v<T, attn::Activation>) {
    return "Activation";
  } else if constexpr (std::is_same_v<T, attn::NormKind>) {
    return "NormKind";
  } else if constexpr (std::is_same_v<T, attn::MatrixStorage>) {
    return "MatrixStorage";
  } else if constexpr (std::is_same_v<T, attn::RopeScaling>) {
    return "RopeScaling";
  } else {
    static_assert(!std::is_enum_v<T>, "a descriptor enum needs its name here and a table in JS");
    return "int";
  }
}

// A field's default as the number JS writes (an enum's number, a bool's 0 or 1).
template <typename T>
double AsNumber(T value) {
  if constexpr (std::is_enum_v<T>) {
    return static_cast<double>(static_cast<int>(value));
  } else {
    return static_cast<double>(value);
  }
}

// The packed descriptor (src/model/descriptor.h, read by pretrained_bindings.cc DescriptorOf):
// { count, fields: [{ name, type, default }] one float64 slot each in order, lists: [{ name,
// type, lengthSlot, divisor, max, default }] after them }. The last list is the per-matrix
// storages, matrix_storage_count MatrixStorage numbers.
val DescriptorLayout() {
  const attn::ModelDescriptor defaults;
  val fields = val::array();
  attn::ForEachDescriptorField([&](const char* name, auto member, attn::FieldCheck) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(defaults.*member)>>;
    val field = val::object();
    field.set("name", std::string(name));
    field.set("type", TypeName<T>());
    field.set("default", AsNumber(defaults.*member));
    fields.call<void>("push", field);
  });
  // A length field's slot name (an int field's member pointer compared with each int field's).
  const auto slot_of = [](int attn::ModelDescriptor::*length) {
    std::string found;
    attn::ForEachDescriptorField([&](const char* name, auto member, attn::FieldCheck) {
      if constexpr (std::is_same_v<decltype(member), int attn::ModelDescriptor::*>) {
        if (member == length) found = name;
      }
    });
    return found;
  };
  val lists = val::array();
  const auto add_list = [&](const std::string& name, const std::string& type,
                            const std::string& length, int divisor, int most, double fallback) {
    val list = val::object();
    list.set("name", name);
    list.set("type", type);
    list.set("lengthSlot", length);
    list.set("divisor", divisor);
    list.set("max", most);
    list.set("default", fallback);
    lists.call<void>("push", list);
  };
  attn::ForEachDescriptorList([&](const char* name, auto member, auto length, int divisor,
                                  auto fallback, attn::FieldCheck) {
    const auto& elements = defaults.*member;
    using T = typename std::remove_cv_t<std::remove_reference_t<decltype(elements)>>::value_type;
    add_list(name, TypeName<T>(), slot_of(length), divisor, static_cast<int>(elements.size()),
             AsNumber(fallback));
  });
  add_list("kMatrixStorages", "MatrixStorage",
           slot_of(&attn::ModelDescriptor::matrix_storage_count), 1, attn::kMaxMatrixStorages, 0);
  val layout = val::object();
  layout.set("count", attn::kDescriptorFieldCount);
  layout.set("fields", fields);
  layout.set("lists", lists);
  return layout;
}

val Contract() {
  val contract = val::object();
  contract.set("status", Statuses());
  contract.set("statusMessages", StatusMessages());
  contract.set("weightKinds", WeightKinds());
  contract.set("activations", Activations());
  contract.set("ropeScalings", RopeScalings());
  contract.set("normKinds", NormKinds());
  contract.set("matrixStorages", MatrixStorages());
  contract.set("kvStorages", KvStorages());
  contract.set("forwardFlags", ForwardFlags());
  contract.set("keepQkShift", kKeepQkShift);
  contract.set("traceFields", TraceFields());
  contract.set("prefillChunk", attn::kPrefillChunk);
  contract.set("trainingFlags", TrainingFlags());
  contract.set("paramKindNames", ParamKindNames());
  contract.set("callLayout", CallLayout());
  contract.set("descriptorLayout", DescriptorLayout());
  return contract;
}

}  // namespace

EMSCRIPTEN_BINDINGS(contract) { emscripten::function("_contract", &Contract); }
