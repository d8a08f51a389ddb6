// Long texts are tokenized only as far as a limit needs: a 1 MB text took forward 3.4 s and
// 530 MB of tokens only to be refused as 800,002 tokens against 64 positions, and embed of
// twenty such texts 40 s before it truncated each to its max_seq_length. Both now encode a
// start of the text that is just long enough to decide.
//
// Why a start decides: every tokenizer the library runs splits its text at white space before
// its model sees it (a pre-tokenizer's split, Metaspace's ▁, WordPiece's words), so the tokens
// of a start cut at white space are the whole text's first tokens, but for the last few words
// before the cut; MARGIN tokens past the limit cover those.
import { rangeError } from '../errors.js';

export const MARGIN = 16;
const FIRST_CHARACTERS = 4096; // the first start tried (then doubled), at least 8 per token

// `text` cut at or before `n`, at white space when there is some in the last 1,024 characters
// (never inside a surrogate pair).
function cutAt(text, n) {
  const window = text.slice(Math.max(0, n - 1024), n);
  const space = window.search(/\s\S*$/);
  let end = space > 0 ? n - window.length + space : n;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--;
  return text.slice(0, end);
}

/**
 * The shortest start of `text` (doubling from a few thousand characters) whose tokens number
 * at least `limit` + MARGIN, and that count; or the whole text (count null) when no start does.
 * @param {{ encode: Function }} tokenizer @param {string} text @param {number} limit
 */
export function startFor(tokenizer, text, limit) {
  for (let n = Math.max(FIRST_CHARACTERS, 8 * limit); n < text.length; n *= 2) {
    const start = cutAt(text, n);
    const count = tokenizer.encode(start, { addSpecialTokens: false }).ids.length;
    if (count >= limit + MARGIN) return { text: start, count };
  }
  return { text, count: null };
}

/**
 * Throws a RangeError when `text` has more than `limit` tokens, having encoded only a start of
 * it; `what` names the text ('the prompt', 'texts[2]').
 */
export function checkTextFits(fn, tokenizer, text, limit, what) {
  const start = startFor(tokenizer, text, limit);
  if (start.count === null) return;
  throw rangeError(
    fn,
    `${what} has more than ${limit} tokens (its first ${start.text.length} of ${text.length} characters already make ${start.count}); this model takes at most ${limit} (max positions)`,
  );
}
