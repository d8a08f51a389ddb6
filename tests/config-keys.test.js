// config.json keys a family does not implement are refused by name (config_keys.js): each
// refused key with a value that changes the result is a RangeError naming the key, the same
// key with its harmless value loads, and every key of every checkpoint fixture is one the
// family's list knows (read or harmless), so none is ignored without a word.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { architectureOf } from '../bindings/js/models/architectures.js';
import { checkConfigKeys } from '../bindings/js/models/config_keys.js';
import { CONFIG_KEYS } from '../bindings/js/models/architectures.js';

const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const configOf = (name) => JSON.parse(readFileSync(`${root}${name}/config.json`, 'utf8'));
// Weight kinds keyed by their own names: architectureOf only uses them as keys of the name map.
const KIND = new Proxy({}, { get: (_, key) => key });
const load = (config) => architectureOf('loadModel', config, undefined, KIND);

test('every key of every fixture config is read or harmless for its family', () => {
  const names = readdirSync(root).filter((name) => !name.startsWith('.'));
  assert.ok(names.length >= 15, `fixtures: ${names}`);
  for (const name of names) {
    const config = configOf(name);
    assert.deepEqual(checkConfigKeys('test', CONFIG_KEYS[config.model_type], config), [], name);
  }
});

test('a family lists each key once: read, harmless or refused', () => {
  for (const [type, keys] of Object.entries(CONFIG_KEYS))
    assert.ok(Array.isArray(keys?.read) && Array.isArray(keys.harmless) && keys.refused, `${type}: its entry's keys`);
  for (const [type, { read, harmless }] of Object.entries(CONFIG_KEYS)) {
    const both = read.filter((key) => harmless.includes(key));
    assert.deepEqual(both, [], `${type}: read and harmless`);
    assert.equal(new Set(read).size, read.length, `${type}: a key read twice`);
  }
});

test('a key that changes the result and is not run is refused by name', () => {
  const cases = [
    ['tiny-bert', 'is_decoder', true, false],
    ['tiny-bert', 'add_cross_attention', true, false],
    ['tiny-roberta', 'is_decoder', true, false],
    ['tiny-bert', 'position_embedding_type', 'relative_key', 'absolute'],
    ['tiny-gpt2', 'scale_attn_by_inverse_layer_idx', true, false],
    ['tiny-gpt2', 'reorder_and_upcast_attn', true, false],
    ['tiny-gpt2', 'scale_attn_weights', false, true],
    ['tiny-llama', 'pretraining_tp', 2, 1],
    ['tiny-qwen2', 'pretraining_tp', 4, 1],
    ['tiny-olmo2', 'clip_qkv', 8, null],
    ['tiny-olmo2', 'sliding_window', 4, null],
  ];
  for (const [fixture, key, bad, good] of cases) {
    const config = configOf(fixture);
    assert.throws(
      () => load({ ...config, [key]: bad }),
      (e) => e instanceof RangeError && e.message.startsWith(`loadModel: config.json: ${key} ${JSON.stringify(bad)}`),
      `${fixture} ${key}: ${JSON.stringify(bad)}`,
    );
    assert.equal(load({ ...config, [key]: good }).modelType, config.model_type, `${fixture} ${key}: ${good}`);
  }
});

test('a refused key inside a gemma3 text_config is refused too', () => {
  const text = configOf('tiny-gemma3');
  const wrapped = { model_type: 'gemma3', architectures: ['Gemma3ForConditionalGeneration'], text_config: text };
  assert.equal(load(wrapped).modelType, 'gemma3');
  assert.throws(
    () => load({ ...wrapped, text_config: { ...text, pretraining_tp: 2 } }),
    /^RangeError: loadModel: config.json: pretraining_tp 2 other than 1 is not supported/,
  );
});
