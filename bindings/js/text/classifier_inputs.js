// What a classifier's runner reads for a text: token ids (and token types), cut to the
// model's length, with the tokens predict shows. Two readers, one per format:
//   ShippedInputs  an attention-wasm classifier: its WordPiece tokens after the [CLS] row
//                  (the runner's word row V), at most maxLen tokens; one text.
//   HubInputs      a Hugging Face checkpoint: its tokenizer.json's own special tokens and
//                  token types (the post_processor template), a text or a text pair, at most
//                  the model's positions; a longer input loses its last tokens as Hugging
//                  Face's tokenizers cut them ('longest_first', longestFirst below).
// Each gives input(fn, text, pair) → { ids, typeIds (or null), tokens, truncated } and
// ids(text) → ids (evaluate's batches).
import { rangeError } from '../errors.js';

export class ShippedInputs {
  #tokenizer;
  #encoder;
  #clsRow;
  #maxLength;

  /**
   * @param {TextTokenizer} tokenizer @param {WordPieceEncoder} encoder the same vocabulary, in JS
   *   (evaluate's batches) @param {number} clsRow the [CLS] row's id (V) @param {number} maxLength
   */
  constructor(tokenizer, encoder, clsRow, maxLength) {
    this.#tokenizer = tokenizer;
    this.#encoder = encoder;
    this.#clsRow = clsRow;
    this.#maxLength = maxLength;
  }

  input(fn, text, pair) {
    if (pair !== undefined)
      throw rangeError(
        fn,
        'this classifier reads one text (an attention-wasm classifier); a text pair needs a Hugging Face pair classifier',
      );
    const e = this.#tokenizer.encode(text, { addSpecialTokens: false });
    const n = Math.min(e.ids.length, this.#maxLength);
    const unk = this.#encoder.unk;
    const tokens = [{ text: '[CLS]', id: this.#tokenizer.tokenToId('[CLS]') ?? -1, start: -1, end: -1, special: true }];
    for (let i = 0; i < n; i++)
      tokens.push({ text: e.tokens[i], id: e.ids[i], start: e.offsets[i][0], end: e.offsets[i][1], special: false });
    // A text of no tokens reads as one [UNK].
    if (n === 0) tokens.push({ text: '[UNK]', id: unk, start: -1, end: -1, special: true });
    const ids = [this.#clsRow, ...tokens.slice(1).map((t) => t.id)];
    return { ids, typeIds: null, tokens, truncated: e.ids.length > n };
  }

  ids(text) {
    const ids = this.#encoder.encode(text).slice(0, this.#maxLength);
    return [this.#clsRow, ...(ids.length > 0 ? ids : [this.#encoder.unk])];
  }
}

export class HubInputs {
  #tokenizer;
  #maxLength;
  #types;

  /**
   * @param {TextTokenizer} tokenizer @param {number} maxLength the model's positions
   * @param {boolean} types whether the model reads token types (BERT's token_type_ids; RoBERTa's
   *   one type and DistilBERT's none are left at 0, as their tokenizers give none)
   */
  constructor(tokenizer, maxLength, types) {
    this.#tokenizer = tokenizer;
    this.#maxLength = maxLength;
    this.#types = types;
  }

  input(fn, text, pair) {
    const e = pair === undefined ? this.#tokenizer.encode(text) : this.#tokenizer.encode(text, { pair });
    const keep = e.ids.length <= this.#maxLength ? e.ids.map((_, i) => i) : this.#kept(fn, text, e);
    const tokens = keep.map((i) => {
      const token = {
        text: e.tokens[i],
        id: e.ids[i],
        start: e.offsets[i][0],
        end: e.offsets[i][1],
        special: e.special[i],
      };
      if (pair !== undefined) token.segment = e.segments[i];
      return token;
    });
    return {
      ids: tokens.map((t) => t.id),
      typeIds: this.#types ? keep.map((i) => e.typeIds[i]) : null,
      tokens,
      truncated: keep.length < e.ids.length,
    };
  }

  ids(text) {
    const e = this.#tokenizer.encode(text);
    return e.ids.length <= this.#maxLength
      ? e.ids
      : this.#kept('TextClassifier.evaluate', text, e).map((i) => e.ids[i]);
  }

  // The indices of the tokens kept: every token the template adds, and the first tokens of
  // each text, as many as longestFirst allows.
  #kept(fn, text, e) {
    const segments = e.segments ?? this.#segmentsOf(text, e);
    const lengths = [0, 1].map((s) => segments.filter((x) => x === s).length);
    const budget = this.#maxLength - (segments.length - lengths[0] - lengths[1]);
    if (budget < 1)
      throw rangeError(fn, `the tokenizer's special tokens alone fill the model's ${this.#maxLength} positions`);
    const count = longestFirst(lengths, budget);
    const seen = [0, 0];
    return segments.flatMap((s, i) => (s < 0 || seen[s]++ < count[s] ? [i] : []));
  }

  // One text's segments: 0 where its tokens sit in the encoding, -1 for the template's.
  #segmentsOf(text, e) {
    const own = this.#tokenizer.encode(text, { addSpecialTokens: false }).ids;
    let start = 0;
    while (start + own.length <= e.ids.length && own.some((id, k) => e.ids[start + k] !== id)) start++;
    return e.ids.map((_, i) => (i >= start && i < start + own.length ? 0 : -1));
  }
}

/**
 * How many tokens of each text fit `budget`, as Hugging Face tokenizers' LongestFirst cuts a
 * pair (its truncation code, "ported from the legacy truncation code, verbatim"): the shorter
 * text stays whole when the longer keeps at least as many, else each gets half the budget
 * (the odd one to the second of the two by length).
 *   lengths: [first, second] (second 0 for one text) → [kept, kept]
 */
export function longestFirst([a, b], budget) {
  if (a + b <= budget) return [a, b];
  if (b === 0) return [budget, 0];
  let [short, long] = a > b ? [b, a] : [a, b];
  long = short > budget ? short : Math.max(short, budget - short);
  if (short + long > budget) {
    short = Math.floor(budget / 2);
    long = short + (budget % 2);
  }
  return a > b ? [long, short] : [short, long];
}
