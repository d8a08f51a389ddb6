// Text → token ids through a Hugging Face tokenizer.json, read by @huggingface/tokenizers
// (WordPiece, byte-level BPE, SentencePiece-style BPE and Unigram, as the Hub's files
// describe them). That library gives ids and token strings; this adapter adds what the
// views need: each token's character span in the caller's text ([start, end) in UTF-16
// code units, as String.prototype.slice takes them), and which tokens are special.
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { checkTokenizerJson, boundWordPiece } from './tokenizer_safety.js';
import { importDependency } from './dependency.js';

let library = null; // Promise of the @huggingface/tokenizers module, loaded on first use

function loadLibrary() {
  library ??= importDependency(
    () => import('@huggingface/tokenizers'),
    '@huggingface/tokenizers/dist/tokenizers.min.mjs',
  ).catch((error) => {
    library = null; // a later call may try again (after an import map is added, say)
    throw new TypeError(
      `loadModel: could not import the tokenizer library @huggingface/tokenizers (${error.message}); a page without a bundler maps it with an import map (see docs/models.md)`,
    );
  });
  return library;
}

// GPT-2's byte ↔ printable character map (byte-level BPE stores bytes as these characters).
function byteDecoder() {
  const bytes = [];
  for (let b = 33; b <= 126; b++) bytes.push(b);
  for (let b = 161; b <= 172; b++) bytes.push(b);
  for (let b = 174; b <= 255; b++) bytes.push(b);
  const chars = bytes.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bytes.includes(b)) {
      bytes.push(b);
      chars.push(256 + n++);
    }
  }
  return new Map(chars.map((c, i) => [String.fromCodePoint(c), bytes[i]]));
}
let BYTE_DECODER = null;
let UTF8 = null;

const foldPiece = (piece) =>
  piece
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase();

// Case and accent folding, one original character at a time, so that a folded index maps
// back to the original text (BERT's uncased normalizer lowercases and strips accents).
function fold(text) {
  let folded = '';
  const origin = []; // folded index → original index
  for (let i = 0; i < text.length; i++) {
    const piece = text.charCodeAt(i) < 0x80 ? text[i].toLowerCase() : foldPiece(text[i]); // ASCII needs no NFD
    for (let k = 0; k < piece.length; k++) origin.push(i);
    folded += piece;
  }
  origin.push(text.length);
  return { folded, origin };
}

export class TextTokenizer {
  #tokenizer;
  #special;
  #kind; // 'bytes' (byte-level BPE), or 'text'
  #prefix; // WordPiece's continuing-subword prefix
  #unk;
  #joinsNothing; // a ByteLevel post_processor: a pair is its two texts' tokens in a row

  /** Use loadTokenizer(). */
  constructor(tokenizer, json) {
    this.#tokenizer = tokenizer;
    this.#special = new Set((json.added_tokens ?? []).filter((t) => t.special).map((t) => t.id));
    const types = JSON.stringify([json.pre_tokenizer, json.decoder]);
    this.#kind = /"ByteLevel"/.test(types) ? 'bytes' : 'text';
    this.#prefix = json.model?.continuing_subword_prefix ?? '';
    this.#unk = json.model?.unk_token ?? null;
    this.#joinsNothing = json.post_processor?.type === 'ByteLevel';
    /** The model's kind in tokenizer.json: WordPiece, BPE, Unigram. */
    this.type = String(json.model?.type ?? 'unknown');
    /** Vocabulary size, added tokens included. */
    this.vocabSize = vocabularySize(tokenizer);
    Object.freeze(this);
  }

  /**
   * Encodes text: ids, token strings, each token's [start, end) span in `text` (specials
   * and tokens with no place in the text get start = end = -1... see `special`), and token
   * types (typeIds: the post_processor template's, 0 without one).
   * With `pair`, a text pair as the template joins them (BERT: [CLS] text [SEP] pair [SEP],
   * types 0 then 1); each span is in its own text, and `segments` says which: 0 for `text`,
   * 1 for `pair`, -1 for the tokens the template adds.
   * @param {string} text @param {{ addSpecialTokens?: boolean, pair?: string }} [options]
   */
  encode(text, options) {
    const { addSpecialTokens = true, pair } = checkKeys('tokenizer.encode', 'option', options, [
      'addSpecialTokens',
      'pair',
    ]);
    if (typeof text !== 'string') throw typeError('tokenizer.encode', `text must be a string, got ${describe(text)}`);
    if (pair !== undefined) return this.#encodePair(text, pair, addSpecialTokens);
    const e = this.#tokenizer.encode(text, { add_special_tokens: addSpecialTokens, return_token_type_ids: true });
    const special = e.ids.map((id) => this.#special.has(id));
    const offsets = this.#offsets(text, e.tokens, special);
    return { ids: e.ids.slice(), tokens: e.tokens.slice(), offsets, special, typeIds: typesOf(e) };
  }

  #offsets(text, tokens, special) {
    return this.#kind === 'bytes' ? this.#byteOffsets(text, tokens, special) : this.#textOffsets(text, tokens, special);
  }

