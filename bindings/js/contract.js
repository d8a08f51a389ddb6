// The JS↔C++ contract, read from the module once (bindings/contract_bindings.cc): status
// codes and their messages, weight kinds, activations, RoPE scalings, norm kinds, and the slot layouts of
// an attention call and of a model descriptor (its fields, their types and defaults). C++ holds every number; JS
// holds names. Tables JS indexes by its own property names (call slots, descriptor fields,
// weight kinds) are keyed by the enumerator without its k, first letter lowered
// (kSeqQ → seqQ, kQuery → query); enums JS names in code keep the C++ name
// (status.kTooLarge, activations.kGeluTanh, ropeScalings.kLlama3).

const contracts = new WeakMap(); // module → its contract

const jsName = (name) => name[1].toLowerCase() + name.slice(2);
const renamed = (table) => Object.fromEntries(Object.entries(table).map(([name, value]) => [jsName(name), value]));
const namesOf = (table) => Object.fromEntries(Object.entries(table).map(([name, value]) => [value, name]));

// { count, slots: { name: index }, names: [name of each index], floats: [indices of float32 slots] }
function layoutOf({ count, slots, floats }) {
  const named = renamed(slots);
  const names = [];
  for (const [name, index] of Object.entries(named)) names[index] = name;
  return { count, slots: named, names, floats: floats.map((name) => named[jsName(name)]) };
}

// The packed descriptor (src/model/descriptor.h ATTN_DESCRIPTOR_FIELDS and ATTN_DESCRIPTOR_LISTS):
// { count, fields: [{ name, type, default }] (one float64 slot each, in order), slots: { name:
// index }, lists: [{ name, type, lengthSlot, divisor, max, default }] (4 bytes an element, after
// the fields) }. type: 'int', 'bool', 'float' or an enum's name ('Activation', 'NormKind', …);
// a default is the number C++ starts the field with (an enum's number, a bool's 0 or 1).
function descriptorLayoutOf({ count, fields, lists }) {
  const named = fields.map((f) => ({ name: jsName(f.name), type: f.type, default: f.default }));
  return {
    count,
    fields: named,
    slots: Object.fromEntries(named.map((f, i) => [f.name, i])),
    lists: lists.map((l) => ({ ...l, name: jsName(l.name), lengthSlot: jsName(l.lengthSlot) })),
  };
}

function deepFreeze(object) {
  for (const value of Object.values(object)) if (typeof value === 'object' && value !== null) deepFreeze(value);
  return Object.freeze(object);
}

function read(module) {
  const raw = module._contract();
  return deepFreeze({
    status: raw.status,
    statusMessages: raw.statusMessages,
    statusNames: namesOf(raw.status), // code → name, for messages keyed by name
    weightKinds: renamed(raw.weightKinds),
    weightKindNames: namesOf(renamed(raw.weightKinds)),
    activations: raw.activations,
    ropeScalings: raw.ropeScalings,
    normKinds: raw.normKinds,
    matrixStorages: raw.matrixStorages,
    kvStorages: raw.kvStorages, // a generation's key/value cache: kFloat32, kBfloat16, kFloat16
    // A pretrained forward's flag bits (hiddenStates, attentions, logits, lastLogitsOnly,
    // useCache) and keepQkShift; the training model's Create flags; its parameter names.
    forwardFlags: { ...renamed(raw.forwardFlags), keepQkShift: raw.keepQkShift },
    // Positions per sequence a cached forward runs at once (src/model/runner.h kPrefillChunk).
    prefillChunk: raw.prefillChunk,
    // A traced forward's fields (src/model/trace.h): { embedding: 0, ..., residual: 18 }.
    traceFields: renamed(raw.traceFields),
    trainingFlags: renamed(raw.trainingFlags),
    paramKindNames: raw.paramKindNames,
    call: layoutOf(raw.callLayout),
    descriptor: descriptorLayoutOf(raw.descriptorLayout),
  });
}

/**
 * The contract of an instantiated module (frozen; read on first use, which init makes, and
 * cached per module).
 */
export function contractOf(module) {
  let contract = contracts.get(module);
  if (contract === undefined) {
    contract = read(module);
    contracts.set(module, contract);
  }
  return contract;
}
