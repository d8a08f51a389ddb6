// What each family does with each config.json key it may meet: read (the entry in
// architectures.js turns it into the descriptor or the names), harmless (it changes nothing
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
const isTrue = (value) => value === true;

const ENCODER = {
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
const decoderKeys = ({ read = [], harmless = [], refused = {} }) => ({
  read: [...DECODER_READ.filter((key) => !harmless.includes(key)), ...read],
  harmless: ['attention_dropout', ...harmless],
  refused: { ...DECODER_REFUSED, ...refused },
});
const GEMMA_READ = [
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
const GEMMA_HARMLESS = ['hidden_act', 'cache_implementation'];

/** model_type → { read, harmless, refused: { key: [refuses(value), why] } }. */
export const CONFIG_KEYS = {
  bert: ENCODER,
  roberta: ENCODER,
  distilbert: {
    read: [
      'vocab_size',
      'dim',
      'n_layers',
      'n_heads',
      'hidden_dim',
      'activation',
      'max_position_embeddings',
      'id2label',
    ],
    // sinusoidal_pos_embds only initialises the position embeddings, which the checkpoint holds.
    harmless: ['sinusoidal_pos_embds', 'dropout', 'qa_dropout', 'seq_classif_dropout', 'tie_weights_'],
    refused: {},
  },
  gpt2: {
    read: [
      'vocab_size',
      'n_positions',
      'n_embd',
      'n_layer',
      'n_head',
      'n_inner',
      'activation_function',
      'layer_norm_epsilon',
      'tie_word_embeddings',
      'scale_attn_weights',
      'id2label',
    ],
    harmless: [
      'n_ctx',
      'resid_pdrop',
      'embd_pdrop',
      'attn_pdrop',
      'summary_type',
      'summary_use_proj',
      'summary_activation',
      'summary_proj_to_labels',
      'summary_first_dropout',
    ],
    refused: {
      scale_attn_by_inverse_layer_idx: [isTrue, 'divides layer l’s scores by l + 1, which is not supported'],
      reorder_and_upcast_attn: [isTrue, 'is not supported'],
      add_cross_attention: [isTrue, 'adds cross-attention layers, which are not supported'],
      scale_attn_weights: [(value) => value === false, 'false (unscaled scores) is not supported'],
    },
  },
  llama: decoderKeys({ read: ['attention_bias', 'mlp_bias'] }),
  mistral: decoderKeys({ read: ['sliding_window'] }),
  granite: decoderKeys({
    read: [
      'attention_bias',
      'mlp_bias',
      'embedding_multiplier',
      'attention_multiplier',
      'residual_multiplier',
      'logits_scaling',
    ],
  }),
  olmo2: decoderKeys({
    read: ['attention_bias'],
    refused: {
      // OLMo (1)'s clamp of q, k and v to ±clip_qkv; an OLMo 2 config that sets it asks for it too.
      clip_qkv: [(value) => value != null, 'clamps the queries, keys and values, which is not supported'],
      // Olmo 3's (and its GGUF's, written as olmo2): windows on three layers of four.
      sliding_window: [(value) => value != null, 'is not supported for olmo2 (Olmo 3 sliding-window layers)'],
    },
  }),
  modernbert: {
    read: [
      'vocab_size',
      'hidden_size',
      'num_hidden_layers',
      'num_attention_heads',
      'intermediate_size',
      'hidden_activation',
      'max_position_embeddings',
      'norm_eps',
      'norm_bias',
      'global_rope_theta',
      'local_rope_theta',
      'global_attn_every_n_layers',
      'local_attention',
      'attention_bias',
      'mlp_bias',
      'classifier_bias',
      'classifier_activation',
      'decoder_bias',
      'tie_word_embeddings',
      'rope_parameters',
      'layer_types',
    ],
    // Dropouts, initialisation, the unpadding and kernel choices, and the pooling of a classifier
    // (not read: classifiers are refused) change nothing here.
    harmless: [
      'embedding_dropout',
      'attention_dropout',
      'mlp_dropout',
      'classifier_dropout',
      'initializer_cutoff_factor',
      'cls_token_id',
      'sep_token_id',
      'deterministic_flash_attn',
      'reference_compile',
      'repad_logits_with_grad',
      'sparse_prediction',
      'sparse_pred_ignore_index',
      'classifier_pooling',
      'position_embedding_type',
      'layer_norm_eps',
    ],
    refused: {},
  },
  smollm3: decoderKeys({
    read: [
      'attention_bias',
      'mlp_bias',
      'no_rope_layers',
      'no_rope_layer_interval',
      'use_sliding_window',
      'sliding_window',
      'layer_types',
    ],
  }),
  qwen2: decoderKeys({ read: ['use_sliding_window', 'sliding_window', 'max_window_layers', 'layer_types'] }),
  qwen3: decoderKeys({
    read: ['attention_bias', 'use_sliding_window', 'sliding_window', 'max_window_layers', 'layer_types'],
  }),
  gemma2: decoderKeys({ read: GEMMA_READ, harmless: GEMMA_HARMLESS }),
  gemma3_text: decoderKeys({
    read: [...GEMMA_READ, 'rope_local_base_freq', 'sliding_window_pattern', 'use_bidirectional_attention'],
    harmless: GEMMA_HARMLESS,
  }),
  // The multimodal wrapper: its text model's keys are checked as gemma3_text's.
  gemma3: {
    read: ['text_config', 'tie_word_embeddings'],
    harmless: [
      'vision_config',
      'mm_tokens_per_image',
      'boi_token_index',
      'eoi_token_index',
      'image_token_index',
      'initializer_range',
    ],
    refused: {},
  },
  // modeling_phi3.py builds qkv_proj and o_proj without biases whatever attention_bias says.
  phi3: decoderKeys({
    read: ['sliding_window', 'original_max_position_embeddings'],
    harmless: ['attention_bias', 'resid_pdrop', 'embd_pdrop'],
  }),
};

/**
 * Refuses, by name, a key of `config` that the family's list marks as changing the result in a
 * way the runner does not implement.
 * @param {string} fn the public function @param {string} modelType a key of CONFIG_KEYS
 * @param {object} config config.json (or a text_config)
 * @returns {string[]} the keys in none of the lists (ignored)
 */
export function checkConfigKeys(fn, modelType, config) {
  const keys = CONFIG_KEYS[modelType];
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
