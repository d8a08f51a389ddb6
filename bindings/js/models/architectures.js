// config.json → the runner's descriptor, and each architecture's weight names: BERT (and
// RoBERTa), DistilBERT, GPT-2 and Llama are descriptors and name maps over one runner
// (src/model/). Names and semantics follow the Hugging Face modeling code
// (modeling_bert.py, modeling_roberta.py, modeling_distilbert.py, modeling_gpt2.py, modeling_llama.py).
import { rangeError } from '../errors.js';
import { ACTIVATIONS } from './descriptor.js';

/** The heads a checkpoint can have, from its class name in config.architectures. */
export const HEADS = ['base', 'masked-lm', 'causal-lm', 'sequence-classification'];

function headOf(config) {
  const cls = Array.isArray(config.architectures) ? String(config.architectures[0] ?? '') : '';
  if (/ForMaskedLM$|ForPreTraining$/.test(cls)) return 'masked-lm';
  if (/LMHeadModel$|ForCausalLM$/.test(cls)) return 'causal-lm';
  if (/ForSequenceClassification$/.test(cls)) return 'sequence-classification';
  return 'base';
}

// A size from config.json: an integer in [min, 2^31) (min 1 unless a zero means something).
function int(fn, config, key, fallback, min = 1) {
  const value = config[key] ?? fallback;
  if (!Number.isSafeInteger(value) || value < min || value > 0x7fffffff) throw rangeError(fn, `config.json: ${key} must be an integer in [${min}, 2^31), got ${JSON.stringify(value)}`);
  return value;
}

// A positive float from config.json that float32 holds as a normal number (the core computes
// in float32: 1e-300 would become 0, 1e39 infinity): in [2^-126, 3.4e38].
function positiveFloat(fn, config, key, fallback) {
  const value = config[key] ?? fallback;
  if (typeof value !== 'number' || !(value >= 2 ** -126 && value <= 3.4e38)) {
    throw rangeError(fn, `config.json: ${key} must be a positive number float32 holds (in [1.2e-38, 3.4e38]), got ${JSON.stringify(value)}`);
  }
  return value;
}

function activation(fn, config, key, fallback) {
  const name = config[key] ?? fallback;
  if (!Object.hasOwn(ACTIVATIONS, name)) {
    throw rangeError(fn, `config.json: ${key} '${name}' is not supported (supported: ${Object.keys(ACTIVATIONS).join(', ')})`);
  }
  return name;
}

// Tensor sources. linear: nn.Linear's [out, in] (read transposed); conv1d: GPT-2's Conv1D
// [in, out]; part: [index, parts] of a fused matrix's columns (or a bias's entries).
const linear = (name) => ({ name, layout: 'linear' });
const conv1d = (name, part) => ({ name, layout: 'conv1d', part });
const plain = (name, alternatives = [], part) => ({ name, layout: 'plain', alternatives, part });
const normOf = (base, which) => plain(`${base}.${which}`, [`${base}.${which === 'weight' ? 'gamma' : 'beta'}`]);

/** The labels of a classifier: id2label as an array, or null. */
function labelsOf(config) {
  const map = config.id2label;
  if (!map || typeof map !== 'object') return null;
  const n = Object.keys(map).length;
  return Array.from({ length: n }, (_, i) => String(map[i] ?? map[String(i)] ?? `LABEL_${i}`));
}

