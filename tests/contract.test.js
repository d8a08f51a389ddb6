// The JS↔C++ contract (issue 33 A.1): status codes, weight kinds, activations, RoPE scalings,
// the attention call's slots and the model descriptor's fields and lists are listed once in
// C++ (src/status.h, src/model/weights.h, src/block.h, src/model/self_attention.h,
// bindings/contract.h, src/model/descriptor.h) and exported by the module (bindings/contract_bindings.cc); JS reads
// them at init (bindings/js/contract.js). These tests check that every build exports the same
// well-formed tables and that every name JS uses is one C++ exports.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import createModule from '../dist/attention.js';
import { contractOf } from '../bindings/js/contract.js';
import { writeCall } from '../bindings/js/attention_call.js';
import { HeapScope } from '../bindings/js/heap.js';
import { ACTIVATIONS as LAYER_ACTIVATIONS } from '../bindings/js/block.js';
import {
  ACTIVATIONS,
  ROPE_SCALINGS,
  NORMS,
  MATRIX_STORAGES,
  DESCRIPTOR_SOURCES,
  packDescriptor,
} from '../bindings/js/models/descriptor.js';
import { architectureOf, MODEL_TYPES } from '../bindings/js/models/architectures.js';
import { STATUS_MESSAGES } from '../bindings/js/status.js';
import { KV_STORAGES } from '../bindings/js/models/generation.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const module = await createModule({ wasmBinary: readFileSync(new URL('../dist/attention.wasm', import.meta.url)) });
const contract = contractOf(module);
const FIXTURES = [
  'tiny-gpt2',
  'tiny-bert',
  'tiny-distilbert-f16',
  'tiny-llama',
  'tiny-roberta',
  'tiny-mistral',
  'tiny-llama-rope-scaling',
  'tiny-llama-bf16',
  'tiny-qwen2',
  'tiny-qwen3',
  'tiny-gemma2',
  'tiny-gemma3',
  'gemma3',
  'tiny-phi3',
  'tiny-embeddinggemma',
  'tiny-smollm',
  'tiny-smollm3',
  'tiny-granite',
  'tiny-olmo2',
  'tiny-modernbert',
];
const configOf = (name) => {
  // gemma3: the multimodal wrapper of tiny-gemma3's text model (tests/pretrained-families.test.js loads it).
  if (name === 'gemma3')
    return {
      architectures: ['Gemma3ForConditionalGeneration'],
      model_type: 'gemma3',
      text_config: configOf('tiny-gemma3'),
    };
  return JSON.parse(readFileSync(new URL(`./fixtures/hf/${name}/config.json`, import.meta.url), 'utf8'));
};

