// The hand-written declarations against the runtime (issue 36 item 5): every option a public
// function accepts appears in its .d.ts options type and the other way round; the fields of
// ModelDescriptor are the ones the runtime builds and packs; each element's attributes in
// web/elements/index.d.ts are the ones it observes or reads. The .d.ts side is read with the
// TypeScript compiler API (the types as tsc resolves them: extends, intersections, overloads);
// the runtime side is asked: an unknown option is refused with the allow-list in the message
// (checkKeys: "unknown option 'x' (known: a, b)"), so each function is called with one.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { init } from 'attention-wasm';
import createModule from '../dist/attention.js';
import { packDescriptor } from '../bindings/js/models/descriptor.js';

const attn = await init({ simd: 'baseline', threads: 1 });
const module = await createModule({ wasmBinary: readFileSync(new URL('../dist/attention.wasm', import.meta.url)) });
const fixture = (name) => fileURLToPath(new URL(`./fixtures/hf/${name}`, import.meta.url));
const PROBE = 'zzDriftProbe';

// ---- the .d.ts side -------------------------------------------------------------------------

// A program over one declaration file, and its type checker.
function declarations(relative) {
  const file = fileURLToPath(new URL(relative, import.meta.url));
  const program = ts.createProgram([file], {
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  });
  return { checker: program.getTypeChecker(), source: program.getSourceFile(file) };
}

// The property names of a type (its optional/undefined part stripped), sorted.
const propertiesOf = (checker, type) =>
  checker
    .getPropertiesOfType(checker.getNonNullableType(type))
    .map((s) => s.name)
    .sort();

// 'Owner.method' (or 'function', or 'Owner.constructor') → the union over its overloads of the
// properties of each parameter whose name is `options` or `config`: { 'Owner.method': names }.
function optionTypes({ checker, source }) {
  const found = {};
  const add = (key, names) => (found[key] = [...new Set([...(found[key] ?? []), ...names])].sort());
  const visit = (node, owner) => {
    if ((ts.isInterfaceDeclaration(node) || ts.isClassDeclaration(node)) && node.name) {
      for (const member of node.members) visit(member, node.name.text);
      return;
    }
    const callable =
      ts.isMethodSignature(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isFunctionDeclaration(node);
    if (callable) {
      const name = node.name ? node.name.getText(source) : 'constructor';
      const key = owner ? `${owner}.${name}` : name;
      for (const p of node.parameters) {
        if (!/^(options|config)$/.test(p.name.getText(source))) continue;
        add(key, propertiesOf(checker, checker.getTypeAtLocation(p)));
      }
      return;
    }
    ts.forEachChild(node, (child) => visit(child, owner));
  };
  ts.forEachChild(source, (node) => visit(node));
  return found;
}

// An interface's property names (its `extends` included).
function interfaceProperties({ checker, source }, name) {
  let found = null;
  ts.forEachChild(source, (node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === name)
      found = propertiesOf(checker, checker.getTypeAtLocation(node.name));
  });
  assert.ok(found, `no interface ${name} in ${source.fileName}`);
  return found;
}

const api = declarations('../bindings/js/index.d.ts');
const elementTypes = declarations('../web/elements/index.d.ts');

// ---- the runtime side -----------------------------------------------------------------------

// The allow-list a call refuses an unknown key with (the call takes the options object).
async function allowList(call) {
  let message = null;
  try {
    await call({ [PROBE]: 1 });
  } catch (error) {
    message = error.message;
  }
  assert.ok(message !== null, `an unknown option ('${PROBE}') was accepted`);
  const m = new RegExp(`unknown \\w+ '${PROBE}' \\((?:did you mean '[^']*'\\? )?known: ([^)]*)\\)$`).exec(message);
  assert.ok(m, `an unknown option was refused without its allow-list: ${message}`);
  return m[1].split(', ').sort();
}

const q = [[1, 0]];
const model = await attn.loadModel(fixture('tiny-gpt2'));
const embedder = await attn.loadModel(fixture('tiny-minilm-embedder'));
const chat = await attn.loadModel(fixture('tiny-chat'));
const classifier = await attn.TextClassifier.load(
  fileURLToPath(new URL('../web/elements/models/review-sentiment/', import.meta.url)),
);
const cache = new attn.KVCache({ batch: 1, kvHeads: 1, capacity: 4, headDim: 2, valueDim: 2 });
const mha = new attn.MultiHeadAttention({ dModel: 2, numHeads: 1 });
const layer = new attn.TransformerEncoderLayer({ dModel: 2, numHeads: 1, dFF: 4 });
const tiny = new attn.TinyTransformer({ vocabSize: 4, maxLen: 4, dModel: 2, numHeads: 1, numLayers: 1, dFF: 4 });
const batch = { tokens: [[1, 2]], targets: [[2, 1]] };

