// Embind glue: the JS↔C++ contract as one object, read once at init by bindings/js/contract.js.
// Every table is made from the list that also makes the C++ enum (status.h, model/weights.h,
// block.h, model/self_attention.h, contract.h), so JS packs and compares by names whose
// numbers only C++ holds.
#include <emscripten/bind.h>
#include <emscripten/val.h>

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

val DescriptorFlags() {
  val table = val::object();
#define ATTN_SET_FLAG(name, bit) table.set(#name, static_cast<int>(DescriptorFlag::name));
  ATTN_DESCRIPTOR_FLAGS(ATTN_SET_FLAG)
#undef ATTN_SET_FLAG
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

val DescriptorLayout() {
  val slots = val::object(), floats = val::array(), layout = val::object();
  ATTN_DESCRIPTOR_SLOTS(ATTN_SET_SLOT)
  // The plain scalars (src/model/descriptor.h): float32 slots, and each one's default.
  val defaults = val::object();
#define ATTN_SET_SCALAR(name, member, type, fallback, check) \
  ATTN_SET_SLOT(name, kFloat)                                \
  defaults.set(#name, static_cast<double>(attn::ModelDescriptor{}.member));
  ATTN_DESCRIPTOR_SCALARS(ATTN_SET_SCALAR)
#undef ATTN_SET_SCALAR
  layout.set("count", static_cast<int>(kDescriptorSlotCount));
  layout.set("slots", slots);
  layout.set("floats", floats);
  layout.set("defaults", defaults);
  // The lists after the slots: [{ name, float, lengthSlot, divisor, max }] in order.
  val lists = val::array();
#define ATTN_ADD_LIST(name, type, length_slot, divisor, most) \
  {                                                           \
    val list = val::object();                                 \
    list.set("name", std::string(#name));                     \
    list.set("float", SlotType::type == SlotType::kFloat);    \
    list.set("lengthSlot", std::string(#length_slot));        \
    list.set("divisor", divisor);                             \
    list.set("max", most);                                    \
    lists.call<void>("push", list);                           \
  }
  ATTN_DESCRIPTOR_LISTS(ATTN_ADD_LIST)
#undef ATTN_ADD_LIST
  layout.set("lists", lists);
  return layout;
}

#undef ATTN_SET_SLOT
#undef ATTN_SET_VALUE

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
  contract.set("descriptorFlags", DescriptorFlags());
  return contract;
}

}  // namespace

EMSCRIPTEN_BINDINGS(contract) { emscripten::function("_contract", &Contract); }
