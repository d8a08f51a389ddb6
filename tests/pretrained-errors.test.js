// loadModel and PretrainedModel as a caller meets them with bad checkpoints and bad calls:
// each case in issue 21 item 1 (unsupported model_type, a missing tensor named, a shape
// mismatch with both shapes, a truncated file, a safetensors header that lies, weights that
// cannot fit) is a typed error naming the problem, with nothing left allocated and the
// module working afterwards.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { writeSafetensors, readSafetensors, fixtureFiles } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const files = fixtureFiles(`${root}tiny-bert`);
const config = JSON.parse(new TextDecoder().decode(files['config.json']));
const tensors = readSafetensors(files['model.safetensors']);

// The module still computes: a 2 × 2 attention gives its known answer.
function assertIntact(inUse) {
  assert.equal(attn.memory().inUseBytes, inUse, 'no wasm memory left allocated');
  const out = attn.attention(
    [[1, 0]],
    [
      [1, 0],
      [0, 1],
    ],
    [
      [1, 2],
      [3, 4],
    ],
    { scale: 0 },
  ).output;
  assert.deepEqual(Array.from(out.data), [2, 3]);
}

async function rejects(source, type, pattern, options) {
  const inUse = attn.memory().inUseBytes;
  await assert.rejects(attn.loadModel(source, options), (e) => {
    assert.ok(e instanceof type, `${e.constructor.name}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });
  assertIntact(inUse);
}

const withConfig = (changes) => ({ ...files, 'config.json': { ...config, ...changes } });
const withTensors = (edit, options) => {
  const copy = { ...tensors };
  edit(copy);
  return { ...files, 'model.safetensors': writeSafetensors(copy, options) };
};

test('config.json problems: missing, not JSON, unsupported model_type or option, sizes that cannot fit', async () => {
  const { 'config.json': _, ...noConfig } = files;
  await rejects(
    noConfig,
    RangeError,
    /^loadModel: the files given has no config.json|^loadModel: the files given have no config.json|has no config.json/,
  );
  await rejects(
    { ...files, 'config.json': '{ "model_type": ' },
    RangeError,
    /^loadModel: config.json is not valid JSON/,
  );
  await rejects(
    withConfig({ model_type: 't5' }),
    RangeError,
    /^loadModel: config.json: model_type "t5" is not supported \(supported: bert, distilbert, gpt2, roberta, llama, mistral, qwen2, qwen3, gemma2, gemma3_text, gemma3, phi3, granite, smollm3, olmo2, modernbert\)/,
  );
  await rejects(
    withConfig({ hidden_act: 'swish' }),
    RangeError,
    /^loadModel: config.json: hidden_act 'swish' is not supported/,
  );
  await rejects(
    withConfig({ position_embedding_type: 'relative_key' }),
    RangeError,
    /^loadModel: config.json: position_embedding_type "relative_key" is not supported/,
  );
  await rejects(withConfig({ hidden_size: 30 }), RangeError, /hidden size must divide into the heads/);
  await rejects(
    withConfig({ vocab_size: 2 ** 24, hidden_size: 4096, num_attention_heads: 32 }),
    RangeError,
    /^loadModel: the bert model's largest table, the word embeddings \(vocab_size 16777216 × hidden_size 4096\), takes 256\.0 GiB as float32 while it loads; one wasm buffer may take at most 2 GiB$/,
  );
  // Every table fits one buffer, but not all of them the heap: the total, against the heap.
  await rejects(
    withConfig({ num_hidden_layers: 1000, hidden_size: 4096, intermediate_size: 16384, num_attention_heads: 32 }),
    RangeError,
    /^loadModel: the bert weights need 750\.\d GiB of wasm memory as float32; the wasm heap holds at most 4\.0 GiB$/,
  );
  // A sparse 4.75 GiB float32 llama (vocab 262144 × 4096): its embeddings alone, not a total that fits.
  await rejects(
    withConfig({ vocab_size: 262144, hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 1 }),
    RangeError,
    /^loadModel: the bert model's largest table, the word embeddings \(vocab_size 262144 × hidden_size 4096\), takes 4\.0 GiB as float32/,
  );
  await rejects(
    files,
    RangeError,
    /^loadModel: options.head must be one of base, masked-lm, causal-lm, sequence-classification/,
    { head: 'seq2seq' },
  );
  await rejects(files, RangeError, /a bert checkpoint has no causal-LM head/, { head: 'causal-lm' });
  await rejects(files, TypeError, /^loadModel: options.onProgress must be a function/, { onProgress: 1 });
  await rejects(42, TypeError, /^loadModel: source must be a folder path or URL/);
  await rejects(`${root}no-such-model`, RangeError, /has no config.json/);
  // Llama: options this version does not run are named.
  const llama = fixtureFiles(`${root}tiny-llama`);
  const llamaConfig = JSON.parse(new TextDecoder().decode(llama['config.json']));
  await rejects(
    { ...llama, 'config.json': { ...llamaConfig, rope_scaling: { rope_type: 'llama3', factor: 8 } } },
    RangeError,
    /^loadModel: config.json: rope_scaling \{"rope_type":"llama3","factor":8\}: low_freq_factor must be a positive number, got undefined/,
  );
  await rejects(
    { ...llama, 'config.json': { ...llamaConfig, rope_scaling: { rope_type: 'longrope', factor: 8 } } },
    RangeError,
    /^loadModel: config.json: rope_scaling \{"rope_type":"longrope","factor":8\}: short_factor must be a list of 4 numbers \(one per rotated pair\), got undefined/,
  );
  await rejects(
    { ...llama, 'config.json': { ...llamaConfig, rope_scaling: { rope_type: 'dynamic', factor: 8 } } },
    RangeError,
    /^loadModel: config.json: rope_scaling .*type "dynamic" is not supported \(supported: default, linear, llama3, longrope\)/,
  );
  await rejects(
    { ...llama, 'config.json': { ...llamaConfig, num_key_value_heads: 3 } },
    RangeError,
    /num_attention_heads 4 must be a multiple of num_key_value_heads 3/,
  );
  // An untied checkpoint without its own LM matrix.
  const untied = readSafetensors(llama['model.safetensors']);
  delete untied['lm_head.weight'];
  await rejects(
    { ...llama, 'model.safetensors': writeSafetensors(untied) },
    RangeError,
    /the checkpoint has no tensor 'lm_head.weight' \(the lmDecoder\)/,
  );
});

test('a missing tensor is named; a wrong shape names both shapes', async () => {
  await rejects(
    withTensors((t) => delete t['bert.encoder.layer.1.attention.self.key.weight']),
    RangeError,
    /^loadModel: the checkpoint has no tensor 'bert.encoder.layer.1.attention.self.key.weight' \(the key of layer 1\)/,
  );
  await rejects(
    withTensors((t) => delete t['cls.predictions.bias']),
    RangeError,
    /no tensor 'cls.predictions.bias' \(the lmBias\)/,
  );
  await rejects(
    withTensors((t) => {
      const w = t['bert.encoder.layer.0.intermediate.dense.weight'];
      t['bert.encoder.layer.0.intermediate.dense.weight'] = { ...w, shape: [w.shape[1], w.shape[0]] };
    }),
    RangeError,
    /^loadModel: tensor 'bert.encoder.layer.0.intermediate.dense.weight' has shape \[32, 64\] but the up of layer 0 needs \[64, 32\] \(from config.json\)/,
  );
  await rejects(
    withConfig({ intermediate_size: 48 }),
    RangeError,
    /has shape \[64, 32\] but the up of layer 0 needs \[48, 32\]/,
  );
  await rejects(
    withTensors((t) => {
      t['bert.embeddings.word_embeddings.weight'] = { ...t['bert.embeddings.word_embeddings.weight'], dtype: 'I32' };
    }),
    RangeError,
    /tensor 'bert.embeddings.word_embeddings.weight' is I32; weights must be F32, F16 or BF16/,
  );
  const { 'model.safetensors': _, ...noWeights } = files;
  await rejects(noWeights, RangeError, /has neither model.safetensors nor model.safetensors.index.json/);
});

test('truncated files and headers that lie: RangeErrors naming the file and the tensor', async () => {
  const weights = files['model.safetensors'];
  const n = new DataView(weights.buffer, weights.byteOffset).getUint32(0, true);
  const put = (bytes) => ({ ...files, 'model.safetensors': bytes });
  await rejects(
    put(weights.subarray(0, 5)),
    RangeError,
    /^loadModel: model.safetensors is 5 bytes, too short for a safetensors file \(truncated\?\)/,
  );
  await rejects(
    put(weights.subarray(0, n)),
    RangeError,
    /^loadModel: model.safetensors is \d+ bytes but its header alone needs \d+ \(truncated\?\)/,
  );
  await rejects(
    put(weights.subarray(0, weights.length - 100)),
    RangeError,
    /^loadModel: model.safetensors: tensor '[^']+' ends at byte \d+ but the file has \d+ \(truncated\?\)/,
  );
  const huge = weights.slice();
  new DataView(huge.buffer).setUint32(4, 1, true);
  await rejects(put(huge), RangeError, /claims a 4294971936-byte header \(the format allows 100000000\)/);
  const garbled = weights.slice();
  garbled[8] = 0x5b; // '[': not an object
  garbled[9] = 0x7b;
  await rejects(put(garbled), RangeError, /^loadModel: model.safetensors: the safetensors header is not valid JSON/);
  const lie = (edit) => put(writeSafetensors(tensors, { headerOverride: (h) => (edit(h), h) }));
  await rejects(
    lie((h) => {
      h['bert.pooler.dense.bias'].shape = [33];
    }),
    RangeError,
    /tensor 'bert.pooler.dense.bias': shape \[33\] of F32 needs 132 bytes but data_offsets give 128/,
  );
  await rejects(
    lie((h) => {
      h['bert.pooler.dense.bias'].data_offsets = [0, 128];
    }),
    RangeError,
    /tensors '[^']+' and '[^']+' overlap/,
  );
  await rejects(
    lie((h) => {
      h['bert.pooler.dense.bias'].data_offsets = [10, 2];
    }),
    RangeError,
    /data_offsets \[10,2\]; they must be \[begin, end\] with 0 <= begin <= end/,
  );
  await rejects(
    lie((h) => {
      h['bert.pooler.dense.bias'].shape = [-1];
    }),
    RangeError,
    /has shape \[-1\]; a shape is a list of non-negative integers/,
  );
  await rejects(
    lie((h) => {
      h['bert.pooler.dense.bias'].dtype = 'F33';
    }),
    RangeError,
    /has unknown dtype 'F33'/,
  );
});

test('forward: bad input and options are typed errors naming the call; the model keeps working', async () => {
  const model = await attn.loadModel(`${root}tiny-bert`);
  const good = model.forward('the cat sat').logits.data;
  const inUse = attn.memory().inUseBytes;
  const throws = (call, type, pattern) =>
    assert.throws(call, (e) => e instanceof type && pattern.test(e.message), String(pattern));
  throws(() => model.forward(42), TypeError, /^PretrainedModel.forward: input must be a string, strings, token ids/);
  throws(() => model.forward([]), TypeError, /^PretrainedModel.forward: input must be/);
  throws(
    () => model.forward([2, 9999]),
    RangeError,
    /^PretrainedModel.forward: token id 9999 at \[0, 1\] is outside \[0, 55\)/,
  );
  throws(() => model.forward([[2, 1.5]]), RangeError, /token id 1.5 at \[0, 1\] is outside/);
  throws(
    () => model.forward(new Array(41).fill(5)),
    RangeError,
    /a sequence has 41 tokens but this model takes at most 40 \(max positions\)/,
  );
  throws(
    () => model.forward({ inputIds: [[2, 5, 3]], attentionMask: [[1, 0, 1]] }),
    RangeError,
    /attentionMask\[0\] must be 1s then 0s \(right padding\) or 0s then 1s \(left padding\), got \[1, 0, 1\]/,
  );
  throws(
    () => model.forward({ inputIds: [[2, 5, 3]], attentionMask: [[1, 0.5, 1]] }),
    RangeError,
    /attentionMask\[0\] must hold only 0s and 1s/,
  );
  throws(
    () => model.forward({ inputIds: [[2, 5, 3]], attentionMask: [[1, 1]] }),
    RangeError,
    /attentionMask\[0\] has 2 entries but inputIds\[0\] has 3/,
  );
  throws(
    () => model.forward({ inputIds: [[2, 5]], tokenTypeIds: [[0, 2]] }),
    RangeError,
    /token type 2 at \[0, 1\] is outside \[0, 2\)/,
  );
  throws(() => model.forward('x', { attentions: 'yes' }), TypeError, /options.attentions must be a boolean/);
  throws(() => model.forward('x', null), TypeError, /options must be an object/);
  assert.equal(attn.memory().inUseBytes, inUse);
  assert.deepEqual(model.forward('the cat sat').logits.data, good, 'same answer after the errors');
  // estimateMemory agrees with the call.
  const estimate = attn.estimateMemory('PretrainedModel.forward', model, 'the cat sat', { attentions: true });
  assert.ok(estimate.fits && estimate.bytes > 0 && estimate.complete, JSON.stringify(estimate));
  const big = Array.from({ length: 60_000 }, () => new Array(40).fill(5));
  const tooBig = attn.estimateMemory('PretrainedModel.forward', model, big, { attentions: true, hiddenStates: true });
  assert.equal(tooBig.fits, false);
  throws(
    () => model.forward(big, { attentions: true, hiddenStates: true }),
    RangeError,
    /^PretrainedModel\.forward: the attention maps \[2, 60000, 4, 40, 40\] need 2\.9 GiB; one tensor must stay under 2 GiB \(the heap holds 4\.0 GiB in all\)$/,
  );
  assert.equal(attn.memory().inUseBytes, inUse);
  model.dispose();
  model.dispose();
  throws(() => model.forward('x'), Error, /^PretrainedModel.forward: this model was disposed/);
  assert.ok(attn.memory().inUseBytes < inUse, 'dispose frees the weights');
});
