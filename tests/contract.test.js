// The JS↔C++ contract (issue 33 A.1): status codes, weight kinds, activations, RoPE scalings,
// the attention call's slots and the model descriptor's slots and flags are listed once in
// C++ (src/status.h, src/model/weights.h, src/block.h, src/model/self_attention.h,
// bindings/contract.h) and exported by the module (bindings/contract_bindings.cc); JS reads
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
  DESCRIPTOR_SLOTS,
  DESCRIPTOR_LISTS,
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
const isPowerOfTwo = (x) => Number.isInteger(x) && x > 0 && (x & (x - 1)) === 0;

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
  assertDense(baseline.descriptorLayout, 'descriptor slots');
  const bits = values(baseline.descriptorFlags);
  assert.ok(bits.every(isPowerOfTwo), 'flags are powers of two');
  assert.equal(new Set(bits).size, bits.length, 'flags distinct');
  // Every enumerator is kSomething, so JS's names (contract.js) are well defined.
  for (const table of [
    baseline.status,
    baseline.weightKinds,
    baseline.activations,
    baseline.ropeScalings,
    baseline.callLayout.slots,
    baseline.descriptorLayout.slots,
    baseline.descriptorFlags,
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

test('the descriptor: every slot and list C++ reads has a value in JS, and every flag a descriptor key', () => {
  // The plain scalars (ATTN_DESCRIPTOR_SCALARS) come with their defaults from C++; descriptor.js
  // fills the rest, and no slot twice.
  const scalars = Object.keys(contract.descriptor.defaults);
  assert.deepEqual(
    [...Object.keys(DESCRIPTOR_SLOTS), ...scalars].sort(),
    [...contract.descriptor.names].sort(),
    'descriptor.js fills exactly the slots C++ reads',
  );
  assert.ok(scalars.every((name) => contract.descriptor.floats.includes(contract.descriptor.slots[name])));
  assert.deepEqual(
    Object.fromEntries(
      ['attentionScale', 'embeddingMultiplier', 'logitsScaling'].map((n) => [n, contract.descriptor.defaults[n]]),
    ),
    { attentionScale: 0, embeddingMultiplier: 1, logitsScaling: 1 },
    "the defaults are ModelDescriptor's",
  );
  assert.deepEqual(
    Object.keys(DESCRIPTOR_LISTS),
    contract.descriptor.lists.map((l) => l.name),
    'descriptor.js fills exactly the lists C++ reads, in order',
  );
  for (const name of values(NORMS)) assert.ok(Object.hasOwn(contract.normKinds, name), `norm ${name}`);
  for (const name of values(MATRIX_STORAGES))
    assert.ok(Object.hasOwn(contract.matrixStorages, name), `matrix storage ${name}`);
  for (const name of values(KV_STORAGES)) assert.ok(Object.hasOwn(contract.kvStorages, name), `kv storage ${name}`);
  const booleans = new Set();
  const scope = new HeapScope(module, 'test');
  try {
    for (const name of FIXTURES) {
      const { descriptor } = architectureOf('test', configOf(name), undefined, contract.weightKinds);
      for (const [key, value] of Object.entries(descriptor)) if (typeof value === 'boolean') booleans.add(key);
      const packed = packDescriptor(module, descriptor);
      // The slots, then a window and a NoPE flag per layer and two factors per rotated pair.
      assert.equal(
        packed.ints.length,
        contract.descriptor.count + 2 * descriptor.numLayers + (descriptor.rotaryDim ?? 0),
        name,
      );
      assert.equal(
        module._pretrainedCheck(scope.ints(packed.ints), packed.eps, packed.base),
        contract.status.kOk,
        name,
      );
    }
  } finally {
    scope.release();
  }
  assert.deepEqual(
    [...booleans].sort(),
    Object.keys(contract.descriptorFlags).sort(),
    "the descriptors' booleans are the runner's flags",
  );
  for (const name of [...values(ACTIVATIONS), ...values(LAYER_ACTIVATIONS)])
    assert.ok(Object.hasOwn(contract.activations, name), `activation ${name}`);
  for (const name of values(ROPE_SCALINGS))
    assert.ok(Object.hasOwn(contract.ropeScalings, name), `rope scaling ${name}`);
  for (const name of Object.keys(STATUS_MESSAGES)) assert.ok(Object.hasOwn(contract.status, name), `status ${name}`);
});

test("each plain scalar is checked as its ATTN_DESCRIPTOR_SCALARS line says, and its default is the runner's", () => {
  const { descriptor } = architectureOf('test', configOf('tiny-granite'), undefined, contract.weightKinds);
  const scope = new HeapScope(module, 'test');
  const check = (patch) => {
    const packed = packDescriptor(module, { ...descriptor, ...patch });
    return module._pretrainedCheck(scope.ints(packed.ints), packed.eps, packed.base);
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
    ])
      assert.equal(check(patch), contract.status.kBadArgument, `${JSON.stringify(patch)} (${why})`);
    assert.equal(check({ residualMultiplier: -0.5 }), contract.status.kOk, 'kFinite allows a negative multiplier');
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
