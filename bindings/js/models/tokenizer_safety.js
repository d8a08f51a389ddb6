// What a tokenizer.json may make @huggingface/tokenizers do, checked before the library
// reads it (issue 32): the library runs on the page's thread and cannot be interrupted, so a
// file that makes it spin freezes the page. Three things a hostile file can do, bounded here:
//   - a pattern that backtracks (Split, Replace: ^(\w+\s?)*$ took > 30 s on a 14-word
//     sentence): every { "Regex": … } must have the linear shape regex_safety.js accepts;
//   - a Replace or Metaspace that multiplies the text (" " → "  " ten times in a Sequence
//     is 1024×): the product of their growths is at most MAX_GROWTH;
//   - an id far past the vocabulary (an added token with id 1e9 made the library build a
//     sparse array that get_vocab() walks for 32 s): every id is below the size the
//     caller declares (config.json's vocab_size), and never far past the entries listed.
// And one cost of the library's own algorithm, bounded without changing its result:
// WordPiece's search for the longest piece (boundWordPiece).
import { rangeError } from '../errors.js';
import { analyzePattern, MAX_PATTERN_LENGTH } from './regex_safety.js';

const MAX_ENTRIES = 4 * 1024 * 1024; // vocabulary entries (the largest Hub vocabularies hold ~262K)
const MAX_TOKEN_LENGTH = 256; // an added token's characters: the library's matcher walks up to this many per text position
const MAX_INSERT = 64; // characters a step inserts (Replace content, Prepend, Metaspace replacement)
const MAX_GROWTH = 8; // how many times over the normalizers and pre-tokenizers may make the text
const MAX_DEPTH = 16; // Sequences within Sequences
const ROOTS = ['normalizer', 'pre_tokenizer', 'decoder'];

const quote = (text) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

// One { "Regex" } or { "String" } pattern: refused, or its shortest match (for the growth bound).
function checkPattern(fn, pattern, path) {
  if (pattern === null || typeof pattern !== 'object') return 1; // the library refuses it
  if (pattern.Regex !== undefined) {
    if (typeof pattern.Regex !== 'string') throw rangeError(fn, `tokenizer.json: ${path}.Regex must be a string`);
    const { problem, minLength } = analyzePattern(pattern.Regex);
    if (problem)
      throw rangeError(
        fn,
        `tokenizer.json: ${path}.Regex ${quote(pattern.Regex)} is refused: ${problem}. A pattern that backtracks would freeze the page; this package accepts the linear shape tokenizers' patterns have`,
      );
    return minLength;
  }
  if (typeof pattern.String === 'string') {
    // a literal: no backtracking, only its length to bound
    if (pattern.String.length > MAX_PATTERN_LENGTH)
      throw rangeError(
        fn,
        `tokenizer.json: ${path}.String is ${pattern.String.length} characters long (at most ${MAX_PATTERN_LENGTH})`,
      );
    return pattern.String.length;
  }
  return 1;
}

function checkInsert(fn, text, path) {
  if (typeof text === 'string' && text.length > MAX_INSERT)
    throw rangeError(fn, `tokenizer.json: ${path} is ${text.length} characters long (at most ${MAX_INSERT})`);
  return typeof text === 'string' ? text.length : 0;
}

// Walks one step (a Sequence's steps too); returns how many times over it can make the text.
function checkStep(fn, step, path, depth) {
  if (step === null || typeof step !== 'object') return 1;
  if (depth > MAX_DEPTH) throw rangeError(fn, `tokenizer.json: ${path} nests Sequences more than ${MAX_DEPTH} deep`);
  let growth = 1;
  for (const [key, value] of Object.entries(step)) {
    if (Array.isArray(value))
      value.forEach((inner, i) => {
        growth *= checkStep(fn, inner, `${path}.${key}[${i}]`, depth + 1);
      });
  }
  if (step.pattern !== undefined) {
    const shortest = checkPattern(fn, step.pattern, `${path}.pattern`);
    const content = checkInsert(fn, step.content, `${path}.content`);
    if (step.type === 'Replace' && content > 0 && shortest === 0) {
      throw rangeError(
        fn,
        `tokenizer.json: ${path} replaces a pattern that matches the empty string, inserting ${quote(step.content)} at every position`,
      );
    }
    if (step.type === 'Replace' && shortest > 0) growth *= Math.max(1, content / shortest);
  }
  if (step.type === 'Metaspace') growth *= Math.max(1, checkInsert(fn, step.replacement, `${path}.replacement`));
  if (step.type === 'Prepend') checkInsert(fn, step.prepend, `${path}.prepend`);
  return growth;
}

function checkSteps(fn, json) {
  const growth = {};
  for (const root of ROOTS) growth[root] = checkStep(fn, json[root], root, 0);
  const text = growth.normalizer * growth.pre_tokenizer;
  if (text > MAX_GROWTH || growth.decoder > MAX_GROWTH) {
    throw rangeError(
      fn,
      `tokenizer.json: its Replace and Metaspace steps can make the ${text > MAX_GROWTH ? 'text' : 'decoded text'} ${Math.round(Math.max(text, growth.decoder))} times longer (at most ${MAX_GROWTH})`,
    );
  }
}