// Every build's raw contract, read in a child Node that runs relaxed SIMD too (the threaded
// builds with one worker).
function contractsOfEveryBuild() {
  const source = `
    import { readFileSync } from 'node:fs';
    const out = {};
    for (const build of ['attention', 'attention-relaxed', 'attention-threads', 'attention-relaxed-threads']) {
      const threaded = build.endsWith('-threads');
      const create = (await import('./dist/' + build + '.js')).default;
      const module = await create({
        wasmBinary: readFileSync('dist/' + build + '.wasm'),
        ...(threaded ? { attnWorkers: 1, locateFile: (path, prefix) => path.endsWith('.worker.js') ? process.cwd() + '/dist/' + path.replace(/\\.js$/, '.cjs') : prefix + path } : {}),
      });
      out[build] = module._contract();
    }
    process.stdout.write(JSON.stringify(out), () => process.exit(0));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', source], {
      encoding: 'utf8',
      cwd: root,
    }),
  );
}

const values = (table) => Object.values(table);

// A slot layout: indices 0..count-1, each once; its float slots among them.
function assertDense(layout, what) {
  const indices = values(layout.slots).sort((a, b) => a - b);
  assert.deepEqual(
    indices,
    Array.from({ length: layout.count }, (_, i) => i),
    `${what}: indices unique and dense`,
  );
  for (const name of layout.floats) assert.ok(Object.hasOwn(layout.slots, name), `${what}: float slot ${name}`);
}

test('every build exports the same contract, and it is well formed', () => {
  const all = contractsOfEveryBuild();
  const baseline = all.attention;
  for (const [build, raw] of Object.entries(all))
    assert.deepEqual(raw, baseline, `${build} exports the baseline's tables`);
  assert.deepEqual(JSON.parse(JSON.stringify(module._contract())), baseline, 'the in-process module too');

  assert.equal(baseline.status.kOk, 0, "0 is ok (JS's `status !== 0` checks)");
  assert.equal(new Set(values(baseline.status)).size, Object.keys(baseline.status).length, 'status codes unique');
  assert.deepEqual(Object.keys(baseline.statusMessages), Object.keys(baseline.status), 'a message for every status');
  for (const [name, code] of Object.entries(baseline.status))
    assert.equal(baseline.statusMessages[name], module._statusMessage(code), name);
  for (const table of ['weightKinds', 'activations', 'ropeScalings']) {
    assert.equal(new Set(values(baseline[table])).size, Object.keys(baseline[table]).length, `${table} unique`);
    for (const v of values(baseline[table])) assert.ok(Number.isInteger(v) && v >= 0, `${table}: ${v}`);
  }
  assertDense(baseline.callLayout, 'call slots');
  const fields = baseline.descriptorLayout.fields.map((f) => f.name);
  assert.equal(fields.length, baseline.descriptorLayout.count, 'a slot per descriptor field');
  assert.equal(new Set(fields).size, fields.length, 'descriptor fields distinct');
  // Every enumerator is kSomething, so JS's names (contract.js) are well defined.
  for (const table of [
    baseline.status,
    baseline.weightKinds,
    baseline.activations,
    baseline.ropeScalings,
    baseline.callLayout.slots,
    Object.fromEntries(fields.map((name) => [name, 0])),
    Object.fromEntries(baseline.descriptorLayout.lists.map((l) => [l.name, 0])),
  ]) {
    for (const name of Object.keys(table)) assert.match(name, /^k[A-Z0-9]/);
  }
});

test('JS reads the contract once per module, frozen, with its own names', async () => {
  assert.equal(contractOf(module), contract, 'cached');
  assert.ok(Object.isFrozen(contract) && Object.isFrozen(contract.call.slots) && Object.isFrozen(contract.weightKinds));
  assert.equal(contract.call.names[contract.call.slots.seqQ], 'seqQ');
  assert.deepEqual(
    contract.call.floats.map((i) => contract.call.names[i]),
    ['scale', 'softcap', 'dropout'],
  );
  assert.equal(contract.weightKinds.query, module._contract().weightKinds.kQuery);
  assert.equal(contract.weightKindNames[contract.weightKinds.gate], 'gate');
  assert.equal(contract.statusNames[contract.status.kTooLarge], 'kTooLarge');
  // init reads it (a module without one is not a working module): the API works on top of it.
  const attn = await init();
  assert.equal(attn.attention([[1, 0]], [[1, 0]], [[2, 3]]).output.data[1], 3);
});

test('every call slot JS writes is one the module exports', async () => {
  // writeCall refuses a key the module has no slot for; these calls write every slot JS has.
  const attn = await init();
  const x = { data: new Float32Array(2 * 3 * 4).map((_, i) => Math.sin(i)), shape: [2, 3, 4] };
  const options = {
    mask: { data: new Float32Array(9), shape: [3, 3] },
    returnWeights: true,
    trace: true,
    softcap: 5,
    window: { left: 1, right: 1 },
    dropout: { p: 0.5, seed: 3 },
  };
  const r = attn.attention(x, x, x, options);
  assert.ok(r.trace.cappedScores && r.droppedWeights);
  assert.equal(attn.attention(x, x, x, { layout: 'bshd' }).output.shape.join(), '2,3,4');
  assert.equal(attn.attention(x, x, x, { pastKey: x, pastValue: x }).presentKey.shape.join(), '2,6,4');
  attn.attentionBackward(x, x, x, x, {
    softcap: 5,
    window: { left: 1, right: 0 },
    dropout: { p: 0.5, seed: 3 },
    mask: options.mask,
  });
  const cache = new attn.KVCache({ batch: 1, kvHeads: 2, headDim: 4, capacity: 8 });
  const one = { data: x.data.slice(0, 8), shape: [1, 2, 1, 4] };
  assert.equal(
    cache
      .attend(one, one, one, { returnWeights: true, softcap: 5, window: { left: 2 }, layout: 'bhsd' })
      .weights.shape.join(),
    '1,2,1,1',
  );
  cache.dispose();
  // A module whose C++ has no `softcap` slot: JS's call would not reach the core intact.
  const raw = module._contract();
  delete raw.callLayout.slots.kSoftcap;
  const other = { ...module, _contract: () => raw };
  const heap = new HeapScope(other, 'test');
  try {
    assert.throws(
      () => writeCall(heap, { q: 1, softcap: 2 }, new Int32Array(6)),
      /internal error: the attention call has keys the module has no slot for: softcap/,
    );
  } finally {
    heap.release();
  }
});