  // The pair as the library joins it, and each text's tokens found in it (the template only
  // adds tokens around them), so that each span is measured in its own text. A ByteLevel
  // post_processor (GPT-2, Qwen) adds nothing: the library then drops the second text, where
  // Hugging Face's tokenizers put it after the first (types 0, then 1); so is it joined here.
  #encodePair(text, pair, addSpecialTokens) {
    if (typeof pair !== 'string')
      throw typeError('tokenizer.encode', `options.pair must be a string, got ${describe(pair)}`);
    const parts = [text, pair].map((t) => this.encode(t, { addSpecialTokens: false }));
    let e = this.#tokenizer.encode(text, {
      text_pair: pair,
      add_special_tokens: addSpecialTokens,
      return_token_type_ids: true,
    });
    if (this.#joinsNothing) {
      e = {
        ids: [...parts[0].ids, ...parts[1].ids],
        tokens: [...parts[0].tokens, ...parts[1].tokens],
        token_type_ids: [...parts[0].ids.map(() => 0), ...parts[1].ids.map(() => 1)],
      };
    }
    const starts = locate(e.ids, parts[0].ids, parts[1].ids);
    if (starts === null)
      throw rangeError(
        'tokenizer.encode',
        'this tokenizer.json does not join text pairs (its post_processor leaves the second text out)',
      );
    const special = e.ids.map((id) => this.#special.has(id));
    const offsets = e.ids.map(() => [-1, -1]);
    const segments = e.ids.map(() => -1);
    parts.forEach((part, s) =>
      part.offsets.forEach((span, i) => {
        offsets[starts[s] + i] = span;
        segments[starts[s] + i] = s;
      }),
    );
    return { ids: e.ids.slice(), tokens: e.tokens.slice(), offsets, special, typeIds: typesOf(e), segments };
  }

  /** Token ids → text. */
  decode(ids, options) {
    const { skipSpecialTokens = false } = checkKeys('tokenizer.decode', 'option', options, ['skipSpecialTokens']);
    const list = Array.from(ids);
    if (list.length === 0) return ''; // the library refuses an empty list
    return this.#tokenizer.decode(list, { skip_special_tokens: skipSpecialTokens });
  }

  /** The id of a token string, or undefined. */
  tokenToId(token) {
    return this.#tokenizer.token_to_id(token);
  }

  // Byte-level BPE covers every byte of the text in order: walk the UTF-8 bytes.
  #byteOffsets(text, tokens, special) {
    BYTE_DECODER ??= byteDecoder();
    const utf8 = new TextEncoder().encode(text);
    // UTF-8 byte index → UTF-16 index.
    const unit = new Int32Array(utf8.length + 1);
    for (let i = 0, b = 0; i < text.length; i++) {
      const code = text.codePointAt(i);
      const bytes = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      for (let k = 0; k < bytes; k++) unit[b + k] = i;
      b += bytes;
      if (code > 0xffff) i++;
    }
    unit[utf8.length] = text.length;
    let cursor = 0;
    return tokens.map((token, t) => {
      if (special[t]) return [-1, -1];
      const bytes = [...token].map((c) => BYTE_DECODER.get(c));
      if (bytes.some((b) => b === undefined)) return [-1, -1];
      const at = findBytes(utf8, bytes, cursor);
      if (at < 0) return [-1, -1];
      cursor = at + bytes.length;
      let start = at;
      while (start < cursor && utf8[start] === 0x20) start++; // trim the leading space, as HF's trim_offsets
      return [unit[start], unit[cursor]];
    });
  }

  // Other tokenizers: find each piece (without "##", "▁" as a space) in the folded text;
  // byte-fallback tokens (<0xE2><0x98><0x95>) together take the span of the character
  // their bytes spell.
  #textOffsets(text, tokens, special) {
    const { folded, origin } = fold(text);
    const offsets = tokens.map(() => [-1, -1]);
    let cursor = 0;
    let bytes = []; // [token index, byte] of the byte tokens not yet a whole character
    tokens.forEach((token, t) => {
      const byte = /^<0x([0-9A-Fa-f]{2})>$/.exec(token);
      if (byte) {
        bytes.push([t, parseInt(byte[1], 16)]);
        UTF8 ??= new TextDecoder('utf-8', { fatal: false }); // one for all: one per byte token took a quarter of encode's time
        const char = UTF8.decode(Uint8Array.from(bytes, (b) => b[1]));
        if (char.includes('\ufffd') && bytes.length < 4) return; // the character is not complete yet
        const piece = foldPiece(char);
        const at = folded.indexOf(piece, cursor);
        if (at >= 0 && !char.includes('\ufffd')) {
          cursor = at + piece.length;
          for (const [i] of bytes) offsets[i] = [origin[at], origin[cursor - 1] + 1];
        }
        bytes = [];
        return;
      }
      if (special[t] && token !== this.#unk) return;
      if (token === this.#unk) {
        // An unknown token stands for the next word.
        const match = /\S+?(?=[\s\p{P}]|$)|\p{P}/u.exec(folded.slice(cursor));
        if (!match) return;
        const start = cursor + match.index;
        cursor = start + match[0].length;
        offsets[t] = [origin[start], origin[cursor]];
        return;
      }
      let piece = token.startsWith(this.#prefix) && this.#prefix && t > 0 ? token.slice(this.#prefix.length) : token;
      piece = foldPiece(piece.replace(/▁/g, ' ')).trim();
      if (piece === '') return;
      const at = folded.indexOf(piece, cursor);
      if (at < 0) return;
      cursor = at + piece.length;
      offsets[t] = [origin[at], origin[cursor - 1] + 1];
    });
    return offsets;
  }
}