const ARCHITECTURES = {
  bert(fn, c, head, KIND) {
    if ((c.position_embedding_type ?? 'absolute') !== 'absolute') {
      throw rangeError(fn, `config.json: position_embedding_type '${c.position_embedding_type}' is not supported (only 'absolute')`);
    }
    const d = int(fn, c, 'hidden_size');
    const descriptor = {
      vocabSize: int(fn, c, 'vocab_size'), maxPositions: int(fn, c, 'max_position_embeddings'), typeVocabSize: int(fn, c, 'type_vocab_size', 2),
      dModel: d, numHeads: int(fn, c, 'num_attention_heads'), numKvHeads: int(fn, c, 'num_attention_heads'),
      numLayers: int(fn, c, 'num_hidden_layers'), dFF: int(fn, c, 'intermediate_size'), activation: activation(fn, c, 'hidden_act', 'gelu'),
      contextLength: int(fn, c, 'max_position_embeddings'), normEps: positiveFloat(fn, c, 'layer_norm_eps', 1e-12), preNorm: false, embeddingNorm: true, finalNorm: false, causal: false,
      attentionBias: true, mlpBias: true, lmHead: head === 'masked-lm', lmTransform: true, lmBias: true,
      lmActivation: activation(fn, c, 'hidden_act', 'gelu'),
    };
    const layer = (l, rest) => `encoder.layer.${l}.${rest}`;
    const names = {
      prefixes: ['bert.', ''],
      [KIND.wordEmbeddings]: () => plain('embeddings.word_embeddings.weight'),
      [KIND.positionEmbeddings]: () => plain('embeddings.position_embeddings.weight'),
      [KIND.tokenTypeEmbeddings]: () => plain('embeddings.token_type_embeddings.weight'),
      [KIND.embeddingNormWeight]: () => normOf('embeddings.LayerNorm', 'weight'),
      [KIND.embeddingNormBias]: () => normOf('embeddings.LayerNorm', 'bias'),
      [KIND.query]: (l) => linear(layer(l, 'attention.self.query.weight')),
      [KIND.queryBias]: (l) => plain(layer(l, 'attention.self.query.bias')),
      [KIND.key]: (l) => linear(layer(l, 'attention.self.key.weight')),
      [KIND.keyBias]: (l) => plain(layer(l, 'attention.self.key.bias')),
      [KIND.value]: (l) => linear(layer(l, 'attention.self.value.weight')),
      [KIND.valueBias]: (l) => plain(layer(l, 'attention.self.value.bias')),
      [KIND.attentionOut]: (l) => linear(layer(l, 'attention.output.dense.weight')),
      [KIND.attentionOutBias]: (l) => plain(layer(l, 'attention.output.dense.bias')),
      [KIND.norm1Weight]: (l) => normOf(layer(l, 'attention.output.LayerNorm'), 'weight'),
      [KIND.norm1Bias]: (l) => normOf(layer(l, 'attention.output.LayerNorm'), 'bias'),
      [KIND.up]: (l) => linear(layer(l, 'intermediate.dense.weight')),
      [KIND.upBias]: (l) => plain(layer(l, 'intermediate.dense.bias')),
      [KIND.down]: (l) => linear(layer(l, 'output.dense.weight')),
      [KIND.downBias]: (l) => plain(layer(l, 'output.dense.bias')),
      [KIND.norm2Weight]: (l) => normOf(layer(l, 'output.LayerNorm'), 'weight'),
      [KIND.norm2Bias]: (l) => normOf(layer(l, 'output.LayerNorm'), 'bias'),
      // The MLM head is not under the model's prefix; its decoder is tied to the embeddings.
      [KIND.lmTransform]: () => ({ ...linear('cls.predictions.transform.dense.weight'), unprefixed: true }),
      [KIND.lmTransformBias]: () => ({ ...plain('cls.predictions.transform.dense.bias'), unprefixed: true }),
      [KIND.lmNormWeight]: () => ({ ...normOf('cls.predictions.transform.LayerNorm', 'weight'), unprefixed: true }),
      [KIND.lmNormBias]: () => ({ ...normOf('cls.predictions.transform.LayerNorm', 'bias'), unprefixed: true }),
      [KIND.lmDecoder]: () => ({ ...linear('embeddings.word_embeddings.weight'), tied: 'cls.predictions.decoder.weight' }),
      [KIND.lmBias]: () => ({ ...plain('cls.predictions.bias', ['cls.predictions.decoder.bias']), unprefixed: true }),
    };
    const classifier = { pool: 'first', layers: [{ name: 'pooler.dense', activation: 'tanh' }, { name: 'classifier', unprefixed: true }] };
    return { descriptor, names, classifier };
  },

  distilbert(fn, c, head, KIND) {
    const d = int(fn, c, 'dim');
    const descriptor = {
      vocabSize: int(fn, c, 'vocab_size'), maxPositions: int(fn, c, 'max_position_embeddings'), typeVocabSize: 0,
      dModel: d, numHeads: int(fn, c, 'n_heads'), numKvHeads: int(fn, c, 'n_heads'), numLayers: int(fn, c, 'n_layers'),
      dFF: int(fn, c, 'hidden_dim'), activation: activation(fn, c, 'activation', 'gelu'), normEps: 1e-12, contextLength: int(fn, c, 'max_position_embeddings'),
      preNorm: false, embeddingNorm: true, finalNorm: false, causal: false, attentionBias: true, mlpBias: true,
      lmHead: head === 'masked-lm', lmTransform: true, lmBias: true, lmActivation: activation(fn, c, 'activation', 'gelu'),
    };
    const layer = (l, rest) => `transformer.layer.${l}.${rest}`;
    const lin = (l, n) => ({ w: () => linear(layer(l, `${n}.weight`)), b: () => plain(layer(l, `${n}.bias`)) });
    const names = {
      prefixes: ['distilbert.', ''],
      [KIND.wordEmbeddings]: () => plain('embeddings.word_embeddings.weight'),
      [KIND.positionEmbeddings]: () => plain('embeddings.position_embeddings.weight'),
      [KIND.embeddingNormWeight]: () => plain('embeddings.LayerNorm.weight'),
      [KIND.embeddingNormBias]: () => plain('embeddings.LayerNorm.bias'),
      [KIND.query]: (l) => lin(l, 'attention.q_lin').w(),
      [KIND.queryBias]: (l) => lin(l, 'attention.q_lin').b(),
      [KIND.key]: (l) => lin(l, 'attention.k_lin').w(),
      [KIND.keyBias]: (l) => lin(l, 'attention.k_lin').b(),
      [KIND.value]: (l) => lin(l, 'attention.v_lin').w(),
      [KIND.valueBias]: (l) => lin(l, 'attention.v_lin').b(),
      [KIND.attentionOut]: (l) => lin(l, 'attention.out_lin').w(),
      [KIND.attentionOutBias]: (l) => lin(l, 'attention.out_lin').b(),
      [KIND.norm1Weight]: (l) => plain(layer(l, 'sa_layer_norm.weight')),
      [KIND.norm1Bias]: (l) => plain(layer(l, 'sa_layer_norm.bias')),
      [KIND.up]: (l) => lin(l, 'ffn.lin1').w(),
      [KIND.upBias]: (l) => lin(l, 'ffn.lin1').b(),
      [KIND.down]: (l) => lin(l, 'ffn.lin2').w(),
      [KIND.downBias]: (l) => lin(l, 'ffn.lin2').b(),
      [KIND.norm2Weight]: (l) => plain(layer(l, 'output_layer_norm.weight')),
      [KIND.norm2Bias]: (l) => plain(layer(l, 'output_layer_norm.bias')),
      [KIND.lmTransform]: () => ({ ...linear('vocab_transform.weight'), unprefixed: true }),
      [KIND.lmTransformBias]: () => ({ ...plain('vocab_transform.bias'), unprefixed: true }),
      [KIND.lmNormWeight]: () => ({ ...plain('vocab_layer_norm.weight'), unprefixed: true }),
      [KIND.lmNormBias]: () => ({ ...plain('vocab_layer_norm.bias'), unprefixed: true }),
      [KIND.lmDecoder]: () => ({ ...linear('embeddings.word_embeddings.weight'), tied: 'vocab_projector.weight' }),
      [KIND.lmBias]: () => ({ ...plain('vocab_projector.bias'), unprefixed: true }),
    };
    const classifier = { pool: 'first', layers: [{ name: 'pre_classifier', activation: 'relu', unprefixed: true }, { name: 'classifier', unprefixed: true }] };
    return { descriptor, names, classifier };
  },

  gpt2(fn, c, head, KIND) {
    for (const flag of ['scale_attn_by_inverse_layer_idx', 'reorder_and_upcast_attn', 'add_cross_attention']) {
      if (c[flag]) throw rangeError(fn, `config.json: ${flag} is not supported`);
    }
    if (c.scale_attn_weights === false) throw rangeError(fn, 'config.json: scale_attn_weights false is not supported');
    const d = int(fn, c, 'n_embd');
    const descriptor = {
      vocabSize: int(fn, c, 'vocab_size'), maxPositions: int(fn, c, 'n_positions'), typeVocabSize: 0, dModel: d,
      numHeads: int(fn, c, 'n_head'), numKvHeads: int(fn, c, 'n_head'), numLayers: int(fn, c, 'n_layer'),
      dFF: int(fn, c, 'n_inner', 4 * d), activation: activation(fn, c, 'activation_function', 'gelu_new'),
      normEps: positiveFloat(fn, c, 'layer_norm_epsilon', 1e-5), contextLength: int(fn, c, 'n_positions'), preNorm: true, embeddingNorm: false, finalNorm: true, causal: true,
      attentionBias: true, mlpBias: true, lmHead: head === 'causal-lm', lmTransform: false, lmBias: false, lmActivation: 'gelu',
    };
    const h = (l, rest) => `h.${l}.${rest}`;
    const names = {
      prefixes: ['transformer.', ''],
      [KIND.wordEmbeddings]: () => plain('wte.weight'),
      [KIND.positionEmbeddings]: () => plain('wpe.weight'),
      [KIND.query]: (l) => conv1d(h(l, 'attn.c_attn.weight'), [0, 3]),
      [KIND.queryBias]: (l) => plain(h(l, 'attn.c_attn.bias'), [], [0, 3]),
      [KIND.key]: (l) => conv1d(h(l, 'attn.c_attn.weight'), [1, 3]),
      [KIND.keyBias]: (l) => plain(h(l, 'attn.c_attn.bias'), [], [1, 3]),
      [KIND.value]: (l) => conv1d(h(l, 'attn.c_attn.weight'), [2, 3]),
      [KIND.valueBias]: (l) => plain(h(l, 'attn.c_attn.bias'), [], [2, 3]),
      [KIND.attentionOut]: (l) => conv1d(h(l, 'attn.c_proj.weight')),
      [KIND.attentionOutBias]: (l) => plain(h(l, 'attn.c_proj.bias')),
      [KIND.norm1Weight]: (l) => plain(h(l, 'ln_1.weight')),
      [KIND.norm1Bias]: (l) => plain(h(l, 'ln_1.bias')),
      [KIND.up]: (l) => conv1d(h(l, 'mlp.c_fc.weight')),
      [KIND.upBias]: (l) => plain(h(l, 'mlp.c_fc.bias')),
      [KIND.down]: (l) => conv1d(h(l, 'mlp.c_proj.weight')),
      [KIND.downBias]: (l) => plain(h(l, 'mlp.c_proj.bias')),
      [KIND.norm2Weight]: (l) => plain(h(l, 'ln_2.weight')),
      [KIND.norm2Bias]: (l) => plain(h(l, 'ln_2.bias')),
      [KIND.finalNormWeight]: () => plain('ln_f.weight'),
      [KIND.finalNormBias]: () => plain('ln_f.bias'),
      // lm_head.weight when the checkpoint has its own, else the tied embeddings.
      [KIND.lmDecoder]: () => ({ ...linear('wte.weight'), tied: 'lm_head.weight' }),
    };
    const classifier = { pool: 'last', layers: [{ name: 'score', unprefixed: true, noBias: true }] };
    return { descriptor, names, classifier };
  },
};