// ATTN_DESCRIPTOR_FIELDS and ATTN_DESCRIPTOR_LISTS as src/model/descriptor.h writes them, read
// from the source text: fields [{ name (JS's), member, type, fallback (C++'s literal), check }],
// lists [{ name, type, length (a member), divisor, most, fallback }].
function descriptorLines() {
  const text = readFileSync(new URL('../src/model/descriptor.h', import.meta.url), 'utf8');
  const block = (name) => {
    const start = text.indexOf(`#define ${name}(X)`);
    return text.slice(start, text.indexOf('\n\n', start));
  };
  const jsName = (k) => k[1].toLowerCase() + k.slice(2);
  const fields = [...block('ATTN_DESCRIPTOR_FIELDS').matchAll(/X\((k\w+), (\w+), (\w+), ([^,]+), (k\w+)\)/g)].map(
    ([, name, member, type, fallback, check]) => ({ name: jsName(name), member, type, fallback, check }),
  );
  const lists = [
    ...block('ATTN_DESCRIPTOR_LISTS').matchAll(/X\((k\w+), (\w+), (\w+), (\w+), (\d+), (\w+), ([^,]+), (k\w+)\)/g),
  ].map(([, name, member, type, length, divisor, most, fallback]) => ({
    name: jsName(name),
    type,
    length,
    divisor: Number(divisor),
    most,
    fallback,
  }));
  return { fields, lists };
}

// A C++ default literal of a field of `type` as the number JS writes (an enum's number, a
// bool's 0 or 1, a float's float32 value).
function literal(type, text) {
  if (text === 'true' || text === 'false') return text === 'true' ? 1 : 0;
  const enumValue = /^(\w+)::(k\w+)$/.exec(text);
  if (enumValue) {
    const tables = {
      Activation: 'activations',
      NormKind: 'normKinds',
      MatrixStorage: 'matrixStorages',
      RopeScaling: 'ropeScalings',
    };
    assert.equal(enumValue[1], type, `${text} is a ${type}`);
    return contract[tables[type]][enumValue[2]];
  }
  const number = Number(text.replace(/f$/, ''));
  return type === 'float' ? Math.fround(number) : number;
}

// How JS writes a C++ type (contract_bindings.cc TypeName).
const JS_TYPES = { int: 'int', int32_t: 'int', bool: 'bool', uint8_t: 'bool', float: 'float', double: 'float' };

test("the descriptor fields the module exports (and JS packs by) are descriptor.h's ATTN_DESCRIPTOR_FIELDS lines, with their types and defaults", () => {
  const { fields, lists } = descriptorLines();
  assert.ok(fields.length >= 45, `descriptor.h read: ${fields.length} fields`);
  assert.deepEqual(
    contract.descriptor.fields,
    fields.map((f) => ({ name: f.name, type: JS_TYPES[f.type] ?? f.type, default: literal(f.type, f.fallback) })),
  );
  const fieldOfMember = Object.fromEntries(fields.map((f) => [f.member, f.name]));
  assert.deepEqual(contract.descriptor.lists, [
    ...lists.map((l) => ({
      name: l.name,
      type: JS_TYPES[l.type],
      lengthSlot: fieldOfMember[l.length],
      divisor: l.divisor,
      max: { kMaxLayers: 1024, kMaxRotaryPairs: 512 }[l.most],
      default: literal(l.type === 'float' ? 'float' : 'int', l.fallback),
    })),
    // The borrowed per-matrix storages, after the lists.
    {
      name: 'matrixStorages',
      type: 'MatrixStorage',
      lengthSlot: 'matrixStorageCount',
      divisor: 1,
      max: 8 * 1024 + 4,
      default: 0,
    },
  ]);
  // The fields JS finds elsewhere than under their own name are fields.
  const names = new Set([...fields.map((f) => f.name), ...contract.descriptor.lists.map((l) => l.name)]);
  for (const name of Object.keys(DESCRIPTOR_SOURCES)) assert.ok(names.has(name), `DESCRIPTOR_SOURCES.${name}`);
});