// Each public function with an options (or config) object, keyed as in optionTypes: a call
// that reaches the options check with `o` as its options.
const RUNTIME = {
  init: (o) => init(o),
  'AttentionWasm.attention': (o) => attn.attention(q, q, q, o),
  'AttentionWasm.attentionBackward': (o) => attn.attentionBackward(q, q, q, q, o),
  'AttentionWasm.layerNormBackward': (o) => attn.layerNormBackward(q, q, o),
  'AttentionWasm.feedForwardBackward': (o) => attn.feedForwardBackward(q, q, o),
  'AttentionWasm.feedForward': (o) => attn.feedForward(q, o),
  'AttentionWasm.matmul': (o) => attn.matmul(q, [[1], [0]], o),
  'AttentionWasm.sinusoidalEncoding': (o) => attn.sinusoidalEncoding(2, 2, o),
  'AttentionWasm.addPositionalEncoding': (o) => attn.addPositionalEncoding(q, q, o),
  'AttentionWasm.applyRope': (o) => attn.applyRope(q, o),
  'AttentionWasm.layerNorm': (o) => attn.layerNorm(q, o),
  'AttentionWasm.rmsNorm': (o) => attn.rmsNorm(q, o),
  'AttentionWasm.softmax': (o) => attn.softmax(q, o),
  'AttentionWasm.logSoftmax': (o) => attn.logSoftmax(q, o),
  'AttentionWasm.loadModel': (o) => attn.loadModel(fixture('tiny-gpt2'), o),
  'KVCache.constructor': (o) => new attn.KVCache({ batch: 1, kvHeads: 1, capacity: 4, headDim: 2, ...o }),
  'KVCache.attend': (o) => cache.attend([[[q]]], [[[q]]], [[[q]]], o),
  'MultiHeadAttention.constructor': (o) => new attn.MultiHeadAttention({ dModel: 2, numHeads: 1, ...o }),
  'MultiHeadAttention.forward': (o) => mha.forward(q, q, q, o),
  'TransformerEncoderLayer.constructor': (o) => new attn.TransformerEncoderLayer({ dModel: 2, numHeads: 1, ...o }),
  'TransformerEncoderLayer.forward': (o) => layer.forward(q, o),
  'TinyTransformer.constructor': (o) => new attn.TinyTransformer({ vocabSize: 4, maxLen: 4, ...o }),
  'TinyTransformer.forward': (o) => tiny.forward([[1, 2]], o),
  'TinyTransformer.trainStep': (o) => tiny.trainStep(batch, o),
  'TextClassifierStatic.load': (o) => attn.TextClassifier.load({}, o),
  // Two overloads: training from scratch, and a linear probe on an encoder (its own options).
  'TextClassifierStatic.train': [
    (o) => attn.TextClassifier.train('good\tpos\nbad\tneg', o),
    (o) => attn.TextClassifier.train('good\tpos\nbad\tneg', { encoder: embedder, ...o }),
  ],
  'TextClassifierStatic.trainFiles': (o) => attn.TextClassifier.trainFiles('good\tpos\nbad\tneg', o),
  'TextClassifier.evaluate': (o) => classifier.evaluate('good\tpositive', o),
  'TextClassifier.toFiles': (o) => classifier.toFiles(o),
  'TextTokenizer.encode': (o) => model.tokenizer.encode('a', o),
  'TextTokenizer.decode': (o) => model.tokenizer.decode([1], o),
  'PretrainedModel.applyChatTemplate': (o) => chat.applyChatTemplate([{ role: 'user', content: 'hi' }], o),
  'PretrainedModel.forward': (o) => model.forward('a', o),
  'PretrainedModel.embed': (o) => embedder.embed('a', o),
  'PretrainedModel.generate': (o) => model.generate('a', o),
  'PretrainedModel.samplingDistribution': (o) =>
    model.samplingDistribution(new Float32Array(model.descriptor.vocabSize), o),
};

test('every function the .d.ts gives an options or config object has a runtime probe here', () => {
  assert.deepEqual(Object.keys(optionTypes(api)).sort(), Object.keys(RUNTIME).sort());
});

for (const [name, call] of Object.entries(RUNTIME)) {
  test(`${name}: the options the runtime accepts are the ones index.d.ts declares`, async () => {
    const declared = optionTypes(api)[name];
    const accepted = [...new Set((await Promise.all([call].flat().map(allowList))).flat())];
    assert.deepEqual(
      {
        onlyAtRuntime: accepted.filter((k) => !declared.includes(k)),
        onlyInTypes: declared.filter((k) => !accepted.includes(k)),
      },
      { onlyAtRuntime: [], onlyInTypes: [] },
    );
  });
}

test('the classifier tokenizer refuses unknown options with the same allow-lists', async () => {
  const declared = optionTypes(api);
  assert.deepEqual(await allowList((o) => classifier.tokenizer.encode('a', o)), declared['TextTokenizer.encode']);
  assert.deepEqual(await allowList((o) => classifier.tokenizer.decode([1], o)), declared['TextTokenizer.decode']);
});

// ---- ModelDescriptor ------------------------------------------------------------------------