// RoBERTa: BERT's encoder with positions counted from padding_idx + 1 (pad tokens sit at
// padding_idx), one token type, and its own head names (modeling_roberta.py).
ARCHITECTURES.roberta = function roberta(fn, c, head, KIND) {
  const base = ARCHITECTURES.bert(fn, { type_vocab_size: 1, ...c }, head, KIND);
  const pad = c.pad_token_id ?? 1;
  if (!Number.isInteger(pad) || pad < 0) throw rangeError(fn, `config.json: pad_token_id must be a non-negative integer, got ${JSON.stringify(c.pad_token_id)}`);
  const descriptor = { ...base.descriptor, positionOffset: pad + 1, contextLength: Math.max(0, base.descriptor.maxPositions - pad - 1) };
  const names = {
    ...base.names,
    prefixes: ['roberta.', ''],
    [KIND.lmTransform]: () => ({ ...linear('lm_head.dense.weight'), unprefixed: true }),
    [KIND.lmTransformBias]: () => ({ ...plain('lm_head.dense.bias'), unprefixed: true }),
    [KIND.lmNormWeight]: () => ({ ...plain('lm_head.layer_norm.weight'), unprefixed: true }),
    [KIND.lmNormBias]: () => ({ ...plain('lm_head.layer_norm.bias'), unprefixed: true }),
    [KIND.lmDecoder]: () => ({ ...linear('embeddings.word_embeddings.weight'), tied: 'lm_head.decoder.weight' }),
    [KIND.lmBias]: () => ({ ...plain('lm_head.bias', ['lm_head.decoder.bias']), unprefixed: true }),
  };
  const classifier = { pool: 'first', layers: [{ name: 'classifier.dense', activation: 'tanh', unprefixed: true }, { name: 'classifier.out_proj', unprefixed: true }] };
  return { descriptor, names, classifier };
};

