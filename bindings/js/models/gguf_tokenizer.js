// A GGUF file's tokenizer (tokenizer.ggml.*) as the tokenizer.json and tokenizer_config.json
// the Hugging Face tokenizer would have, so that it runs through the same adapter (tokenizer.js)
// and chat templates:
//   - 'gpt2': byte-level BPE; tokens are the byte-level strings of tokenizer.json's vocab,
//     merges the same "a b" pairs; the pre-tokenizer from tokenizer.ggml.pre (GGUF_PRE_TOKENIZERS);
//   - 'llama': SentencePiece BPE with byte fallback; merges are not stored, only each piece's
//     score: as llama.cpp's tokenizer (and transformers' SentencePieceExtractor) does, any two
//     pieces whose concatenation is a piece merge, the highest-scoring result first; '▁' for a
//     space, and one in front of the text unless add_space_prefix is false.
import { rangeError, show } from '../errors.js';

// tokenizer.ggml.token_type (llama.cpp's llama_token_type).
const NORMAL = 1;
const CONTROL = 3;
const USER_DEFINED = 4;

// tokenizer.ggml.pre → the pre-tokenizer of the Hub's tokenizer.json for that kind of model, as
// llama.cpp groups the names (llama-vocab.cpp: each value's LLAMA_VOCAB_PRE_TYPE, whose regexes
// it quotes as the "original regex from tokenizer.json"). A kind is a Split on a pattern then
// ByteLevel without its own regex, or GPT-2's ByteLevel alone (SmolLM's with Digits first);
// ignoreMerges: a piece in the vocabulary is one token (Llama 3, Mistral Nemo).
const CONTRACTIONS = "(?i:'s|'t|'re|'ve|'m|'ll|'d)";
const UPPER = '[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]';
const LOWER = '[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]';
const NOT_LETTER = '[^\\r\\n\\p{L}\\p{N}]';
const SPACES = '\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+';
const LLAMA3 = `${CONTRACTIONS}|${NOT_LETTER}?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|${SPACES}`;
const QWEN2 = `${CONTRACTIONS}|${NOT_LETTER}?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|${SPACES}`;
const O200K =
  `${NOT_LETTER}?${UPPER}*${LOWER}+${CONTRACTIONS}?|${NOT_LETTER}?${UPPER}+${LOWER}*${CONTRACTIONS}?` +
  `|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|${SPACES}`;
const TEKKEN = `${NOT_LETTER}?${UPPER}*${LOWER}+|${NOT_LETTER}?${UPPER}+${LOWER}*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|${SPACES}`;
const SEED_CODER = `${CONTRACTIONS}|${NOT_LETTER}?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|${SPACES}`;

const byteLevel = (useRegex) => ({
  type: 'ByteLevel',
  add_prefix_space: false,
  trim_offsets: true,
  use_regex: useRegex,
});
const split = (pattern) => ({
  type: 'Sequence',
  pretokenizers: [
    { type: 'Split', pattern: { Regex: pattern }, behavior: 'Isolated', invert: false },
    byteLevel(false),
  ],
});

/** Each kind of pre-tokenizer: tokenizer.json's pre_tokenizer and the BPE model's ignore_merges. */
const PRE_KINDS = {
  gpt2: { preTokenizer: byteLevel(true), ignoreMerges: false },
  llama3: { preTokenizer: split(LLAMA3), ignoreMerges: true },
  qwen2: { preTokenizer: split(QWEN2), ignoreMerges: false },
  // SmolLM's tokenizer.json says Digits (individual_digits), which the tokenizers crate splits
  // at each char::is_numeric (\p{N}), as llama.cpp does; @huggingface/tokenizers' Digits takes
  // only \d (ASCII), so the same split is written as a Split on \p{N}.
  smollm: {
    preTokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: '\\p{N}' }, behavior: 'Isolated', invert: false },
        byteLevel(true),
      ],
    },
    ignoreMerges: false,
  },
  gpt4o: { preTokenizer: split(O200K), ignoreMerges: false },
  tekken: { preTokenizer: split(TEKKEN), ignoreMerges: true },
  'seed-coder': { preTokenizer: split(SEED_CODER), ignoreMerges: false },
};
const kindOf = (kind, names) => Object.fromEntries(names.map((name) => [name, kind]));