test('C++ reads every field and list where JS packs it (each given a value of its own), and its default when left out', () => {
  const d = { ropeScaling: { type: 'longrope' } };
  const expected = {};
  const enums = {
    Activation: [ACTIVATIONS, 'activations'],
    NormKind: [NORMS, 'normKinds'],
    MatrixStorage: [MATRIX_STORAGES, 'matrixStorages'],
  };
  contract.descriptor.fields.forEach((f, i) => {
    if (Object.hasOwn(DESCRIPTOR_SOURCES, f.name)) return;
    if (f.type === 'int') d[f.name] = 3 + i;
    else if (f.type === 'float') d[f.name] = i + 0.25;
    else if (f.type === 'bool')
      d[f.name] = f.default === 0; // the value that is not its default
    else {
      const [names, table] = enums[f.type];
      const [jsName, runnerName] = Object.entries(names).find(([, n]) => contract[table][n] !== f.default);
      d[f.name] = jsName;
      expected[f.name] = contract[table][runnerName];
    }
    expected[f.name] ??= f.type === 'bool' ? Number(d[f.name]) : d[f.name];
  });
  Object.assign(d, { numLayers: 3, rotaryDim: 4, layerWindows: [5, 0, 7], layerNoRope: [true, false, true] });
  Object.assign(d.ropeScaling, {
    factor: 2.5,
    lowFreqFactor: 1.5,
    highFreqFactor: 3.5,
    originalMax: 777,
    attentionFactor: 1.25,
    shortFactors: [0.5, 0.75],
    longFactors: [1.5, 2.25],
  });
  d.matrixStorages = ['q8_0', 'q4_k', 'float32'];
  Object.assign(expected, {
    numLayers: 3,
    rotaryDim: 4,
    ropeScaling: contract.ropeScalings.kLongRope,
    ropeFactor: 2.5,
    ropeLowFreqFactor: 1.5,
    ropeHighFreqFactor: 3.5,
    ropeOriginalMax: 777,
    ropeAttentionFactor: 1.25,
    matrixStorageCount: 3,
    layerWindows: [5, 0, 7],
    layerNoRope: [1, 0, 1],
    ropeShortFactors: [0.5, 0.75],
    ropeLongFactors: [1.5, 2.25],
    matrixStorages: ['kQ8_0', 'kQ4_K', 'kFloat32'].map((n) => contract.matrixStorages[n]),
  });
  const jsName = (k) => k[1].toLowerCase() + k.slice(2);
  const scope = new HeapScope(module, 'test');
  try {
    const read = module._pretrainedDescriptorRead(scope.bytes(packDescriptor(module, d).bytes));
    assert.deepEqual(Object.fromEntries(Object.entries(read).map(([k, v]) => [jsName(k), v])), expected);
    // Left out, every field is C++'s default.
    const defaults = module._pretrainedDescriptorRead(scope.bytes(packDescriptor(module, {}).bytes));
    for (const f of contract.descriptor.fields)
      assert.equal(defaults[`k${f.name[0].toUpperCase()}${f.name.slice(1)}`], f.default, f.name);
  } finally {
    scope.release();
  }
});