// rope_scaling (modeling_rope_utils.py): null or 'default' (none), 'linear' (frequencies ÷
// factor) or 'llama3' (Llama 3.1+: factor, low_freq_factor, high_freq_factor,
// original_max_position_embeddings). Its numbers travel to the core as float32 (exact for the
// values configs use: 8, 1, 4, 32, 0.5, ...). Others (dynamic, yarn, longrope) are refused.
function ropeScalingOf(fn, rs) {
  if (rs == null) return null;
  const bad = (what) => rangeError(fn, `config.json: rope_scaling ${JSON.stringify(rs)}: ${what}`);
  if (typeof rs !== 'object' || Array.isArray(rs)) throw bad('must be an object or null');
  const type = rs.rope_type ?? rs.type;
  if (type === 'default') return null;
  const positive = (key, fallback) => {
    const x = rs[key] ?? fallback;
    if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x) || x > 3.4e38) throw bad(`${key} must be a positive number, got ${JSON.stringify(rs[key])}`);
    return x;
  };
  if (type === 'linear') return { type, factor: positive('factor') };
  if (type === 'llama3') {
    const s = { type, factor: positive('factor'), lowFreqFactor: positive('low_freq_factor'), highFreqFactor: positive('high_freq_factor'), originalMax: positive('original_max_position_embeddings') };
    if (!Number.isInteger(s.originalMax) || s.originalMax > 2 ** 31 - 1) throw bad('original_max_position_embeddings must be an integer');
    if (!(s.highFreqFactor > s.lowFreqFactor)) throw bad('high_freq_factor must exceed low_freq_factor');
    return s;
  }
  throw bad(`type ${JSON.stringify(type)} is not supported (supported: default, linear, llama3)`);
}

