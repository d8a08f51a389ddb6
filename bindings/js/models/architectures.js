// config.json → the runner's descriptor, and each architecture's weight names: BERT (and
// RoBERTa), DistilBERT, GPT-2, Llama (Mistral, SmolLM), Qwen2/2.5, Qwen3, Gemma 2, Gemma 3 and
// Phi-3/Phi-4-mini are descriptors and name maps over one runner (src/model/): a family is
// an entry of ARCHITECTURES, no C++ (docs/adding-an-architecture.md). An entry is the whole
// family: read(fn, config, head, KIND) → { descriptor, names, classifier } from config.json; its
// config.json keys (keys: read, harmless or refused, made with config_keys.js's shared lists);
// and its GGUF part where llama.cpp writes the family (gguf: general.architecture, the metadata →
// config.json, the names that differ from llama.cpp's shared ones, the converter's changes to
// undo, a list when llama.cpp writes it under two names). The values every family
// reads the same way (class names, token ids, flags) config_values.js checks. Names and
// semantics follow the Hugging Face modeling code (modeling_<family>.py of transformers) and
// llama.cpp's convert_hf_to_gguf.py.
import { rangeError, show } from '../errors.js';
import { ACTIVATIONS } from './descriptor.js';
import { checkConfigKeys, decoderKeys, isTrue, ENCODER, GEMMA_READ, GEMMA_HARMLESS } from './config_keys.js';
import { checkConfigValues } from './config_values.js';
import { linear, linearPart, conv1d, plain, normOf } from './weight_names.js';

/** The heads a checkpoint can have, from its class name in config.architectures. */
export const HEADS = ['base', 'masked-lm', 'causal-lm', 'sequence-classification'];

function headOf(config) {
  const cls = Array.isArray(config.architectures) ? String(config.architectures[0] ?? '') : '';
  if (/ForMaskedLM$|ForPreTraining$/.test(cls)) return 'masked-lm';
  if (/LMHeadModel$|ForCausalLM$|ForConditionalGeneration$/.test(cls)) return 'causal-lm';
  if (/ForSequenceClassification$/.test(cls)) return 'sequence-classification';
  return 'base';
}

// A size from config.json: an integer in [min, 2^31) (min 1 unless a zero means something).
function int(fn, config, key, fallback, min = 1) {
  const value = config[key] ?? fallback;
  if (!Number.isSafeInteger(value) || value < min || value > 0x7fffffff)
    throw rangeError(fn, `config.json: ${key} must be an integer in [${min}, 2^31), got ${show(value)}`);
  return value;
}

// A positive float from config.json that float32 holds as a normal number (the core computes
// in float32: 1e-300 would become 0, 1e39 infinity): in [2^-126, 3.4e38].
function positiveFloat(fn, config, key, fallback) {
  const value = config[key] ?? fallback;
  if (typeof value !== 'number' || !(value >= 2 ** -126 && value <= 3.4e38)) {
    throw rangeError(
      fn,
      `config.json: ${key} must be a positive number float32 holds (in [1.2e-38, 3.4e38]), got ${show(value)}`,
    );
  }
  return value;
}

// Each head's width: config.head_dim (Gemma, Qwen3), or hidden_size / num_attention_heads.
function headDimOf(fn, config, d, heads, fallback) {
  if (config.head_dim != null || fallback !== undefined) return int(fn, config, 'head_dim', fallback);
  if (d % heads !== 0)
    throw rangeError(fn, `config.json: the hidden size must divide into the heads (hidden size ${d}, ${heads} heads)`);
  return d / heads;
}

function activation(fn, config, key, fallback) {
  const name = config[key] ?? fallback;
  if (!Object.hasOwn(ACTIVATIONS, name)) {
    throw rangeError(
      fn,
      `config.json: ${key} '${name}' is not supported (supported: ${Object.keys(ACTIVATIONS).join(', ')})`,
    );
  }
  return name;
}

/** The labels of a classifier: id2label as an array, or null. */
function labelsOf(config) {
  const map = config.id2label;
  if (!map || typeof map !== 'object') return null;
  const n = Object.keys(map).length;
  return Array.from({ length: n }, (_, i) => String(map[i] ?? map[String(i)] ?? `LABEL_${i}`));
}

