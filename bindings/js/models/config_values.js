// config.json values whose wrong type would change what loads without a word: a class name
// given as a string (the head was then 'base': no logits, lm_head ignored), a flag given as
// the string "false" (truthy), an activation given as a list, an end-of-sequence id that no
// token has. Each is refused by name here, before the family's entry reads the config.
import { rangeError, show, describe } from '../errors.js';

// The class names a head is read from (architectures.js headOf), and a bare encoder/decoder.
const CLASS_SUFFIXES =
  /(Model|ForMaskedLM|ForPreTraining|LMHeadModel|ForCausalLM|ForConditionalGeneration|ForSequenceClassification)$/;
const CLASS_NAME = /^[A-Z][A-Za-z0-9_]*$/;
// Flags the entries read with `=== true` / `=== false` or as truthy.
const FLAGS = ['tie_word_embeddings', 'attention_bias', 'mlp_bias', 'use_sliding_window', 'scale_attn_weights'];
const ACTIVATION_KEYS = ['hidden_act', 'hidden_activation', 'activation_function', 'activation'];
const TOKEN_KEYS = ['bos_token_id', 'eos_token_id', 'pad_token_id'];

function checkArchitectures(fn, value) {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value) || value.length === 0)
    throw rangeError(
      fn,
      `config.json: architectures must be a list of class names (["LlamaForCausalLM"]), got ${show(value)}`,
    );
  value.forEach((name, i) => {
    if (typeof name !== 'string' || !CLASS_NAME.test(name) || !CLASS_SUFFIXES.test(name))
      throw rangeError(
        fn,
        `config.json: architectures[${i}] is ${show(name)}, not a class this loader knows (…Model, …ForCausalLM, …LMHeadModel, …ForMaskedLM, …ForPreTraining, …ForConditionalGeneration, …ForSequenceClassification)`,
      );
  });
}

// A token id: an integer >= 0 below the vocabulary (or null); eos_token_id may be a list.
function checkTokenId(fn, key, value, vocabSize) {
  if (value === undefined || value === null) return;
  const ids = key === 'eos_token_id' && Array.isArray(value) ? value : [value];
  ids.forEach((id, i) => {
    if (!Number.isInteger(id) || id < 0 || (Number.isInteger(vocabSize) && id >= vocabSize))
      throw rangeError(
        fn,
        `config.json: ${key}${ids === value ? `[${i}]` : ''} must be a token id in [0, ${Number.isInteger(vocabSize) ? vocabSize : 'vocab_size'}), got ${show(id)}`,
      );
  });
}

/**
 * Refuses config.json (or a text_config inside it) values of the wrong type or range.
 * @param {string} fn @param {object} config
 */
export function checkConfigValues(fn, config) {
  checkArchitectures(fn, config.architectures);
  for (const c of [config, config.text_config].filter((x) => x !== null && typeof x === 'object')) {
    for (const key of FLAGS)
      if (c[key] !== undefined && c[key] !== null && typeof c[key] !== 'boolean')
        throw rangeError(fn, `config.json: ${key} must be true or false, got ${show(c[key])}`);
    for (const key of ACTIVATION_KEYS)
      if (c[key] !== undefined && c[key] !== null && typeof c[key] !== 'string')
        throw rangeError(fn, `config.json: ${key} must be an activation's name (a string), got ${describe(c[key])}`);
    for (const key of TOKEN_KEYS) checkTokenId(fn, key, c[key], c.vocab_size ?? config.vocab_size);
  }
}