ARCHITECTURES.llama = function llama(fn, c, head, KIND) {
  const d = int(fn, c, 'hidden_size');
  const heads = int(fn, c, 'num_attention_heads');
  if (c.head_dim != null && c.head_dim * heads !== d) throw rangeError(fn, `config.json: head_dim ${c.head_dim} × ${heads} heads ≠ hidden_size ${d} is not supported`);
  if (c.pretraining_tp != null && c.pretraining_tp !== 1) throw rangeError(fn, 'config.json: pretraining_tp other than 1 is not supported');
  const ffnAct = activation(fn, c, 'hidden_act', 'silu');
  const descriptor = {
    vocabSize: int(fn, c, 'vocab_size'), maxPositions: 0, typeVocabSize: 0, dModel: d, numHeads: heads,
    numKvHeads: int(fn, c, 'num_key_value_heads', heads), numLayers: int(fn, c, 'num_hidden_layers'), dFF: int(fn, c, 'intermediate_size'),
    activation: ffnAct, gatedFfn: true, norm: 'rms', normEps: positiveFloat(fn, c, 'rms_norm_eps', 1e-6), contextLength: int(fn, c, 'max_position_embeddings', 2048),
    rotaryDim: d / heads, rotaryBase: positiveFloat(fn, c, 'rope_theta', 10000), rotaryInterleaved: false, ropeScaling: ropeScalingOf(fn, c.rope_scaling),
    preNorm: true, embeddingNorm: false, finalNorm: true, causal: true, attentionBias: c.attention_bias === true, mlpBias: c.mlp_bias === true,
    lmHead: head === 'causal-lm', lmTransform: false, lmBias: false, lmActivation: 'gelu',
  };
  if (descriptor.numKvHeads === 0 || heads % descriptor.numKvHeads !== 0) {
    throw rangeError(fn, `config.json: num_attention_heads ${heads} must be a multiple of num_key_value_heads ${descriptor.numKvHeads}`);
  }
  const layer = (l, rest) => `layers.${l}.${rest}`;
  const proj = (l, part, n) => ({ w: () => linear(layer(l, `${part}.${n}.weight`)), b: () => plain(layer(l, `${part}.${n}.bias`)) });
  const names = {
    prefixes: ['model.', ''],
    [KIND.wordEmbeddings]: () => plain('embed_tokens.weight'),
    [KIND.query]: (l) => proj(l, 'self_attn', 'q_proj').w(),
    [KIND.queryBias]: (l) => proj(l, 'self_attn', 'q_proj').b(),
    [KIND.key]: (l) => proj(l, 'self_attn', 'k_proj').w(),
    [KIND.keyBias]: (l) => proj(l, 'self_attn', 'k_proj').b(),
    [KIND.value]: (l) => proj(l, 'self_attn', 'v_proj').w(),
    [KIND.valueBias]: (l) => proj(l, 'self_attn', 'v_proj').b(),
    [KIND.attentionOut]: (l) => proj(l, 'self_attn', 'o_proj').w(),
    [KIND.attentionOutBias]: (l) => proj(l, 'self_attn', 'o_proj').b(),
    [KIND.norm1Weight]: (l) => plain(layer(l, 'input_layernorm.weight')),
    [KIND.gate]: (l) => proj(l, 'mlp', 'gate_proj').w(),
    [KIND.up]: (l) => proj(l, 'mlp', 'up_proj').w(),
    [KIND.upBias]: (l) => proj(l, 'mlp', 'up_proj').b(),
    [KIND.down]: (l) => proj(l, 'mlp', 'down_proj').w(),
    [KIND.downBias]: (l) => proj(l, 'mlp', 'down_proj').b(),
    [KIND.norm2Weight]: (l) => plain(layer(l, 'post_attention_layernorm.weight')),
    [KIND.finalNormWeight]: () => plain('norm.weight'),
    // lm_head.weight, or the embeddings when tie_word_embeddings (SmolLM) leaves it out.
    [KIND.lmDecoder]: () => ({ ...linear('embed_tokens.weight'), tied: 'lm_head.weight' }),
  };
  const classifier = { pool: 'last', layers: [{ name: 'score', unprefixed: true, noBias: true }] };
  return { descriptor, names, classifier };
};

