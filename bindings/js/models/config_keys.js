// What a family does with each config.json key it may meet (each ARCHITECTURES entry's `keys`,
// made with the shared lists here): read (the entry in architectures.js turns it into the
// descriptor or the names), harmless (it changes nothing
// this runner computes: training-only settings, token ids, the dtype the file was saved in,
// PretrainedConfig's own bookkeeping), or refused (it changes the result in a way the runner
// does not implement, for some value: the load fails with a RangeError naming the key, instead
// of an answer that is wrong without a word). A key in none of the lists is unknown: it is
// ignored, and tests/config-keys.test.js checks that no fixture's config carries one.
// Semantics follow the Hugging Face configuration_<family>.py and modeling_<family>.py.
import { rangeError } from '../errors.js';

// PretrainedConfig's own keys and those every family's training sets: they never change a
// forward pass (dropout is off at inference; generation settings are generation_config's).
const COMMON_HARMLESS = [
  '_name_or_path',
  '_attn_implementation_autoset',
  'architectures',
  'model_type',
  'transformers_version',
  'torch_dtype',
  'dtype',
  'use_cache',
  'bos_token_id',
  'eos_token_id',
  'pad_token_id',
  'sep_token_id',
  'label2id',
  'problem_type',
  'finetuning_task',
  'initializer_range',
  'initializer_factor',
  'output_attentions',
  'output_hidden_states',
  'return_dict',
  'torchscript',
  'chunk_size_feed_forward',
  'gradient_checkpointing',
  'tokenizer_class',
  'task_specific_params',
  'auto_map',
  'attention_dropout',
  'classifier_dropout',
  'max_length',
];

// true when a flag is set; the refusals below name what the value asks for.
export const isTrue = (value) => value === true;

export const ENCODER = {
  read: [
    'vocab_size',
    'hidden_size',
    'num_hidden_layers',
    'num_attention_heads',
    'intermediate_size',
    'hidden_act',
    'max_position_embeddings',
    'type_vocab_size',
    'layer_norm_eps',
    'position_embedding_type',
    'id2label',
  ],
  harmless: ['hidden_dropout_prob', 'attention_probs_dropout_prob'],
  refused: {
    // BertModel as a decoder: causal self-attention (and cross-attention over an encoder's output).
    is_decoder: [isTrue, 'makes the encoder a decoder (causal attention), which is not supported'],
    add_cross_attention: [isTrue, 'adds cross-attention layers, which are not supported'],
    position_embedding_type: [
      (value) => (value ?? 'absolute') !== 'absolute',
      "is not supported (only 'absolute' positions)",
    ],
  },
};

// The keys modeling_llama.py and its descendants share (decoder() in architectures.js).
const DECODER_READ = [
  'vocab_size',
  'hidden_size',
  'num_hidden_layers',
  'num_attention_heads',
  'num_key_value_heads',
  'head_dim',
  'intermediate_size',
  'hidden_act',
  'rms_norm_eps',
  'max_position_embeddings',
  'rope_theta',
  'rope_scaling',
  'rope_parameters',
  'partial_rotary_factor',
  'tie_word_embeddings',
  'id2label',
  'pretraining_tp',
];
const DECODER_REFUSED = {
  // modeling_llama.py slices the projections into pretraining_tp parts, with the same sums in
  // another order; 4.x ran it only when training, but old checkpoints relied on it.
  pretraining_tp: [(value) => value != null && value !== 1, 'other than 1 is not supported'],
};
// (A family that ignores a shared key, Gemma's hidden_act, lists it as harmless.)
export const decoderKeys = ({ read = [], harmless = [], refused = {} }) => ({
  read: [...DECODER_READ.filter((key) => !harmless.includes(key)), ...read],
  harmless: ['attention_dropout', ...harmless],
  refused: { ...DECODER_REFUSED, ...refused },
});
export const GEMMA_READ = [
  'hidden_activation',
  'query_pre_attn_scalar',
  'attn_logit_softcapping',
  'final_logit_softcapping',
  'sliding_window',
  'layer_types',
  'attention_bias',
];
// Gemma's configs carry hidden_act beside hidden_activation; modeling_gemma*.py reads only the
// latter. cache_implementation picks generate's cache class, not its contents.
export const GEMMA_HARMLESS = ['hidden_act', 'cache_implementation'];

/**
 * Refuses, by name, a key of `config` that the family's list marks as changing the result in a
 * way the runner does not implement.
 * @param {string} fn the public function
 * @param {{ read: string[], harmless: string[], refused: object }} keys the family's (its
 *   ARCHITECTURES entry's `keys`)
 * @param {object} config config.json (or a text_config)
 * @returns {string[]} the keys in none of the lists (ignored)
 */
export function checkConfigKeys(fn, keys, config) {
  const unknown = [];
  for (const [key, value] of Object.entries(config)) {
    const refusal = Object.hasOwn(keys.refused, key) ? keys.refused[key] : null;
    if (refusal !== null && refusal[0](value))
      throw rangeError(fn, `config.json: ${key} ${JSON.stringify(value)?.slice(0, 100)} ${refusal[1]}`);
    if (refusal === null && !keys.read.includes(key) && !keys.harmless.includes(key) && !COMMON_HARMLESS.includes(key))
      unknown.push(key);
  }
  return unknown;
}
