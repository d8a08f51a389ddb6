// Learning a WordPiece vocabulary from a corpus and writing it as a Hugging Face
// tokenizer.json (BertNormalizer, BertPreTokenizer, WordPiece), the format every BERT on the
// Hub ships. Learning works as Hugging Face's WordPieceTrainer does: start from the
// characters ("c" at a word's start, "##c" inside it) and merge the most frequent adjacent
// pair until the vocabulary has the size asked for. Reading the file back (tokenizing) is
// @huggingface/tokenizers' job, through loadTokenizer: the same path real checkpoints take.
//
// Deterministic: ties between equally frequent pairs go to the pair whose merged string
// sorts first, so a corpus and options give the same file byte for byte everywhere.

/** The special tokens, with their fixed ids. */
export const SPECIAL_TOKENS = Object.freeze(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
const PREFIX = '##';
/**
 * Words longer than this (in characters) are one [UNK]: tokenizer.json's
 * max_input_chars_per_word, BERT's 100. Learning leaves them out too, since no piece learned
 * from them could be used, and a longer word would make learning and segmenting cost O(n²)
 * or more in its length (one 100 KB word stalled training for minutes).
 */
export const MAX_WORD_CHARS = 100;
const tooLong = (word) => word.length > MAX_WORD_CHARS && [...word].length > MAX_WORD_CHARS; // UTF-16 length first: cheap

// BertNormalizer (clean_text, handle_chinese_chars, lowercase with accents stripped).
function isControl(code) {
  if (code === 0x09 || code === 0x0a || code === 0x0d) return false;
  return /\p{Cc}|\p{Cf}/u.test(String.fromCodePoint(code));
}
const isWhitespace = (c) => /\s/u.test(c);
function isChinese(code) {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x20000 && code <= 0x2a6df) ||
    (code >= 0x2a700 && code <= 0x2b73f) ||
    (code >= 0x2b740 && code <= 0x2b81f) ||
    (code >= 0x2b820 && code <= 0x2ceaf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x2f800 && code <= 0x2fa1f)
  );
}
function isPunctuation(c) {
  const code = c.codePointAt(0);
  if (
    (code >= 33 && code <= 47) ||
    (code >= 58 && code <= 64) ||
    (code >= 91 && code <= 96) ||
    (code >= 123 && code <= 126)
  )
    return true;
  return /\p{P}/u.test(c);
}

/** text → the normalized text BertNormalizer gives (lowercased, accents stripped). */
export function normalize(text) {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0);
    if (code === 0 || code === 0xfffd || isControl(code)) continue;
    if (isWhitespace(c)) out += ' ';
    else if (isChinese(code)) out += ` ${c} `;
    else out += c;
  }
  return out
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase();
}

/** normalized text → words, as BertPreTokenizer splits it (whitespace; each punctuation mark alone). */
export function preTokenize(normalized) {
  const words = [];
  let word = '';
  for (const c of normalized) {
    if (isWhitespace(c)) {
      if (word) words.push(word);
      word = '';
    } else if (isPunctuation(c)) {
      if (word) words.push(word);
      words.push(c);
      word = '';
    } else {
      word += c;
    }
  }
  if (word) words.push(word);
  return words;
}