// The descriptor properties packDescriptor reads (a recording proxy as the descriptor).
function fieldsPacked() {
  const read = new Set();
  const record = (path) =>
    new Proxy(
      {},
      {
        get(_, key) {
          if (typeof key !== 'string') return undefined;
          if (path === '') read.add(key);
          // ropeScaling's fields are its own type's; read them, record only the top level.
          return key === 'ropeScaling' ? record(key) : undefined;
        },
      },
    );
  packDescriptor(module, record(''));
  return [...read].sort();
}

test('ModelDescriptor: every field is one the runtime builds or packs, and every built field is declared', async () => {
  const declared = interfaceProperties(api, 'ModelDescriptor');
  const built = new Set();
  for (const name of [
    'tiny-bert',
    'tiny-roberta',
    'tiny-gpt2',
    'tiny-llama-rope-scaling',
    'tiny-gemma2',
    'tiny-gemma3',
    'tiny-phi3',
    'tiny-qwen3',
  ])
    for (const key of Object.keys((await attn.loadModel(fixture(name))).descriptor)) built.add(key);
  // matrixStorage and matrixStorages are loadModel's own, added when it packs (bfloat16 or
  // quantized matrices, a GGUF file's mix: the model shows them as matrixDtype and
  // matrixStorages); model.descriptor never holds them.
  const loaders = ['matrixStorage', 'matrixStorages'];
  for (const key of fieldsPacked()) if (!loaders.includes(key)) built.add(key);
  assert.deepEqual(
    {
      onlyAtRuntime: [...built].filter((k) => !declared.includes(k)).sort(),
      onlyInTypes: declared.filter((k) => !built.has(k)),
    },
    { onlyAtRuntime: [], onlyInTypes: [] },
  );
});

// ---- the elements' attributes ---------------------------------------------------------------

// The element classes by tag, imported in Node: each module needs only a base class and a
// registry to evaluate (nothing renders here).
async function elementClasses() {
  globalThis.HTMLElement ??= class {};
  globalThis.customElements ??= { get: () => undefined, define: () => {} };
  const { ELEMENT_TAGS } = await import('../web/elements/sanitize.js');
  const classes = {};
  for (const tag of ELEMENT_TAGS) {
    const exports = await import(`../web/elements/${tag}.js`);
    classes[tag] = Object.values(exports).find((value) => Array.isArray(value?.observedAttributes));
    assert.ok(classes[tag], `web/elements/${tag}.js exports no element class`);
  }
  return classes;
}

// Each tag's declared attributes: the properties of AttentionElementAttributes[tag].
function declaredAttributes({ checker, source }) {
  let map = null;
  ts.forEachChild(source, (node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'AttentionElementAttributes') map = node;
  });
  assert.ok(map, 'no AttentionElementAttributes in web/elements/index.d.ts');
  const type = checker.getTypeAtLocation(map.name);
  return Object.fromEntries(
    checker.getPropertiesOfType(type).map((tag) => [tag.name, propertiesOf(checker, checker.getTypeOfSymbol(tag))]),
  );
}

test("each element's attributes: index.d.ts, the table (attributes.js), observedAttributes and the sanitize allow-list agree", async () => {
  const classes = await elementClasses();
  const declared = declaredAttributes(elementTypes);
  const { ATTRIBUTES, COMMON_ATTRIBUTES, observedAttributes } = await import('../web/elements/attributes.js');
  const { ELEMENT_ATTRIBUTES } = await import('../web/elements/sanitize.js');
  assert.deepEqual(Object.keys(declared).sort(), Object.keys(classes).sort());
  assert.deepEqual(Object.keys(ATTRIBUTES).sort(), Object.keys(classes).sort());
  const allowed = new Set();
  for (const [tag, element] of Object.entries(classes)) {
    const table = [...Object.keys(ATTRIBUTES[tag]), ...Object.keys(COMMON_ATTRIBUTES)];
    table.forEach((name) => allowed.add(name));
    assert.deepEqual(
      {
        tag,
        onlyInTable: table.filter((a) => !declared[tag].includes(a)).sort(),
        onlyInTypes: declared[tag].filter((a) => !table.includes(a)),
      },
      { tag, onlyInTable: [], onlyInTypes: [] },
    );
    // What the element observes is the table's (attention-sentiment still lists its own).
    assert.deepEqual([...element.observedAttributes].sort(), observedAttributes(tag).sort(), tag);
  }
  assert.deepEqual([...ELEMENT_ATTRIBUTES].sort(), [...allowed].sort());
});

test("<attention-training>'s task and preset values are its tasks' and presets' names", async () => {
  const { ATTRIBUTES } = await import('../web/elements/attributes.js');
  const { TASKS } = await import('../web/elements/training/tasks.js');
  const { PRESETS } = await import('../web/elements/training/toy-training.js');
  const rows = ATTRIBUTES['attention-training'];
  assert.deepEqual([...rows.task.values].sort(), Object.keys(TASKS).sort());
  assert.deepEqual([...rows.preset.values].sort(), Object.keys(PRESETS).sort());
});