test('the descriptor: every name and value JS packs is one the module has', () => {
  for (const name of values(NORMS)) assert.ok(Object.hasOwn(contract.normKinds, name), `norm ${name}`);
  for (const name of values(MATRIX_STORAGES))
    assert.ok(Object.hasOwn(contract.matrixStorages, name), `matrix storage ${name}`);
  for (const name of values(KV_STORAGES)) assert.ok(Object.hasOwn(contract.kvStorages, name), `kv storage ${name}`);
  const booleans = new Set();
  const boolFields = contract.descriptor.fields.filter((f) => f.type === 'bool').map((f) => f.name);
  const scope = new HeapScope(module, 'test');
  try {
    for (const name of FIXTURES) {
      const { descriptor } = architectureOf('test', configOf(name), undefined, contract.weightKinds);
      for (const [key, value] of Object.entries(descriptor)) if (typeof value === 'boolean') booleans.add(key);
      const packed = packDescriptor(module, descriptor);
      // The fields (8 bytes each), then a window and a NoPE flag per layer and two factors per
      // rotated pair (4 bytes each).
      assert.equal(
        packed.bytes.length,
        8 * contract.descriptor.count + 4 * (2 * descriptor.numLayers + (descriptor.rotaryDim ?? 0)),
        name,
      );
      assert.equal(module._pretrainedCheck(scope.bytes(packed.bytes)), contract.status.kOk, name);
    }
  } finally {
    scope.release();
  }
  for (const key of booleans) assert.ok(boolFields.includes(key), `the descriptors' boolean ${key} is a runner field`);
  assert.throws(
    () => packDescriptor(module, { activation: 'swish2' }),
    /internal error: the descriptor's activation 'swish2' is not a Activation descriptor.js knows/,
  );
  for (const name of [...values(ACTIVATIONS), ...values(LAYER_ACTIVATIONS)])
    assert.ok(Object.hasOwn(contract.activations, name), `activation ${name}`);
  for (const name of values(ROPE_SCALINGS))
    assert.ok(Object.hasOwn(contract.ropeScalings, name), `rope scaling ${name}`);
  for (const name of Object.keys(STATUS_MESSAGES)) assert.ok(Object.hasOwn(contract.status, name), `status ${name}`);
});

test("each field is checked as its ATTN_DESCRIPTOR_FIELDS line says, and its default is the runner's", () => {
  const { descriptor } = architectureOf('test', configOf('tiny-granite'), undefined, contract.weightKinds);
  const scope = new HeapScope(module, 'test');
  // patch: descriptor values; raw: [[field name, or [index, 'layerNoRope'], number]] written
  // over the packed bytes (numbers JS never writes).
  const check = (patch, raw = []) => {
    const { bytes } = packDescriptor(module, { ...descriptor, ...patch });
    const view = new DataView(bytes.buffer);
    for (const [where, value] of raw) {
      if (typeof where === 'string') view.setFloat64(8 * contract.descriptor.slots[where], value, true);
      else view.setInt32(8 * contract.descriptor.count + 4 * (descriptor.numLayers + where[0]), value, true);
    }
    return module._pretrainedCheck(scope.bytes(bytes));
  };
  try {
    assert.equal(check({}), contract.status.kOk);
    // Absent: the default (a descriptor without Granite's scalars is Llama's, and valid).
    assert.equal(check({ residualMultiplier: undefined, logitsScaling: undefined }), contract.status.kOk);
    for (const [patch, why] of [
      [{ logitsScaling: 0 }, 'kPositive'],
      [{ logitsScaling: -2 }, 'kPositive'],
      [{ residualMultiplier: NaN }, 'kFinite'],
      [{ embeddingMultiplier: Infinity }, 'kFinite'],
      [{ attentionScale: -1 }, 'kNonNegative'],
      [{ attentionSoftcap: -0.5 }, 'kNonNegative'],
      [{ localRotaryBase: -10 }, 'kNonNegative'],
      [{ normEps: 0 }, 'kPositive'],
      [{ rotaryBase: -1 }, 'kPositive'],
      [{ layerWindows: [0, -4] }, "a list's kNonNegative"],
    ])
      assert.equal(check(patch), contract.status.kBadArgument, `${JSON.stringify(patch)} (${why})`);
    for (const [patch, why] of [
      [{ vocabSize: 0 }, 'kDimension'],
      [{ dFF: -3 }, 'kDimension'],
      [{ typeVocabSize: -1 }, 'kCount'],
      [{ numLayers: -1 }, 'kCount'],
    ])
      assert.equal(check(patch), contract.status.kNegativeDimension, `${JSON.stringify(patch)} (${why})`);
    assert.equal(check({ residualMultiplier: -0.5 }), contract.status.kOk, 'kFinite allows a negative multiplier');
    // Numbers JS never writes, refused by C++ all the same: enums outside their list, a size
    // past int32, a NoPE flag of 2 (or 257, not wrapped to 1 in its byte).
    for (const raw of [
      [['activation', 99]],
      [['norm', -1]],
      [['ropeScaling', 7]],
      [['matrixStorage', 6]],
      [['vocabSize', 2 ** 40]],
      [[[1], 2]],
      [[[1], 257]],
    ])
      assert.notEqual(check({}, raw), contract.status.kOk, JSON.stringify(raw));
    assert.equal(check({}, [[[1], 1]]), contract.status.kOk, 'a NoPE flag of 1');
  } finally {
    scope.release();
  }
});