/** tokenizer.ggml.pre → its kind (a key of PRE_KINDS), as llama-vocab.cpp reads the names. */
export const GGUF_PRE_TOKENIZERS = Object.freeze({
  ...kindOf('gpt2', [
    'default',
    'gpt-2',
    'gpt2',
    'phi-2',
    'mpt',
    'olmo',
    'jais',
    'trillion',
    'exaone4',
    'a.x-4.0',
    'mellum',
    'gigachat',
    'granite-docling',
  ]),
  ...kindOf('llama3', [
    'llama3',
    'llama-v3',
    'llama-bpe',
    'falcon3',
    'falcon-h1',
    'pixtral',
    'midm-2.0',
    'lfm2',
    'smaug-bpe',
    'dbrx',
  ]),
  ...kindOf('qwen2', ['qwen2', 'deepseek-r1-qwen', 'megrez', 'stablelm2', 'kormo', 'hunyuan', 'grok-2', 'solar-open']),
  ...kindOf('smollm', ['smollm', 'starcoder', 'refact', 'command-r', 'codeshell', 'exaone', 'minerva-7b', 'mellum2']),
  ...kindOf('gpt4o', ['gpt-4o', 'llama4', 'kanana2', 'minimax-m2']),
  tekken: 'tekken',
  'seed-coder': 'seed-coder',
});

/**
 * @param {string} fn @param {string} file @param {Map<string, unknown>} meta
 * @param {number} vocabSize the embeddings' rows
 * @returns {{ json: object, config: object } | null} null when the file has no tokenizer
 */
export function ggufTokenizer(fn, file, meta, vocabSize) {
  const model = meta.get('tokenizer.ggml.model');
  if (model === undefined) return null;
  const tokens = meta.get('tokenizer.ggml.tokens');
  if (!Array.isArray(tokens) || tokens.some((t) => typeof t !== 'string'))
    throw rangeError(fn, `${file}: tokenizer.ggml.tokens must be an array of strings`);
  if (tokens.length > vocabSize)
    throw rangeError(
      fn,
      `${file}: tokenizer.ggml.tokens lists ${tokens.length} tokens but the embeddings have ${vocabSize} rows`,
    );
  const types = meta.get('tokenizer.ggml.token_type');
  if (types !== undefined && (!ArrayBuffer.isView(types) || types.length !== tokens.length))
    throw rangeError(fn, `${file}: tokenizer.ggml.token_type must be one number per token (${tokens.length})`);
  // llama.cpp's token types: 0 undefined, 1 normal, 2 unknown, 3 control, 4 user-defined, 5
  // unused, 6 byte; any other is a file that was not written by its converter.
  const badType = types ? types.findIndex((t) => !(t >= 0 && t <= 6)) : -1;
  if (badType >= 0)
    throw rangeError(
      fn,
      `${file}: tokenizer.ggml.token_type[${badType}] is ${types[badType]}; llama.cpp's token types are 0 to 6`,
    );
  const typeOf = (id) => (types ? types[id] : NORMAL);
  const id = (key) => {
    const value = meta.get(`tokenizer.ggml.${key}`);
    if (value === undefined) return null;
    if (!Number.isInteger(value) || value < 0 || value >= tokens.length)
      throw rangeError(
        fn,
        `${file}: tokenizer.ggml.${key} must be a token id below ${tokens.length}, got ${show(value)}`,
      );
    return value;
  };
  const special = {
    bos: id('bos_token_id'),
    eos: id('eos_token_id'),
    unk: id('unknown_token_id'),
    pad: id('padding_token_id'),
  };
  const addBos = meta.get('tokenizer.ggml.add_bos_token') ?? model === 'llama';
  const addEos = meta.get('tokenizer.ggml.add_eos_token') ?? false;
  // Piece → id; a repeated piece keeps its first id. Built through a Map, so that a piece named
  // '__proto__' is an entry like any other.
  const ids = new Map();
  tokens.forEach((t, i) => {
    if (!ids.has(t)) ids.set(t, i);
  });
  const vocab = Object.fromEntries(ids);
  const added = [];
  const specialIds = new Set(Object.values(special));
  tokens.forEach((t, i) => {
    const type = typeOf(i);
    if (type === CONTROL || type === USER_DEFINED || specialIds.has(i)) {
      added.push({
        id: i,
        content: t,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: type !== USER_DEFINED,
      });
    }
  });
  let json;
  if (model === 'gpt2') json = bytePairJson(fn, file, meta, vocab, added);
  else if (model === 'llama') json = sentencePieceJson(fn, file, meta, tokens, typeOf, vocab, ids, added, special);
  else
    throw rangeError(
      fn,
      `${file}: tokenizer.ggml.model '${String(model).slice(0, 40)}' is not supported ('gpt2' byte-level BPE and 'llama' SentencePiece are)`,
    );
  json.post_processor = postProcessor(tokens, special, addBos, addEos, model);
  const text = (i) => (i === null ? undefined : tokens[i]);
  const config = {
    add_bos_token: addBos,
    add_eos_token: addEos,
    bos_token: text(special.bos),
    eos_token: text(special.eos),
    unk_token: text(special.unk),
    pad_token: text(special.pad),
    chat_template: meta.get('tokenizer.chat_template'),
  };
  for (const key of Object.keys(config)) if (config[key] === undefined) delete config[key];
  return { json, config };
}