// Mistral (modeling_mistral.py): Llama's layers with a sliding window, query i attending to
// keys j with i - sliding_window < j <= i (masking_utils' sliding_window_overlay); null: none.
ARCHITECTURES.mistral = function mistral(fn, c, head, KIND) {
  const base = ARCHITECTURES.llama(fn, { ...c, attention_bias: false, mlp_bias: false }, head, KIND);
  const w = c.sliding_window;
  if (w != null && (!Number.isInteger(w) || w < 1 || w > 2 ** 31 - 1)) {
    throw rangeError(fn, `config.json: sliding_window must be a positive integer or null, got ${JSON.stringify(w)}`);
  }
  return { ...base, descriptor: { ...base.descriptor, slidingWindow: w ?? 0 } };
};

/** The model types this version loads. */
export const MODEL_TYPES = Object.freeze(Object.keys(ARCHITECTURES));

/**
 * Reads a config.json object.
 * KIND: the module's weight kinds (contract.js weightKinds, from src/model/weights.h), which key
 * the architecture's name map.
 * @returns {{ modelType: string, head: string, descriptor: object, names: object, classifier: object, labels: string[] | null }}
 */
export function architectureOf(fn, config, headOption, KIND) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw rangeError(fn, 'config.json must hold a JSON object');
  const modelType = config.model_type;
  if (!Object.hasOwn(ARCHITECTURES, modelType)) {
    throw rangeError(fn, `config.json: model_type ${JSON.stringify(modelType)} is not supported (supported: ${MODEL_TYPES.join(', ')})`);
  }
  const head = headOption ?? headOf(config);
  if (!HEADS.includes(head)) throw rangeError(fn, `options.head must be one of ${HEADS.join(', ')}, got ${JSON.stringify(head)}`);
  const decoder = modelType === 'gpt2' || modelType === 'llama' || modelType === 'mistral';
  if (head === 'causal-lm' && !decoder) throw rangeError(fn, `a ${modelType} checkpoint has no causal-LM head`);
  if (head === 'masked-lm' && decoder) throw rangeError(fn, `a ${modelType} checkpoint has no masked-LM head`);
  const { descriptor, names, classifier } = ARCHITECTURES[modelType](fn, config, head, KIND);
  if (descriptor.contextLength < 1) throw rangeError(fn, `config.json: max_position_embeddings ${config.max_position_embeddings} leaves no position for a token (pad_token_id ${config.pad_token_id} takes the first ${config.pad_token_id + 1})`);
  if (!(descriptor.normEps > 0)) throw rangeError(fn, `config.json: the layer norm eps must be positive, got ${descriptor.normEps}`);
  return { modelType, head, descriptor: Object.freeze(descriptor), names, classifier, untied: config.tie_word_embeddings === false, labels: head === 'sequence-classification' ? labelsOf(config) : null };
}