test("every architecture's name map is keyed by weight kinds the module exports", () => {
  const kinds = new Set(values(contract.weightKinds).map(String));
  const seen = new Set();
  for (const name of FIXTURES) {
    const arch = architectureOf('test', configOf(name), undefined, contract.weightKinds);
    seen.add(arch.modelType);
    for (const key of Object.keys(arch.names))
      if (key !== 'prefixes') assert.ok(kinds.has(key), `${arch.modelType}: name map key ${key}`);
  }
  assert.deepEqual([...seen].sort(), [...MODEL_TYPES].sort(), 'every model type checked');
  // Two kinds of the same shape swapped would pass every shape check: each kind a name map
  // uses names a tensor of its own (Phi-3's fused parts: the same tensor, distinct offsets).
  for (const name of FIXTURES) {
    const arch = architectureOf('test', configOf(name), undefined, contract.weightKinds);
    const sources = new Map();
    for (const key of Object.keys(arch.names)) {
      if (key === 'prefixes') continue;
      const spec = arch.names[key](0);
      if (spec.tied) continue; // a tied LM matrix is the word embeddings by design
      const where = `${spec.name}@${spec.part?.[0] ?? 0}`;
      assert.ok(
        !sources.has(where),
        `${arch.modelType}: kinds ${contract.weightKindNames[sources.get(where)]} and ${contract.weightKindNames[key]} both read ${where}`,
      );
      sources.set(where, key);
    }
  }
});

test('the trace fields come from the module (src/model/trace.h), each one bindings/js/models/trace.js reads, numbered 0 … n-1', () => {
  const fields = contract.traceFields;
  const read = [
    ...readFileSync(new URL('../bindings/js/models/trace.js', import.meta.url), 'utf8').matchAll(/read\('(\w+)'/g),
  ].map((m) => m[1]);
  assert.deepEqual([...new Set(read)].sort(), Object.keys(fields).sort());
  assert.deepEqual(
    Object.values(fields).sort((a, b) => a - b),
    Object.keys(fields).map((_, i) => i),
  );
});

test("the forward flags, the training model's flags and parameter names come from the module, each name JS uses among them", async () => {
  assert.deepEqual(Object.keys(contract.forwardFlags).sort(), [
    'attentions',
    'hiddenStates',
    'keepQkShift',
    'lastLogitsOnly',
    'logits',
    'useCache',
  ]);
  assert.deepEqual(Object.keys(contract.trainingFlags).sort(), ['causal', 'classify', 'learned', 'preNorm', 'relu']);
  const bits = [
    ...Object.values(contract.trainingFlags),
    ...Object.entries(contract.forwardFlags)
      .filter(([k]) => k !== 'keepQkShift')
      .map(([, v]) => v),
  ];
  for (const bit of bits) assert.ok(Number.isInteger(Math.log2(bit)), `${bit} is one bit`);
  assert.ok(
    contract.forwardFlags.keepQkShift >
      Math.log2(
        Math.max(
          ...Object.values(contract.forwardFlags).filter((v, i, all) => v !== contract.forwardFlags.keepQkShift),
        ),
      ),
  );
  // The training model's tensors are named by the module's list, in its layout order.
  const attn = await init();
  const model = new attn.TinyTransformer({
    vocabSize: 5,
    maxLen: 3,
    dModel: 4,
    numHeads: 2,
    numLayers: 1,
    dFF: 8,
    head: 'classify',
    numClasses: 2,
    norm: 'pre',
  });
  try {
    const names = Object.keys(model.getWeights().tensors);
    assert.ok(
      names.includes('layers.0.attn.wq') && names.includes('head.w') && names.includes('finalNorm.gamma'),
      names.join(),
    );
    for (const name of names) assert.ok(contract.paramKindNames.includes(name.replace(/^layers\.\d+\./, '')), name);
  } finally {
    model.dispose();
  }
});