function bytePairJson(fn, file, meta, vocab, added) {
  const pre = meta.get('tokenizer.ggml.pre') ?? 'default';
  if (!Object.hasOwn(GGUF_PRE_TOKENIZERS, pre))
    throw rangeError(
      fn,
      `${file}: tokenizer.ggml.pre '${String(pre).slice(0, 40)}' is not supported (supported: ${Object.keys(GGUF_PRE_TOKENIZERS).join(', ')})`,
    );
  const merges = meta.get('tokenizer.ggml.merges') ?? [];
  if (!Array.isArray(merges) || merges.some((m) => typeof m !== 'string' || m.split(' ').length !== 2))
    throw rangeError(fn, `${file}: tokenizer.ggml.merges must be an array of "left right" strings`);
  const { preTokenizer, ignoreMerges } = PRE_KINDS[GGUF_PRE_TOKENIZERS[pre]];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: preTokenizer,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: ignoreMerges,
      vocab,
      merges: merges.map((m) => m.split(' ')),
    },
  };
}

function sentencePieceJson(fn, file, meta, tokens, typeOf, vocab, ids, added, special) {
  const scores = meta.get('tokenizer.ggml.scores');
  if (!ArrayBuffer.isView(scores) || scores.length !== tokens.length)
    throw rangeError(fn, `${file}: tokenizer.ggml.scores must be one number per token (${tokens.length})`);
  const prefix = meta.get('tokenizer.ggml.add_space_prefix') ?? true;
  const replace = { type: 'Replace', pattern: { String: ' ' }, content: '▁' };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: prefix ? { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, replace] } : replace,
    pre_tokenizer: null,
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        ...(prefix ? [{ type: 'Strip', content: ' ', start: 1, stop: 0 }] : []),
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: special.unk === null ? null : tokens[special.unk],
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab,
      merges: mergesFromScores(tokens, scores, typeOf, ids),
    },
  };
}

// Every split of a normal piece into two normal pieces is a merge, ranked by the piece's
// score (highest first), ties by the left and then the right piece's id.
function mergesFromScores(tokens, scores, typeOf, ids) {
  const normal = (text) => {
    const id = ids.get(text);
    return id !== undefined && typeOf(id) === NORMAL ? id : -1;
  };
  const found = []; // [score, left id, right id, left, right]
  tokens.forEach((piece, id) => {
    if (typeOf(id) !== NORMAL || ids.get(piece) !== id) return;
    for (let k = 1; k < piece.length; k++) {
      const unit = piece.charCodeAt(k);
      if (unit >= 0xdc00 && unit <= 0xdfff) continue; // inside a surrogate pair: not a character boundary
      const left = normal(piece.slice(0, k));
      if (left < 0) continue;
      const right = normal(piece.slice(k));
      if (right >= 0) found.push([scores[id], left, right, tokens[left], tokens[right]]);
    }
  });
  found.sort((a, b) => b[0] - a[0] || a[1] - b[1] || a[2] - b[2]);
  return found.map((m) => [m[3], m[4]]);
}

// The special tokens an encode adds: bos (and eos) where the file says so, as a TemplateProcessing.
function postProcessor(tokens, special, addBos, addEos, model) {
  const bos = addBos && special.bos !== null ? tokens[special.bos] : null;
  const eos = addEos && special.eos !== null ? tokens[special.eos] : null;
  if (bos === null && eos === null)
    return model === 'gpt2'
      ? { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true }
      : null;
  const tok = (t, typeId) => ({ SpecialToken: { id: t, type_id: typeId } });
  const seq = (s, typeId) => ({ Sequence: { id: s, type_id: typeId } });
  const wrap = (s, typeId) => [...(bos ? [tok(bos, typeId)] : []), seq(s, typeId), ...(eos ? [tok(eos, typeId)] : [])];
  const specials = {};
  for (const [t, i] of [
    [bos, special.bos],
    [eos, special.eos],
  ])
    if (t !== null) specials[t] = { id: t, ids: [i], tokens: [t] };
  return {
    type: 'TemplateProcessing',
    single: wrap('A', 0),
    pair: [...wrap('A', 0), ...wrap('B', 1)],
    special_tokens: specials,
  };
}