// Every id in [0, limit): the caller's declared size (config.json's vocab_size), and at most
// twice the tokens the file lists. Real files number their tokens densely from 0 (the
// added ones after the vocabulary's or among them), so twice leaves room for gaps while the
// arrays the library indexes by id stay within twice the file's own size.
function checkIds(fn, json, declared) {
  const vocab = json.model.vocab;
  const added = Array.isArray(json.added_tokens) ? json.added_tokens : [];
  // One pass over the vocabulary (150K entries: ~80 ms): its size, its largest id, the first
  // id that is not a whole number. Tokens are named (quoted) only when refused.
  let entries = 0;
  let largest = { id: -1, name: () => '' };
  let bad = null;
  if (Array.isArray(vocab)) {
    entries = vocab.length; // Unigram: a piece's id is its index
    largest = {
      id: entries - 1,
      name: () => `model.vocab[${entries - 1}] (${quote(String(vocab[entries - 1]?.[0]))})`,
    };
  } else if (vocab !== null && typeof vocab === 'object') {
    let largestToken = '';
    for (const token in vocab) {
      if (++entries > MAX_ENTRIES) break; // refused below
      const id = vocab[token];
      if (!Number.isInteger(id) || id < 0) {
        bad ??= { id, name: () => `model.vocab token ${quote(token)}` };
      } else if (id > largest.id) {
        largest.id = id;
        largestToken = token;
      }
    }
    if (largest.id >= 0) largest.name = () => `model.vocab token ${quote(largestToken)}`;
  }
  if (entries > MAX_ENTRIES || added.length > MAX_ENTRIES) {
    throw rangeError(
      fn,
      `tokenizer.json: ${entries > MAX_ENTRIES ? 'model.vocab' : 'added_tokens'} has more than ${MAX_ENTRIES} entries`,
    );
  }
  added.forEach((token, i) => {
    if (token === null || typeof token !== 'object')
      throw rangeError(fn, `tokenizer.json: added_tokens[${i}] must be an object`);
    const what = `added token ${typeof token.content === 'string' ? quote(token.content) : `added_tokens[${i}]`}`;
    if (typeof token.content === 'string' && token.content.length > MAX_TOKEN_LENGTH) {
      throw rangeError(
        fn,
        `tokenizer.json: ${what} is ${token.content.length} characters long (at most ${MAX_TOKEN_LENGTH})`,
      );
    }
    if (!Number.isInteger(token.id) || token.id < 0) bad ??= { id: token.id, name: () => what };
    else if (token.id > largest.id) largest = { id: token.id, name: () => what };
  });
  const dense = 2 * (entries + added.length);
  const [limit, why] =
    declared !== undefined && declared.size <= dense
      ? [declared.size, declared.source]
      : [dense, `twice the ${entries + added.length} tokens tokenizer.json lists: ids must be dense`];
  const wrong = bad ?? (largest.id >= limit ? largest : null);
  if (wrong) {
    const id = typeof wrong.id === 'number' ? String(wrong.id) : (JSON.stringify(wrong.id) ?? 'undefined');
    throw rangeError(
      fn,
      `tokenizer.json: ${wrong.name()} has id ${id}; ids must be integers in [0, ${limit}) (${why})`,
    );
  }
}

/**
 * Refuses a tokenizer.json that would make the library spin (see above), with a RangeError
 * naming the file, the place in it and what is wrong.
 * @param {string} fn @param {object} json parsed, with a "model" object
 * @param {{ size: number, source: string }} [declared] the vocabulary size the model declares
 */
export function checkTokenizerJson(fn, json, declared) {
  checkIds(fn, json, declared);
  checkSteps(fn, json);
}

/**
 * Bounds WordPiece's search for the longest piece: the library tries every end of a word
 * from its last character down, building each candidate (O(L³) per word of L characters:
 * 0.9 s for 10 KB of 100-letter words with BERT's single letters and ##letters); no candidate
 * longer than the longest token can be one, so trying ends from start + longest down gives
 * the same pieces (the same loop as the library's WordPiece.encode otherwise).
 * @param {object} model the library's WordPiece model (tokens_to_ids, config, unk_token)
 */
export function boundWordPiece(model) {
  let longest = 0;
  for (const token of model.tokens_to_ids.keys()) longest = Math.max(longest, token.length); // UTF-16 units ≥ characters
  model.encode = function encode(tokens) {
    const output = [];
    for (const token of tokens) {
      const chars = [...token];
      if (chars.length > this.max_input_chars_per_word) {
        output.push(this.unk_token);
        continue;
      }
      const pieces = [];
      let start = 0;
      while (start < chars.length) {
        let end = Math.min(chars.length, start + longest);
        let piece = null;
        for (; end > start; end--) {
          const candidate = (start > 0 ? this.config.continuing_subword_prefix : '') + chars.slice(start, end).join('');
          if (this.tokens_to_ids.has(candidate)) {
            piece = candidate;
            break;
          }
        }
        if (piece === null) break;
        pieces.push(piece);
        start = end;
      }
      if (start < chars.length) output.push(this.unk_token);
      else output.push(...pieces);
    }
    return output;
  };
}