// A binary max-heap of [count, merged, left, right], by count, then merged string first.
class PairHeap {
  #items = [];
  static #before(a, b) {
    return a[0] > b[0] || (a[0] === b[0] && a[1] < b[1]);
  }
  get size() {
    return this.#items.length;
  }
  push(item) {
    const h = this.#items;
    h.push(item);
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!PairHeap.#before(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }
  pop() {
    const h = this.#items;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1,
          r = l + 1;
        let m = i;
        if (l < h.length && PairHeap.#before(h[l], h[m])) m = l;
        if (r < h.length && PairHeap.#before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}

const mergedOf = (left, right) => left + right.slice(PREFIX.length);

/**
 * Learns a WordPiece vocabulary.
 * @param {Iterable<string>} texts
 * @param {{ vocabSize?: number, minFrequency?: number, alphabetMinFrequency?: number }} [options]
 *   vocabSize: the vocabulary's size, special tokens included (default 4000);
 *   minFrequency: a pair is merged only if it occurs at least this often (default 2);
 *   alphabetMinFrequency: characters rarer than this are left out (they become [UNK]);
 *   singleContinuations: keep the one-character continuation pieces ("##q") in the
 *   vocabulary (Hugging Face's trainer does). Without them (false), a word that the learned
 *   pieces cannot spell becomes one [UNK] instead of a string of letters, so made-up and very
 *   rare words reach the model as "unknown" rather than as fragments of other words;
 *   minPieceWords: a piece that is not itself a word of the corpus stays only if the
 *   segmentations of at least this many different words use it (0: no pruning). A rare
 *   fragment learns the sentiment of the one word it spells, and would lend it to any
 *   made-up word that happens to contain it.
 * @returns {string[]} the vocabulary, by id
 */
export function learnVocabulary(
  texts,
  { vocabSize = 4000, minFrequency = 2, alphabetMinFrequency = 2, singleContinuations = true, minPieceWords = 0 } = {},
) {
  // Word frequencies (of the words WordPiece spells: a longer one is [UNK] whatever is learned).
  const counts = new Map();
  for (const text of texts)
    for (const word of preTokenize(normalize(text))) if (!tooLong(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const words = [...counts.keys()].sort(); // a fixed order: the result must not depend on insertion order
  // The alphabet: characters at a word's start and inside words, by frequency.
  const chars = new Map();
  for (const word of words) {
    const n = counts.get(word);
    [...word].forEach((c, i) => {
      const symbol = i === 0 ? c : PREFIX + c;
      chars.set(symbol, (chars.get(symbol) ?? 0) + n);
    });
  }
  const alphabet = [...chars]
    .filter(([, n]) => n >= alphabetMinFrequency)
    .map(([c]) => c)
    .sort();
  const vocab = [...SPECIAL_TOKENS, ...alphabet];
  const known = new Set(vocab);
  // Each word as its symbols; a word with a character outside the alphabet is left out.
  const pieces = [];
  const freq = [];
  for (const word of words) {
    const symbols = [...word].map((c, i) => (i === 0 ? c : PREFIX + c));
    if (symbols.length < 2 || !symbols.every((s) => known.has(s))) continue;
    pieces.push(symbols);
    freq.push(counts.get(word));
  }
  // Pair counts and where each pair occurs.
  const pairs = new Map(); // key → { count, left, right, words: Set }
  const keyOf = (l, r) => `${l} ${r}`;
  const add = (l, r, w, n) => {
    const key = keyOf(l, r);
    let p = pairs.get(key);
    if (!p) pairs.set(key, (p = { count: 0, left: l, right: r, words: new Set() }));
    p.count += n;
    p.words.add(w);
    return p;
  };
  pieces.forEach((s, w) => {
    for (let i = 0; i + 1 < s.length; i++) add(s[i], s[i + 1], w, freq[w]);
  });
  const heap = new PairHeap();
  for (const p of pairs.values()) heap.push([p.count, mergedOf(p.left, p.right), p.left, p.right]);
  const singles = singleContinuations ? 0 : alphabet.filter((c) => c.startsWith(PREFIX)).length;
  while (vocab.length < vocabSize + singles && heap.size > 0) {
    const [count, merged, left, right] = heap.pop();
    const p = pairs.get(keyOf(left, right));
    if (!p || p.count !== count) continue; // a stale entry
    if (count < minFrequency) break;
    if (!known.has(merged)) {
      vocab.push(merged);
      known.add(merged);
    }
    const touched = new Set();
    for (const w of [...p.words].sort((a, b) => a - b)) {
      const s = pieces[w];
      const n = freq[w];
      for (let i = 0; i + 1 < s.length; i++) pairs.get(keyOf(s[i], s[i + 1])).count -= n;
      const next = [];
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === left && s[i + 1] === right) {
          next.push(merged);
          i++;
        } else {
          next.push(s[i]);
        }
      }
      pieces[w] = next;
      for (let i = 0; i + 1 < next.length; i++) touched.add(add(next[i], next[i + 1], w, n));
      for (let i = 0; i + 1 < s.length; i++) touched.add(pairs.get(keyOf(s[i], s[i + 1])));
    }
    pairs.delete(keyOf(left, right));
    for (const q of touched) {
      if (q.left === left && q.right === right) continue;
      if (q.count > 0) heap.push([q.count, mergedOf(q.left, q.right), q.left, q.right]);
    }
  }
  let kept = singleContinuations
    ? vocab
    : vocab.filter((t) => !(t.startsWith(PREFIX) && [...t].length === PREFIX.length + 1));
  if (minPieceWords > 0) kept = prune(kept, words, minPieceWords);
  return kept;
}

const longestOf = (tokens) => {
  let longest = 0;
  for (const token of tokens) longest = Math.max(longest, token.length);
  return longest;
};

// WordPiece's greedy longest-match segmentation of one word, or null (the word is [UNK]:
// no pieces spell it, or it has more than MAX_WORD_CHARS characters). `longest`: the longest
// entry of `known` (UTF-16 units); no longer candidate can be one, so ends beyond it are not
// tried (else O(L³) per word of L characters).
export function segment(word, known, longest = longestOf(known)) {
  if (tooLong(word)) return null;
  const chars = [...word];
  const pieces = [];
  for (let start = 0; start < chars.length;) {
    let end = Math.min(chars.length, start + longest),
      piece = null;
    for (; end > start; end--) {
      const candidate = (start > 0 ? PREFIX : '') + chars.slice(start, end).join('');
      if (known.has(candidate)) {
        piece = candidate;
        break;
      }
    }
    if (piece === null) return null;
    pieces.push(piece);
    start = end;
  }
  return pieces;
}

// Drops the pieces that fewer than `min` words' segmentations use (words themselves stay),
// until none is left to drop.
function prune(vocab, words, min) {
  const isWord = new Set(words);
  let kept = vocab;
  for (let round = 0; round < 8; round++) {
    const known = new Set(kept);
    const longest = longestOf(known);
    const uses = new Map();
    for (const word of words)
      for (const piece of segment(word, known, longest) ?? []) uses.set(piece, (uses.get(piece) ?? 0) + 1);
    const next = kept.filter((t, id) => id < SPECIAL_TOKENS.length || isWord.has(t) || (uses.get(t) ?? 0) >= min);
    if (next.length === kept.length) break;
    kept = next;
  }
  return kept;
}

/**
 * A Hugging Face tokenizer.json for a WordPiece vocabulary (as BERT's uncased tokenizers are).
 * @param {string[]} vocab by id; the first entries are SPECIAL_TOKENS
 */
export function wordPieceTokenizerJson(vocab) {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: PREFIX, cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: PREFIX,
      max_input_chars_per_word: MAX_WORD_CHARS,
      vocab: Object.fromEntries(vocab.map((token, id) => [token, id])),
    },
  };
}

/**
 * Text → ids with a WordPiece vocabulary, exactly as @huggingface/tokenizers reads the
 * tokenizer.json above (tests/text-tokenizer.test.js compares the two id for id). Training
 * uses it where that library cannot be imported: a Worker that a bundler builds as one
 * classic script cannot load a chunk, and a module Worker does not see the page's import map.
 */
export class WordPieceEncoder {
  #ids;
  #known;
  #longest;
  #cache = new Map();

  /** @param {string[]} vocab by id */
  constructor(vocab) {
    this.#ids = new Map(vocab.map((t, i) => [t, i]));
    this.#known = new Set(vocab);
    this.#longest = longestOf(vocab);
    this.unk = this.#ids.get('[UNK]');
  }

  /** @param {string} text @returns {number[]} */
  encode(text) {
    const out = [];
    for (const word of preTokenize(normalize(text))) {
      let ids = this.#cache.get(word);
      if (ids === undefined) {
        const pieces = segment(word, this.#known, this.#longest);
        ids = pieces === null ? [this.unk] : pieces.map((p) => this.#ids.get(p));
        if (this.#cache.size < 200_000) this.#cache.set(word, ids);
      }
      out.push(...ids);
    }
    return out;
  }
}