// The token types of a library encoding (all 0 when its post_processor gives none).
const typesOf = (e) =>
  Array.isArray(e.token_type_ids) && e.token_type_ids.length === e.ids.length
    ? e.token_type_ids.slice()
    : e.ids.map(() => 0);

// Where the ids `a`, then `b` after them, sit in `ids`: [start of a, start of b], or null.
function locate(ids, a, b) {
  const at = (list, i) => list.every((id, k) => ids[i + k] === id);
  for (let i = 0; i + a.length + b.length <= ids.length; i++) {
    if (!at(a, i)) continue;
    for (let j = i + a.length; j + b.length <= ids.length; j++) if (at(b, j)) return [i, j];
  }
  return null;
}

function findBytes(haystack, needle, from) {
  outer: for (let i = from; i + needle.length <= haystack.length; i++) {
    for (let k = 0; k < needle.length; k++) if (haystack[i + k] !== needle[k]) continue outer;
    return i;
  }
  return -1;
}

// The tokenizers crate's Digits pre-tokenizer splits at char::is_numeric (\p{N}: ٣, ३, ½ too);
// @huggingface/tokenizers' at \d, ASCII only. A Split on \p{N} (each digit, or each run) is
// what the crate does, and what llama.cpp does for SmolLM: the pre-tokenizer with every Digits
// so replaced (a copy; the file itself is not changed).
function withUnicodeDigits(pre) {
  if (pre === null || typeof pre !== 'object') return pre;
  if (pre.type === 'Digits') {
    const pattern = pre.individual_digits === true ? '\\p{N}' : '\\p{N}+';
    return { type: 'Split', pattern: { Regex: pattern }, behavior: 'Isolated', invert: false };
  }
  if (pre.type === 'Sequence' && Array.isArray(pre.pretokenizers))
    return { ...pre, pretokenizers: pre.pretokenizers.map(withUnicodeDigits) };
  return pre;
}

/**
 * Reads a tokenizer.json (text or parsed) and, optionally, tokenizer_config.json. The file is
 * checked first (tokenizer_safety.js): its patterns, the text its steps can add, its ids
 * against the vocabulary size the model declares.
 * @param {string} fn @param {string | object} json @param {object} [config]
 * @param {{ size: number, source: string }} [declared] e.g. { size: 50257, source: "config.json's vocab_size" }
 * @returns {Promise<TextTokenizer>}
 */
export async function loadTokenizer(fn, json, config = {}, declared = undefined) {
  let parsed = json;
  if (typeof json === 'string') {
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      throw rangeError(fn, `tokenizer.json is not valid JSON (${error.message})`);
    }
  }
  if (parsed === null || typeof parsed !== 'object' || typeof parsed.model !== 'object' || parsed.model === null) {
    throw rangeError(fn, 'tokenizer.json must be an object with a "model" (a Hugging Face tokenizers file)');
  }
  checkTokenizerJson(fn, parsed, declared);
  const { Tokenizer, WordPiece } = await loadLibrary();
  let tokenizer;
  try {
    const forLibrary =
      parsed.pre_tokenizer == null ? parsed : { ...parsed, pre_tokenizer: withUnicodeDigits(parsed.pre_tokenizer) };
    tokenizer = new Tokenizer(forLibrary, config ?? {});
  } catch (error) {
    throw rangeError(fn, `tokenizer.json could not be read: ${error.message}`, { cause: error });
  }
  if (WordPiece && tokenizer.model instanceof WordPiece) boundWordPiece(tokenizer.model);
  return new TextTokenizer(tokenizer, parsed);
}

// The library's get_vocab() gives a Map in some versions, an object in others.
function vocabularySize(tokenizer) {
  if (typeof tokenizer.get_vocab !== 'function') return undefined;
  const vocab = tokenizer.get_vocab();
  return vocab instanceof Map ? vocab.size : Object.keys(vocab).length;
}