const ARCHITECTURES = {
  bert: {
    keys: ENCODER,
    read(fn, c, head, KIND) {
      const d = int(fn, c, 'hidden_size');
      const descriptor = {
        vocabSize: int(fn, c, 'vocab_size'),
        maxPositions: int(fn, c, 'max_position_embeddings'),
        typeVocabSize: int(fn, c, 'type_vocab_size', 2),
        dModel: d,
        numHeads: int(fn, c, 'num_attention_heads'),
        numKvHeads: int(fn, c, 'num_attention_heads'),
        headDim: headDimOf(fn, {}, d, int(fn, c, 'num_attention_heads')),
        numLayers: int(fn, c, 'num_hidden_layers'),
        dFF: int(fn, c, 'intermediate_size'),
        activation: activation(fn, c, 'hidden_act', 'gelu'),
        contextLength: int(fn, c, 'max_position_embeddings'),
        normEps: positiveFloat(fn, c, 'layer_norm_eps', 1e-12),
        norm: 'layer',
        preNorm: false,
        embeddingNorm: true,
        finalNorm: false,
        causal: false,
        qkvBias: true,
        outBias: true,
        mlpBias: true,
        lmHead: head === 'masked-lm',
        lmTransform: true,
        lmBias: true,
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
        [KIND.lmDecoder]: () => ({
          ...linear('embeddings.word_embeddings.weight'),
          tied: 'cls.predictions.decoder.weight',
        }),
        [KIND.lmBias]: () => ({ ...plain('cls.predictions.bias', ['cls.predictions.decoder.bias']), unprefixed: true }),
      };
      const classifier = {
        pool: 'first',
        layers: [
          { name: 'pooler.dense', activation: 'tanh' },
          { name: 'classifier', unprefixed: true },
        ],
      };
      return { descriptor, names, classifier };
    },
  },

  distilbert: {
    keys: {
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
    read(fn, c, head, KIND) {
      const d = int(fn, c, 'dim');
      const descriptor = {
        vocabSize: int(fn, c, 'vocab_size'),
        maxPositions: int(fn, c, 'max_position_embeddings'),
        typeVocabSize: 0,
        dModel: d,
        numHeads: int(fn, c, 'n_heads'),
        numKvHeads: int(fn, c, 'n_heads'),
        headDim: headDimOf(fn, {}, d, int(fn, c, 'n_heads')),
        numLayers: int(fn, c, 'n_layers'),
        dFF: int(fn, c, 'hidden_dim'),
        activation: activation(fn, c, 'activation', 'gelu'),
        normEps: 1e-12,
        norm: 'layer',
        contextLength: int(fn, c, 'max_position_embeddings'),
        preNorm: false,
        embeddingNorm: true,
        finalNorm: false,
        causal: false,
        qkvBias: true,
        outBias: true,
        mlpBias: true,
        lmHead: head === 'masked-lm',
        lmTransform: true,
        lmBias: true,
        lmActivation: activation(fn, c, 'activation', 'gelu'),
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
      const classifier = {
        pool: 'first',
        layers: [
          { name: 'pre_classifier', activation: 'relu', unprefixed: true },
          { name: 'classifier', unprefixed: true },
        ],
      };
      return { descriptor, names, classifier };
    },
  },

  gpt2: {
    keys: {
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
    read(fn, c, head, KIND) {
      const d = int(fn, c, 'n_embd');
      const descriptor = {
        vocabSize: int(fn, c, 'vocab_size'),
        maxPositions: int(fn, c, 'n_positions'),
        typeVocabSize: 0,
        dModel: d,
        numHeads: int(fn, c, 'n_head'),
        numKvHeads: int(fn, c, 'n_head'),
        headDim: headDimOf(fn, {}, d, int(fn, c, 'n_head')),
        numLayers: int(fn, c, 'n_layer'),
        dFF: int(fn, c, 'n_inner', 4 * d),
        activation: activation(fn, c, 'activation_function', 'gelu_new'),
        normEps: positiveFloat(fn, c, 'layer_norm_epsilon', 1e-5),
        norm: 'layer',
        contextLength: int(fn, c, 'n_positions'),
        preNorm: true,
        embeddingNorm: false,
        finalNorm: true,
        causal: true,
        qkvBias: true,
        outBias: true,
        mlpBias: true,
        lmHead: head === 'causal-lm',
        lmTransform: false,
        lmBias: false,
        lmActivation: 'gelu',
      };
      const h = (l, rest) => `h.${l}.${rest}`;
      const names = {
        prefixes: ['transformer.', ''],
        [KIND.wordEmbeddings]: () => plain('wte.weight'),
        [KIND.positionEmbeddings]: () => plain('wpe.weight'),
        // c_attn: q, k and v side by side, d columns each.
        [KIND.query]: (l) => conv1d(h(l, 'attn.c_attn.weight'), [0, 3 * d]),
        [KIND.queryBias]: (l) => plain(h(l, 'attn.c_attn.bias'), [], [0, 3 * d]),
        [KIND.key]: (l) => conv1d(h(l, 'attn.c_attn.weight'), [d, 3 * d]),
        [KIND.keyBias]: (l) => plain(h(l, 'attn.c_attn.bias'), [], [d, 3 * d]),
        [KIND.value]: (l) => conv1d(h(l, 'attn.c_attn.weight'), [2 * d, 3 * d]),
        [KIND.valueBias]: (l) => plain(h(l, 'attn.c_attn.bias'), [], [2 * d, 3 * d]),
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
    // llama.cpp's GPT-2: the converter transposes Conv1D (attn_qkv etc. are [out, in] rows).
    gguf: {
      arch: 'gpt2',
      cls: 'GPT2LMHeadModel',
      config: ({ base, d, heads, need }) => ({
        ...base,
        n_embd: d,
        n_layer: need('block_count'),
        n_head: heads,
        n_inner: need('feed_forward_length'),
        n_positions: need('context_length'),
        layer_norm_epsilon: need('attention.layer_norm_epsilon'),
        activation_function: 'gelu_new', // llama.cpp's GPT-2 graph: ggml_gelu, the tanh form
      }),
      names: (KIND, b, dims) => ggufFusedQkv(KIND, b, dims),
    },
  },
};

// RoBERTa: BERT's encoder with positions counted from padding_idx + 1 (pad tokens sit at
// padding_idx), one token type, and its own head names (modeling_roberta.py).
function roberta(fn, c, head, KIND) {
  const base = ARCHITECTURES.bert.read(fn, { type_vocab_size: 1, ...c }, head, KIND);
  const pad = c.pad_token_id ?? 1;
  if (!Number.isInteger(pad) || pad < 0)
    throw rangeError(
      fn,
      `config.json: pad_token_id must be a non-negative integer, got ${JSON.stringify(c.pad_token_id)}`,
    );
  const descriptor = {
    ...base.descriptor,
    positionOffset: pad + 1,
    contextLength: Math.max(0, base.descriptor.maxPositions - pad - 1),
  };
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
  const classifier = {
    pool: 'first',
    layers: [
      { name: 'classifier.dense', activation: 'tanh', unprefixed: true },
      { name: 'classifier.out_proj', unprefixed: true },
    ],
  };
  return { descriptor, names, classifier };
}
ARCHITECTURES.roberta = {
  keys: ENCODER,
  read: roberta,
};

// rope_scaling (modeling_rope_utils.py): null or 'default' (none), 'linear' (frequencies ÷
// factor), 'llama3' (Llama 3.1+: factor, low_freq_factor, high_freq_factor,
// original_max_position_embeddings) or 'longrope' (Phi-3: short_factor and long_factor, one
// per rotated pair, the long ones once a call's positions pass
// original_max_position_embeddings; cos and sin × attention_factor). Its numbers travel to the
// core as float32 (exact for the values configs use: 8, 1, 4, 32, 0.5, ...). Others (dynamic,
// yarn) are refused.
function ropeScalingOf(fn, c, rotaryDim) {
  const rs = c.rope_scaling;
  if (rs == null) return null;
  const bad = (what) => rangeError(fn, `config.json: rope_scaling ${JSON.stringify(rs).slice(0, 200)}: ${what}`);
  if (typeof rs !== 'object' || Array.isArray(rs)) throw bad('must be an object or null');
  const type = rs.rope_type ?? rs.type;
  if (type === 'default') return null;
  const positive = (key, fallback, from = rs) => {
    const x = from[key] ?? fallback;
    if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x) || x > 3.4e38)
      throw bad(`${key} must be a positive number, got ${JSON.stringify(from[key])}`);
    return x;
  };
  const integer = (x, key) => {
    if (!Number.isInteger(x) || x > 2 ** 31 - 1) throw bad(`${key} must be an integer`);
    return x;
  };
  if (type === 'linear') return { type, factor: positive('factor') };
  if (type === 'llama3') {
    const s = {
      type,
      factor: positive('factor'),
      lowFreqFactor: positive('low_freq_factor'),
      highFreqFactor: positive('high_freq_factor'),
      originalMax: positive('original_max_position_embeddings'),
    };
    integer(s.originalMax, 'original_max_position_embeddings');
    if (!(s.highFreqFactor > s.lowFreqFactor)) throw bad('high_freq_factor must exceed low_freq_factor');
    return s;
  }
  if (type === 'longrope') {
    // _compute_longrope_parameters: the original context is config's own
    // original_max_position_embeddings when it has one (Phi-3), and then the factor is
    // max_position_embeddings over it; attention_factor defaults to √(1 + ln factor / ln original).
    const top = c.original_max_position_embeddings != null;
    const originalMax = integer(
      top
        ? positive('original_max_position_embeddings', undefined, c)
        : positive('original_max_position_embeddings', c.max_position_embeddings),
      'original_max_position_embeddings',
    );
    // (4.x: max_position_embeddings / the top-level original context; 5: rope_parameters'
    // factor when it has one, else that same ratio.)
    const ratio = positive('max_position_embeddings', 4096, c) / originalMax;
    const factor = top || rs.factor == null ? ratio : positive('factor');
    const attentionFactor =
      rs.attention_factor != null
        ? positive('attention_factor')
        : factor <= 1
          ? 1
          : Math.sqrt(1 + Math.log(factor) / Math.log(originalMax));
    const list = (key) => {
      const x = rs[key];
      if (!Array.isArray(x) || x.length !== rotaryDim / 2)
        throw bad(
          `${key} must be a list of ${rotaryDim / 2} numbers (one per rotated pair), got ${Array.isArray(x) ? `${x.length}` : JSON.stringify(x)}`,
        );
      return x.map((v, i) => positive(i, undefined, x));
    };
    return { type, originalMax, attentionFactor, shortFactors: list('short_factor'), longFactors: list('long_factor') };
  }
  throw bad(`type ${JSON.stringify(type)} is not supported (supported: default, linear, llama3, longrope)`);
}

// A positive integer window or null (none).
function windowOf(fn, c, key = 'sliding_window') {
  const w = c[key];
  if (w != null && (!Number.isInteger(w) || w < 1 || w > 2 ** 31 - 1)) {
    throw rangeError(fn, `config.json: ${key} must be a positive integer or null, got ${JSON.stringify(w)}`);
  }
  return w ?? 0;
}

// Each layer's window from config.layer_types ('sliding_attention' | 'full_attention'; the
// family's default pattern when absent): the window on sliding layers, 0 on full ones.
function layerWindowsOf(fn, c, layers, window, defaultTypes) {
  const types = c.layer_types ?? defaultTypes;
  if (
    !Array.isArray(types) ||
    types.length !== layers ||
    types.some((t) => t !== 'sliding_attention' && t !== 'full_attention')
  ) {
    throw rangeError(
      fn,
      `config.json: layer_types must list 'sliding_attention' or 'full_attention' for each of the ${layers} layers, got ${JSON.stringify(c.layer_types).slice(0, 200)}`,
    );
  }
  return types.map((t) => (t === 'sliding_attention' ? window : 0));
}

const everyLayer = (layers, type) => Array.from({ length: layers }, () => type);

// The decoder families below (modeling_llama.py and its descendants): RMSNorm, a gated FFN,
// rotary embeddings, grouped-query heads, `model.layers.N.*` names. `family` says where each
// one departs from Llama: biases, head_dim, q/k norms, sandwich norms, Gemma's (1 + w) norms,
// scale and softcaps, embedding multiplier, per-layer windows and RoPE, fused projections.
function decoder(fn, c, head, KIND, family) {
  const d = int(fn, c, 'hidden_size');
  const heads = int(fn, c, 'num_attention_heads');
  const kvHeads = int(fn, c, 'num_key_value_heads', heads);
  if (heads % kvHeads !== 0)
    throw rangeError(
      fn,
      `config.json: num_attention_heads ${heads} must be a multiple of num_key_value_heads ${kvHeads}`,
    );
  const headDim = headDimOf(fn, c, d, heads, family.headDimFallback);
  const layers = int(fn, c, 'num_hidden_layers');
  const partial = c.partial_rotary_factor ?? 1;
  if (typeof partial !== 'number' || !(partial > 0 && partial <= 1))
    throw rangeError(fn, `config.json: partial_rotary_factor must be in (0, 1], got ${JSON.stringify(partial)}`);
  const rotaryDim = Math.floor(headDim * partial);
  const descriptor = {
    vocabSize: int(fn, c, 'vocab_size'),
    maxPositions: 0,
    typeVocabSize: 0,
    dModel: d,
    numHeads: heads,
    numKvHeads: kvHeads,
    headDim,
    numLayers: layers,
    dFF: int(fn, c, 'intermediate_size'),
    activation: activation(fn, c, family.activationKey ?? 'hidden_act', family.activationFallback ?? 'silu'),
    gatedFfn: true,
    norm: family.norm ?? 'rms',
    normEps: positiveFloat(fn, c, 'rms_norm_eps', 1e-6),
    contextLength: int(fn, c, 'max_position_embeddings', 2048),
    rotaryDim,
    rotaryBase: positiveFloat(fn, c, 'rope_theta', 10000),
    rotaryInterleaved: false,
    ropeScaling: ropeScalingOf(fn, c, rotaryDim),
    preNorm: true,
    postNorms: family.postNorms === true,
    inputNorms: family.inputNorms !== false,
    embeddingNorm: false,
    finalNorm: true,
    causal: family.causal ?? true,
    qkvBias: family.qkvBias === true,
    outBias: family.outBias === true,
    qkNorm: family.qkNorm === true,
    qkNormFullWidth: family.qkNormFullWidth === true,
    mlpBias: family.mlpBias === true,
    layerWindows: family.layerWindows(layers),
    layerNoRope: family.layerNoRope?.(layers) ?? Array(layers).fill(false),
    localRotaryBase: family.localRotaryBase ?? 0,
    attentionScale: family.attentionScale ?? 0,
    attentionSoftcap: family.attentionSoftcap ?? 0,
    finalSoftcap: family.finalSoftcap ?? 0,
    embeddingMultiplier: family.embeddingMultiplier ?? 1,
    residualMultiplier: family.residualMultiplier ?? 1,
    logitsScaling: family.logitsScaling ?? 1,
    lmHead: head === 'causal-lm',
    lmTransform: false,
    lmBias: false,
    lmActivation: 'gelu',
  };
  const layer = (l, rest) => `layers.${l}.${rest}`;
  const proj = (l, part, n) => ({
    w: () => linear(layer(l, `${part}.${n}.weight`)),
    b: () => plain(layer(l, `${part}.${n}.bias`)),
  });
  const names = {
    prefixes: family.prefixes ?? ['model.', ''],
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
    // lm_head.weight, or the embeddings when tie_word_embeddings (SmolLM, Qwen2.5-0.5B, Gemma) leaves it out.
    [KIND.lmDecoder]: () => ({ ...linear('embed_tokens.weight'), tied: 'lm_head.weight' }),
    ...(descriptor.qkNorm
      ? {
          [KIND.queryNormWeight]: (l) => plain(layer(l, 'self_attn.q_norm.weight')),
          [KIND.keyNormWeight]: (l) => plain(layer(l, 'self_attn.k_norm.weight')),
        }
      : {}),
    // Llama's post_attention_layernorm is the norm before the FFN; a sandwich (Gemma) names
    // that one pre_feedforward_layernorm and puts post_attention_layernorm on the attention's output.
    ...(descriptor.postNorms
      ? {
          [KIND.norm2Weight]: (l) => plain(layer(l, 'pre_feedforward_layernorm.weight')),
          [KIND.postAttentionNormWeight]: (l) => plain(layer(l, 'post_attention_layernorm.weight')),
          [KIND.postFfnNormWeight]: (l) => plain(layer(l, 'post_feedforward_layernorm.weight')),
        }
      : {}),
    ...(family.names?.(layer, { d, heads, kvHeads, headDim, f: descriptor.dFF }) ?? {}),
  };
  const classifier = { pool: 'last', layers: [{ name: 'score', unprefixed: true, noBias: true }] };
  return { descriptor, names, classifier };
}

// Llama (modeling_llama.py): attention_bias covers q, k, v and o; mlp_bias the FFN.
// GGUF (llama.cpp's LlamaModel): q and k rows permuted for ggml's RoPE, undone on the way in;
// the biases are there when their tensors are.
ARCHITECTURES.llama = {
  keys: decoderKeys({ read: ['attention_bias', 'mlp_bias'] }),
  read: (fn, c, head, KIND) =>
    decoder(fn, c, head, KIND, {
      qkvBias: c.attention_bias === true,
      outBias: c.attention_bias === true,
      mlpBias: c.mlp_bias === true,
      layerWindows: (layers) => Array(layers).fill(0),
    }),
  gguf: {
    arch: 'llama',
    cls: 'LlamaForCausalLM',
    permuteQK: true,
    config: ({ decoder, tensors }) => ({
      ...decoder(),
      attention_bias: tensors.has('blk.0.attn_q.bias'),
      mlp_bias: tensors.has('blk.0.ffn_up.bias'),
    }),
  },
};

// Mistral (modeling_mistral.py): Llama's layers with a sliding window on every layer, query i
// attending to keys j with i - sliding_window < j <= i (masking_utils' sliding_window_overlay).
ARCHITECTURES.mistral = {
  keys: decoderKeys({ read: ['sliding_window'] }),
  read: (fn, c, head, KIND) =>
    decoder(fn, c, head, KIND, {
      qkvBias: false,
      outBias: false,
      layerWindows: (layers) => Array(layers).fill(windowOf(fn, c)),
    }),
};

// Qwen2/Qwen2.5 (modeling_qwen2.py): biases on q, k and v, none on o. The window applies only
// with use_sliding_window, and then on the layers layer_types marks (default: from
// max_window_layers on).
ARCHITECTURES.qwen2 = {
  keys: decoderKeys({ read: ['use_sliding_window', 'sliding_window', 'max_window_layers', 'layer_types'] }),
  read: (fn, c, head, KIND) =>
    decoder(fn, c, head, KIND, {
      qkvBias: true,
      outBias: false,
      layerWindows: qwenWindows(fn, c),
    }),
  gguf: { arch: 'qwen2', cls: 'Qwen2ForCausalLM', config: ({ decoder }) => decoder() },
};

function qwenWindows(fn, c) {
  return (layers) => {
    const window = c.use_sliding_window === true ? windowOf(fn, c) : 0;
    const first = int(fn, c, 'max_window_layers', layers, 0);
    const types = Array.from({ length: layers }, (_, i) =>
      window > 0 && i >= first ? 'sliding_attention' : 'full_attention',
    );
    return layerWindowsOf(fn, window > 0 ? c : { ...c, layer_types: undefined }, layers, window, types);
  };
}

// Qwen3 (modeling_qwen3.py): attention_bias on all four projections (false in every release),
// an RMS norm over each query and key head before RoPE, head_dim of its own (default 128).
ARCHITECTURES.qwen3 = {
  keys: decoderKeys({
    read: ['attention_bias', 'use_sliding_window', 'sliding_window', 'max_window_layers', 'layer_types'],
  }),
  read: (fn, c, head, KIND) =>
    decoder(fn, c, head, KIND, {
      qkvBias: c.attention_bias === true,
      outBias: c.attention_bias === true,
      qkNorm: true,
      headDimFallback: 128,
      layerWindows: qwenWindows(fn, c),
    }),
  gguf: { arch: 'qwen3', cls: 'Qwen3ForCausalLM', config: ({ decoder }) => decoder() },
};

// Gemma 2 (modeling_gemma2.py): RMS norms scaling by (1 + w), four per layer (a sandwich around
// attention and the FFN), embeddings × √hidden_size (float32), scores × query_pre_attn_scalar^-½
// capped by attn_logit_softcapping, logits capped by final_logit_softcapping, GeGLU with the
// tanh GELU, sliding-window layers alternating with global ones (layer 0 sliding).
function gemma(fn, c, extra) {
  const d = int(fn, c, 'hidden_size');
  const optionalCap = (key) => (c[key] == null ? 0 : positiveFloat(fn, c, key));
  return {
    norm: 'rms+1',
    postNorms: true,
    qkvBias: c.attention_bias === true,
    outBias: c.attention_bias === true,
    headDimFallback: 256,
    activationKey: 'hidden_activation',
    activationFallback: 'gelu_pytorch_tanh',
    attentionScale: positiveFloat(fn, c, 'query_pre_attn_scalar', 256) ** -0.5,
    attentionSoftcap: optionalCap('attn_logit_softcapping'),
    finalSoftcap: optionalCap('final_logit_softcapping'),
    embeddingMultiplier: Math.fround(Math.sqrt(d)),
    ...extra,
  };
}

// GGUF (llama.cpp's Gemma2Model / Gemma3Model): the norms stored as 1 + w, undone on the way in.
// GGUF has no query_pre_attn_scalar: llama.cpp scales queries by head_dim^-½ (the 27B models by
// (hidden / heads)^-½) unless attention.scale says; Gemma 3's sliding layers turn by a fixed
// base of 10000.
function gemmaGguf(arch, cls) {
  const config = ({ decoder, get }) => {
    const c = decoder();
    const scale = get('attention.scale');
    // query_pre_attn_scalar is an integer in every Gemma config: undo the float32 of its root.
    const scalar = typeof scale === 'number' && scale > 0 ? 1 / (scale * scale) : null;
    const big = c.num_hidden_layers === (arch === 'gemma2' ? 46 : 62);
    const out = {
      ...c,
      hidden_activation: 'gelu_pytorch_tanh',
      query_pre_attn_scalar:
        scalar !== null
          ? Math.abs(scalar - Math.round(scalar)) < 1e-4 * scalar
            ? Math.round(scalar)
            : scalar
          : big
            ? c.hidden_size / c.num_attention_heads
            : c.head_dim,
      sliding_window: get('attention.sliding_window') ?? 4096,
      attn_logit_softcapping: get('attn_logit_softcapping') ?? null,
      final_logit_softcapping: get('final_logit_softcapping') ?? null,
    };
    if (arch !== 'gemma2') {
      out.rope_local_base_freq = 10000;
      const pattern = get('attention.sliding_window_pattern');
      if (typeof pattern === 'number') out.sliding_window_pattern = pattern;
    }
    // llama.cpp's gemma-embedding (EmbeddingGemma): no causal rule, a global layer every sixth.
    if (arch === 'gemma-embedding')
      Object.assign(out, { use_bidirectional_attention: true, sliding_window_pattern: 6 });
    return out;
  };
  return { arch, cls, normsPlusOne: true, config };
}

// GGUF's attn_qkv (GPT-2's c_attn and Phi-3's qkv_proj, converted): q, k and v fused, rows q,
// then k, then v, in the weights and the biases.
function ggufFusedQkv(KIND, b, { numHeads, numKvHeads, headDim }) {
  const q = numHeads * headDim;
  const kv = numKvHeads * headDim;
  const total = q + 2 * kv;
  return {
    [KIND.query]: (l) => linearPart(b(l, 'attn_qkv.weight'), [0, total]),
    [KIND.key]: (l) => linearPart(b(l, 'attn_qkv.weight'), [q, total]),
    [KIND.value]: (l) => linearPart(b(l, 'attn_qkv.weight'), [q + kv, total]),
    [KIND.queryBias]: (l) => plain(b(l, 'attn_qkv.bias'), [], [0, total]),
    [KIND.keyBias]: (l) => plain(b(l, 'attn_qkv.bias'), [], [q, total]),
    [KIND.valueBias]: (l) => plain(b(l, 'attn_qkv.bias'), [], [q + kv, total]),
  };
}

ARCHITECTURES.gemma2 = {
  keys: decoderKeys({ read: GEMMA_READ, harmless: GEMMA_HARMLESS }),
  read: (fn, c, head, KIND) =>
    decoder(
      fn,
      c,
      head,
      KIND,
      gemma(fn, c, {
        layerWindows: (layers) =>
          layerWindowsOf(
            fn,
            c,
            layers,
            windowOf(fn, { sliding_window: 4096, ...c }),
            Array.from({ length: layers }, (_, i) => ((i + 1) % 2 ? 'sliding_attention' : 'full_attention')),
          ),
      }),
    ),
  gguf: gemmaGguf('gemma2', 'Gemma2ForCausalLM'),
};

// Gemma 3 text (modeling_gemma3.py, Gemma3ForCausalLM): Gemma 2's layers without the softcaps
// (unless set) and with (1 + w) q/k norms; five sliding layers to each global one by default
// (sliding_window_pattern 6); sliding layers turn by rope_local_base_freq, unscaled, global
// ones by rope_theta with rope_scaling. use_bidirectional_attention (EmbeddingGemma,
// Gemma3TextModel): no causal rule; a global layer sees every key, a sliding one the keys j with
// |i - j| < sliding_window // 2 + 1 (configuration_gemma3.py halves the window, and
// _bidirectional_window_overlay opens it on both sides).
function gemma3Text(fn, c, head, KIND) {
  const pattern = int(fn, c, 'sliding_window_pattern', 6);
  const bidirectional = c.use_bidirectional_attention ?? false;
  if (typeof bidirectional !== 'boolean')
    throw rangeError(
      fn,
      `config.json: use_bidirectional_attention must be true or false, got ${JSON.stringify(bidirectional)}`,
    );
  const window = windowOf(fn, { sliding_window: 4096, ...c });
  return decoder(
    fn,
    { ...c, rope_theta: c.rope_theta ?? 1000000 },
    head,
    KIND,
    gemma(fn, c, {
      qkNorm: true,
      causal: !bidirectional,
      localRotaryBase: positiveFloat(fn, c, 'rope_local_base_freq', 10000),
      layerWindows: (layers) =>
        layerWindowsOf(
          fn,
          c,
          layers,
          bidirectional && window > 0 ? Math.floor(window / 2) + 1 : window,
          Array.from({ length: layers }, (_, i) => ((i + 1) % pattern ? 'sliding_attention' : 'full_attention')),
        ),
    }),
  );
}
// GGUF: llama.cpp's gemma3 (a causal LM), and gemma-embedding (EmbeddingGemma, the
// Gemma3TextModel with its pooling and Dense weights: gguf_sentence.js).
ARCHITECTURES.gemma3_text = {
  keys: decoderKeys({
    read: [...GEMMA_READ, 'rope_local_base_freq', 'sliding_window_pattern', 'use_bidirectional_attention'],
    harmless: GEMMA_HARMLESS,
  }),
  read: gemma3Text,
  gguf: [gemmaGguf('gemma3', 'Gemma3ForCausalLM'), gemmaGguf('gemma-embedding', 'Gemma3TextModel')],
};

// Gemma 3 4B and up (Gemma3ForConditionalGeneration, model_type 'gemma3'): the text model's
// config under text_config and its weights under language_model.model. (transformers < 4.52)
// or model.language_model. (later); the vision tower is not read.
ARCHITECTURES.gemma3 = {
  // The multimodal wrapper: its text model's keys are checked as gemma3_text's.
  keys: {
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
  read(fn, c, head, KIND) {
    const text = c.text_config;
    if (text === null || typeof text !== 'object' || Array.isArray(text))
      throw rangeError(fn, 'config.json: a gemma3 checkpoint must hold its text model in text_config');
    checkConfigKeys(fn, ARCHITECTURES.gemma3_text.keys, text);
    const arch = ARCHITECTURES.gemma3_text.read(
      fn,
      withRopeParameters(fn, { tie_word_embeddings: c.tie_word_embeddings, ...text }),
      head,
      KIND,
    );
    return { ...arch, names: { ...arch.names, prefixes: ['language_model.model.', 'model.language_model.'] } };
  },
};

// Phi-3, Phi-3.5 and Phi-4-mini (modeling_phi3.py): Llama's layers with q, k and v fused in
// qkv_proj (rows: q, then k, then v) and gate and up fused in gate_up_proj (gate first),
// partial_rotary_factor, longrope scaling, and a window on every layer when sliding_window is set.
ARCHITECTURES.phi3 = {
  // modeling_phi3.py builds qkv_proj and o_proj without biases whatever attention_bias says.
  keys: decoderKeys({
    read: ['sliding_window', 'original_max_position_embeddings'],
    harmless: ['attention_bias', 'resid_pdrop', 'embd_pdrop'],
  }),
  read: (fn, c, head, KIND) =>
    decoder(fn, c, head, KIND, {
      qkvBias: false,
      outBias: false,
      layerWindows: (layers) => Array(layers).fill(windowOf(fn, c)),
      names: (layer, { heads, kvHeads, headDim, f }) => {
        const q = heads * headDim,
          kv = kvHeads * headDim,
          total = q + 2 * kv;
        const qkv = (l, offset) => linearPart(layer(l, 'self_attn.qkv_proj.weight'), [offset, total]);
        const gateUp = (l, offset) => linearPart(layer(l, 'mlp.gate_up_proj.weight'), [offset, 2 * f]);
        return {
          [KIND.query]: (l) => qkv(l, 0),
          [KIND.key]: (l) => qkv(l, q),
          [KIND.value]: (l) => qkv(l, q + kv),
          [KIND.gate]: (l) => gateUp(l, 0),
          [KIND.up]: (l) => gateUp(l, f),
        };
      },
    }),
  // GGUF: attn_qkv fused as qkv_proj, ffn_up holding gate and up; longrope's original context.
  gguf: {
    arch: 'phi3',
    cls: 'Phi3ForCausalLM',
    config: ({ decoder, get }) => {
      const c = decoder();
      c.sliding_window = get('attention.sliding_window') ?? null;
      if (c.rope_scaling?.type === 'longrope')
        c.original_max_position_embeddings = get('rope.scaling.original_context_length');
      return c;
    },
    names: (KIND, b, dims) => ({
      ...ggufFusedQkv(KIND, b, dims),
      [KIND.gate]: (l) => linearPart(b(l, 'ffn_up.weight'), [0, 2 * dims.dFF]),
      [KIND.up]: (l) => linearPart(b(l, 'ffn_up.weight'), [dims.dFF, 2 * dims.dFF]),
    }),
  },
};

// Granite 3 (modeling_granite.py): Llama's layers with four scalars: embeddings ×
// embedding_multiplier, scores × attention_multiplier (instead of head_dim^-½), each sub-layer's
// output × residual_multiplier before its residual, logits ÷ logits_scaling (each 1 by default).
ARCHITECTURES.granite = {
  keys: decoderKeys({
    read: [
      'attention_bias',
      'mlp_bias',
      'embedding_multiplier',
      'attention_multiplier',
      'residual_multiplier',
      'logits_scaling',
    ],
  }),
  read: (fn, c, head, KIND) =>
    decoder(fn, c, head, KIND, {
      qkvBias: c.attention_bias === true,
      outBias: c.attention_bias === true,
      mlpBias: c.mlp_bias === true,
      layerWindows: (layers) => Array(layers).fill(0),
      embeddingMultiplier: positiveFloat(fn, c, 'embedding_multiplier', 1),
      attentionScale: positiveFloat(fn, c, 'attention_multiplier', 1),
      residualMultiplier: positiveFloat(fn, c, 'residual_multiplier', 1),
      logitsScaling: positiveFloat(fn, c, 'logits_scaling', 1),
    }),
  // GGUF (llama.cpp's GraniteModel, a LlamaModel: q and k rows permuted): the multipliers as
  // granite.embedding_scale, attention.scale, residual_scale and logit_scale, each written only
  // when set.
  gguf: {
    arch: 'granite',
    cls: 'GraniteForCausalLM',
    permuteQK: true,
    config: ({ decoder, get, tensors }) => {
      const c = {
        ...decoder(),
        attention_bias: tensors.has('blk.0.attn_q.bias'),
        mlp_bias: tensors.has('blk.0.ffn_up.bias'),
      };
      const scales = {
        embedding_multiplier: 'embedding_scale',
        attention_multiplier: 'attention.scale',
        residual_multiplier: 'residual_scale',
        logits_scaling: 'logit_scale',
      };
      for (const [key, from] of Object.entries(scales)) if (get(from) !== undefined) c[key] = get(from);
      return c;
    },
  },
};

// SmolLM3 (modeling_smollm3.py): Llama's layers, some without RoPE: no_rope_layers[l] is 1 where
// layer l turns its queries and keys, 0 on a NoPE layer (default: every no_rope_layer_interval-th,
// 4). A window only with use_sliding_window, on the layers layer_types marks (default: the NoPE
// ones, when sliding_window is set).
ARCHITECTURES.smollm3 = {
  keys: decoderKeys({
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
  read: (fn, c, head, KIND) => {
    const layers = int(fn, c, 'num_hidden_layers');
    const interval = int(fn, c, 'no_rope_layer_interval', 4);
    const uses = c.no_rope_layers ?? Array.from({ length: layers }, (_, i) => Number((i + 1) % interval !== 0));
    if (!Array.isArray(uses) || uses.length < layers || uses.slice(0, layers).some((u) => u !== 0 && u !== 1))
      throw rangeError(
        fn,
        `config.json: no_rope_layers must list 1 (RoPE) or 0 (NoPE) for each of the ${layers} layers, got ${JSON.stringify(c.no_rope_layers).slice(0, 200)}`,
      );
    const window = c.use_sliding_window === true ? windowOf(fn, c) : 0;
    const types = uses.slice(0, layers).map((u) => (window > 0 && u === 0 ? 'sliding_attention' : 'full_attention'));
    return decoder(fn, c, head, KIND, {
      qkvBias: c.attention_bias === true,
      outBias: c.attention_bias === true,
      mlpBias: c.mlp_bias === true,
      layerWindows: (n) => layerWindowsOf(fn, window > 0 ? c : { ...c, layer_types: undefined }, n, window, types),
      layerNoRope: (n) => uses.slice(0, n).map((u) => u === 0),
    });
  },
  // GGUF (llama.cpp's SmolLM3Model, a LlamaModel: q and k rows permuted). The file says nothing of
  // the NoPE layers: llama.cpp takes every fourth (n_no_rope_layer_step 4), and so does this.
  gguf: {
    arch: 'smollm3',
    cls: 'SmolLM3ForCausalLM',
    permuteQK: true,
    config: ({ decoder, tensors }) => ({
      ...decoder(),
      attention_bias: tensors.has('blk.0.attn_q.bias'),
      mlp_bias: tensors.has('blk.0.ffn_up.bias'),
      no_rope_layer_interval: 4,
    }),
  },
};

// OLMo 2 (modeling_olmo2.py): Llama's layers with the norms after attention and the MLP instead
// of before them (post_attention_layernorm, post_feedforward_layernorm: x + norm(f(x))), and q_norm
// and k_norm over the whole projected queries ([heads · head_dim]) and keys, before RoPE.
ARCHITECTURES.olmo2 = {
  keys: decoderKeys({
    read: ['attention_bias'],
    refused: {
      // OLMo (1)'s clamp of q, k and v to ±clip_qkv; an OLMo 2 config that sets it asks for it too.
      clip_qkv: [(value) => value != null, 'clamps the queries, keys and values, which is not supported'],
      // Olmo 3's (and its GGUF's, written as olmo2): windows on three layers of four.
      sliding_window: [(value) => value != null, 'is not supported for olmo2 (Olmo 3 sliding-window layers)'],
    },
  }),
  read: (fn, c, head, KIND) =>
    decoder(fn, c, head, KIND, {
      qkvBias: c.attention_bias === true,
      outBias: c.attention_bias === true,
      postNorms: true,
      inputNorms: false,
      qkNorm: true,
      qkNormFullWidth: true,
      layerWindows: (layers) => Array(layers).fill(0),
    }),
  // GGUF (llama.cpp's Olmo2Model, a TextModel: q and k rows as Hugging Face has them). Olmo 3
  // writes the same architecture with attention.sliding_window, which the config carries so that
  // config_keys.js refuses it by name.
  gguf: {
    arch: 'olmo2',
    cls: 'Olmo2ForCausalLM',
    config: ({ decoder, get, tensors }) => ({
      ...decoder(),
      attention_bias: tensors.has('blk.0.attn_q.bias'),
      ...(get('attention.sliding_window') === undefined ? {} : { sliding_window: get('attention.sliding_window') }),
    }),
  },
};

// ModernBERT (modeling_modernbert.py): a pre-norm encoder with rotary embeddings: global layers
// (every global_attn_every_n_layers-th, from layer 0) turn by global_rope_theta and see every
// key, the others by local_rope_theta and see the keys j with |i - j| <= local_attention / 2;
// q, k and v fused in Wqkv, a GeGLU (Wi: the activated half first, then its gate), LayerNorms
// without bias (norm_bias), none before layer 0's attention, a final norm; the masked-LM head's
// transform (head.dense, classifier_bias), activation and norm, then the tied decoder with its
// bias (decoder_bias).
ARCHITECTURES.modernbert = {
  keys: {
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
  read(fn, c, head, KIND) {
    if (head === 'sequence-classification')
      throw rangeError(fn, 'a modernbert sequence classifier is not supported (its pooling head is not read)');
    const d = int(fn, c, 'hidden_size');
    const heads = int(fn, c, 'num_attention_heads');
    const layers = int(fn, c, 'num_hidden_layers');
    const f = int(fn, c, 'intermediate_size');
    const headDim = headDimOf(fn, {}, d, heads);
    const every = int(fn, c, 'global_attn_every_n_layers', 3);
    // sliding_window_mask: |i - j| <= local_attention // 2, the runner's |i - j| < window.
    const window = Math.floor(int(fn, c, 'local_attention', 128) / 2) + 1;
    const bias = (key, fallback) => {
      const value = c[key] ?? fallback;
      if (typeof value !== 'boolean')
        throw rangeError(fn, `config.json: ${key} must be true or false, got ${JSON.stringify(value)}`);
      return value;
    };
    const descriptor = {
      vocabSize: int(fn, c, 'vocab_size'),
      maxPositions: 0,
      typeVocabSize: 0,
      dModel: d,
      numHeads: heads,
      numKvHeads: heads,
      headDim,
      numLayers: layers,
      dFF: f,
      activation: activation(fn, c, 'hidden_activation', 'gelu'),
      gatedFfn: true,
      norm: 'layer',
      normEps: positiveFloat(fn, c, 'norm_eps', 1e-5),
      normBiases: bias('norm_bias', false),
      contextLength: int(fn, c, 'max_position_embeddings', 8192),
      rotaryDim: headDim,
      // (transformers 5's rope_parameters per layer type, read by withRopeParameters, win.)
      rotaryBase: positiveFloat(fn, c, c.rope_parameters ? 'rope_theta' : 'global_rope_theta', 160000),
      localRotaryBase: positiveFloat(fn, c, c.rope_parameters ? 'rope_local_base_freq' : 'local_rope_theta', 10000),
      rotaryInterleaved: false,
      ropeScaling: null,
      preNorm: true,
      firstAttentionNorm: false,
      embeddingNorm: true,
      finalNorm: true,
      causal: false,
      qkvBias: bias('attention_bias', false),
      outBias: bias('attention_bias', false),
      mlpBias: bias('mlp_bias', false),
      layerWindows: layerWindowsOf(
        fn,
        c,
        layers,
        window,
        Array.from({ length: layers }, (_, i) => (i % every === 0 ? 'full_attention' : 'sliding_attention')),
      ),
      lmHead: head === 'masked-lm',
      lmTransform: true,
      lmTransformBias: bias('classifier_bias', false),
      lmBias: bias('decoder_bias', true),
      lmActivation: activation(fn, c, 'classifier_activation', 'gelu'),
    };
    const layer = (l, rest) => `layers.${l}.${rest}`;
    const qkv = (l, offset) => linearPart(layer(l, 'attn.Wqkv.weight'), [offset, 3 * d]);
    const qkvBias = (l, offset) => plain(layer(l, 'attn.Wqkv.bias'), [], [offset, 3 * d]);
    const names = {
      prefixes: ['model.', ''],
      [KIND.wordEmbeddings]: () => plain('embeddings.tok_embeddings.weight'),
      [KIND.embeddingNormWeight]: () => plain('embeddings.norm.weight'),
      [KIND.embeddingNormBias]: () => plain('embeddings.norm.bias'),
      [KIND.query]: (l) => qkv(l, 0),
      [KIND.key]: (l) => qkv(l, d),
      [KIND.value]: (l) => qkv(l, 2 * d),
      [KIND.queryBias]: (l) => qkvBias(l, 0),
      [KIND.keyBias]: (l) => qkvBias(l, d),
      [KIND.valueBias]: (l) => qkvBias(l, 2 * d),
      [KIND.attentionOut]: (l) => linear(layer(l, 'attn.Wo.weight')),
      [KIND.attentionOutBias]: (l) => plain(layer(l, 'attn.Wo.bias')),
      [KIND.norm1Weight]: (l) => plain(layer(l, 'attn_norm.weight')),
      [KIND.norm1Bias]: (l) => plain(layer(l, 'attn_norm.bias')),
      [KIND.gate]: (l) => linearPart(layer(l, 'mlp.Wi.weight'), [0, 2 * f]),
      [KIND.up]: (l) => linearPart(layer(l, 'mlp.Wi.weight'), [f, 2 * f]),
      [KIND.upBias]: (l) => plain(layer(l, 'mlp.Wi.bias'), [], [f, 2 * f]),
      [KIND.down]: (l) => linear(layer(l, 'mlp.Wo.weight')),
      [KIND.downBias]: (l) => plain(layer(l, 'mlp.Wo.bias')),
      [KIND.norm2Weight]: (l) => plain(layer(l, 'mlp_norm.weight')),
      [KIND.norm2Bias]: (l) => plain(layer(l, 'mlp_norm.bias')),
      [KIND.finalNormWeight]: () => plain('final_norm.weight'),
      [KIND.finalNormBias]: () => plain('final_norm.bias'),
      [KIND.lmTransform]: () => ({ ...linear('head.dense.weight'), unprefixed: true }),
      [KIND.lmTransformBias]: () => ({ ...plain('head.dense.bias'), unprefixed: true }),
      [KIND.lmNormWeight]: () => ({ ...plain('head.norm.weight'), unprefixed: true }),
      [KIND.lmNormBias]: () => ({ ...plain('head.norm.bias'), unprefixed: true }),
      [KIND.lmDecoder]: () => ({ ...linear('embeddings.tok_embeddings.weight'), tied: 'decoder.weight' }),
      [KIND.lmBias]: () => ({ ...plain('decoder.bias'), unprefixed: true }),
    };
    return { descriptor, names, classifier: null };
  },
  // GGUF (llama.cpp's ModernBertModel, general.architecture modern-bert: the base model, for
  // embeddings): Wqkv as attn_qkv, Wi as ffn_up (the activated half first), no attn_norm on layer
  // 0; the global base as rope.freq_base, the local one as rope.freq_base_swa (llama.cpp: the
  // global one when absent), local_attention as attention.sliding_window (none when 0) and
  // global_attn_every_n_layers as attention.sliding_window_pattern (llama.cpp: 3 when absent).
  gguf: {
    arch: 'modern-bert',
    cls: 'ModernBertModel',
    config: ({ base, get, need, tensors, d, heads }) => {
      const global = get('rope.freq_base') ?? 10000;
      const window = get('attention.sliding_window') ?? 0;
      return {
        ...base,
        hidden_size: d,
        intermediate_size: need('feed_forward_length'),
        num_hidden_layers: need('block_count'),
        num_attention_heads: heads,
        max_position_embeddings: need('context_length'),
        norm_eps: need('attention.layer_norm_epsilon'),
        hidden_activation: get('hidden_act') ?? 'gelu',
        global_rope_theta: global,
        local_rope_theta: get('rope.freq_base_swa') ?? global,
        // No window: every layer global (a window past any sequence changes nothing).
        local_attention: window > 0 ? window : 2 * need('context_length'),
        global_attn_every_n_layers: window > 0 ? (get('attention.sliding_window_pattern') ?? 3) : 1,
        norm_bias: tensors.has('output_norm.bias'),
        attention_bias: tensors.has('blk.0.attn_qkv.bias'),
        mlp_bias: tensors.has('blk.0.ffn_up.bias'),
      };
    },
    names: (KIND, b, dims) => ({
      ...ggufFusedQkv(KIND, b, dims),
      [KIND.embeddingNormWeight]: () => plain('token_embd_norm.weight'),
      [KIND.embeddingNormBias]: () => plain('token_embd_norm.bias'),
      [KIND.gate]: (l) => linearPart(b(l, 'ffn_up.weight'), [0, 2 * dims.dFF]),
      [KIND.up]: (l) => linearPart(b(l, 'ffn_up.weight'), [dims.dFF, 2 * dims.dFF]),
      [KIND.upBias]: (l) => plain(b(l, 'ffn_up.bias'), [], [dims.dFF, 2 * dims.dFF]),
    }),
  },
};

// transformers 5 writes RoPE as one rope_parameters object ({ rope_type, rope_theta, factor,
// partial_rotary_factor, original_max_position_embeddings, … }), or one per layer type
// ({ full_attention: {…}, sliding_attention: {…} }: Gemma 3), where 4.x wrote rope_theta,
// rope_scaling, partial_rotary_factor and rope_local_base_freq at the top. Read either: the
// v5 form is turned into the 4.x keys the entries read.
function withRopeParameters(fn, c) {
  const rp = c.rope_parameters;
  if (rp == null) return c;
  if (typeof rp !== 'object' || Array.isArray(rp))
    throw rangeError(fn, `config.json: rope_parameters must be an object, got ${JSON.stringify(rp).slice(0, 200)}`);
  const perType = Object.hasOwn(rp, 'full_attention') || Object.hasOwn(rp, 'sliding_attention');
  const full = perType ? (rp.full_attention ?? rp.sliding_attention) : rp;
  const sliding = perType ? rp.sliding_attention : null;
  const scaled = (p) => p != null && (p.rope_type ?? p.type ?? 'default') !== 'default';
  if (scaled(sliding))
    throw rangeError(
      fn,
      `config.json: rope_parameters.sliding_attention of type ${JSON.stringify(sliding.rope_type ?? sliding.type)} is not supported (sliding layers turn by their own base, unscaled)`,
    );
  return {
    ...c,
    rope_theta: full?.rope_theta ?? c.rope_theta,
    rope_scaling: scaled(full) ? full : (c.rope_scaling ?? null),
    partial_rotary_factor: full?.partial_rotary_factor ?? c.partial_rotary_factor,
    rope_local_base_freq: sliding?.rope_theta ?? c.rope_local_base_freq,
  };
}

/**
 * general.architecture → the family's GGUF part ({ arch, cls, config(metadata view),
 * names?(KIND, blockName, descriptor), permuteQK?, normsPlusOne? }) and its model_type.
 */
export const GGUF_FAMILIES = Object.freeze(
  Object.fromEntries(
    Object.entries(ARCHITECTURES)
      .filter(([, entry]) => entry.gguf)
      .flatMap(([modelType, entry]) =>
        [entry.gguf].flat().map((part) => [part.arch, Object.freeze({ ...part, modelType })]),
      ),
  ),
);

/** The model types this version loads. */
export const MODEL_TYPES = Object.freeze(Object.keys(ARCHITECTURES));

/** model_type → its config.json keys: { read, harmless, refused: { key: [refuses(value), why] } } (config_keys.js). */
export const CONFIG_KEYS = Object.freeze(
  Object.fromEntries(MODEL_TYPES.map((type) => [type, ARCHITECTURES[type].keys])),
);

/**
 * Reads a config.json object.
 * KIND: the module's weight kinds (contract.js weightKinds, from src/model/weights.h), which key
 * the architecture's name map.
 * @returns {{ modelType: string, head: string, descriptor: object, names: object, classifier: object, labels: string[] | null }}
 */
export function architectureOf(fn, config, headOption, KIND) {
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw rangeError(fn, 'config.json must hold a JSON object');
  checkConfigValues(fn, config);
  const modelType = config.model_type;
  if (!Object.hasOwn(ARCHITECTURES, modelType)) {
    throw rangeError(
      fn,
      `config.json: model_type ${JSON.stringify(modelType)} is not supported (supported: ${MODEL_TYPES.join(', ')})`,
    );
  }
  const head = headOption ?? headOf(config);
  if (!HEADS.includes(head))
    throw rangeError(fn, `options.head must be one of ${HEADS.join(', ')}, got ${JSON.stringify(head)}`);
  checkConfigKeys(fn, ARCHITECTURES[modelType].keys, config);
  const { descriptor, names, classifier } = ARCHITECTURES[modelType].read(
    fn,
    withRopeParameters(fn, config),
    head,
    KIND,
  );
  if (head === 'causal-lm' && !descriptor.causal)
    throw rangeError(fn, `a ${modelType} checkpoint has no causal-LM head`);
  if (head === 'masked-lm' && descriptor.causal)
    throw rangeError(fn, `a ${modelType} checkpoint has no masked-LM head`);
  if (descriptor.contextLength < 1)
    throw rangeError(
      fn,
      `config.json: max_position_embeddings ${config.max_position_embeddings} leaves no position for a token (pad_token_id ${config.pad_token_id} takes the first ${config.pad_token_id + 1})`,
    );
  if (!(descriptor.normEps > 0))
    throw rangeError(fn, `config.json: the layer norm eps must be positive, got ${descriptor.normEps}`);
  return {
    modelType,
    head,
    descriptor: Object.freeze(descriptor),
    names,
    classifier,
    untied: config.tie_word_embeddings === false,
    labels: head === 'sequence-classification' ? labelsOf(config) : null,
  };
}
