// A small labelled corpus of short movie-review sentences, generated from templates, standing
// in for IMDB (which the course's classifier uses and which cannot be downloaded here). It is
// synthetic: every sentence and label comes from the rules below, so a model trained on it
// learns those rules (sentiment words, intensifiers, negation, "but"), not real reviews.
// Labels: 0 negative, 1 positive. No DOM, no Node APIs: usable in pages, Workers and Node.

const SUBJECTS = ['the movie', 'this film', 'the acting', 'the plot', 'the story', 'the soundtrack', 'the ending',
  'the cast', 'the script', 'the dialogue', 'the director', 'the characters', 'the music', 'the pacing'];
const VERBS = ['was', 'is', 'felt', 'seemed', 'looked', 'sounded'];
const POSITIVE = ['good', 'great', 'wonderful', 'brilliant', 'fun', 'moving', 'excellent', 'amazing', 'superb',
  'enjoyable', 'beautiful', 'clever', 'charming', 'funny', 'touching'];
const NEGATIVE = ['bad', 'awful', 'boring', 'dull', 'terrible', 'weak', 'poor', 'horrible', 'bland', 'painful',
  'messy', 'forgettable', 'silly', 'slow', 'predictable'];
const INTENSIFIERS = ['very', 'really', 'so', 'truly', 'quite', 'extremely', 'incredibly'];
const NEGATIONS = ['not', 'never', 'hardly'];
const LIKE = ['loved', 'liked', 'enjoyed', 'adored'];
const DISLIKE = ['hated', 'disliked'];
const LIKE_BASE = ['like', 'enjoy', 'love'];
const DISLIKE_BASE = ['hate', 'dislike'];
const NOUNS = ['movie', 'film', 'story', 'show'];
const OPENERS = ['honestly', 'overall', 'frankly', 'in the end', 'to be fair', 'sadly', 'luckily'];

/** How the corpus is made, in plain words (shown next to the demo). */
export const TEMPLATES_DESCRIPTION = 'Synthetic corpus, not IMDB: short review sentences generated from templates ' +
  '("the plot was very dull", "i did not enjoy this film", "the acting was not bad", "truly awful film", "the story was slow but the ending was moving"), ' +
  `with ${POSITIVE.length} positive and ${NEGATIVE.length} negative words, intensifiers, negations that flip the label ` +
  '("not good" is negative, "not bad" positive), and contrasts whose label follows the clause after "but". ' +
  'The model learns these rules, nothing about real reviews.';

/** Every word the corpus uses, after `<pad>` (id 0) and `<unk>` (id 1). */
export const VOCABULARY = Object.freeze(['<pad>', '<unk>', ...new Set([
  ...SUBJECTS.flatMap((s) => s.split(' ')), ...VERBS, ...POSITIVE, ...NEGATIVE, ...INTENSIFIERS, ...NEGATIONS,
  ...LIKE, ...DISLIKE, ...LIKE_BASE, ...DISLIKE_BASE, ...NOUNS, ...OPENERS.flatMap((s) => s.split(' ')),
  'but', 'i', 'did', 'this', 'and', 'it',
])]);

const ID = new Map(VOCABULARY.map((w, i) => [w, i]));

/**
 * Lower-cases, splits "didn't" into "did not", drops punctuation, and maps words to ids
 * (unknown words to `<unk>`).
 * @returns {{ ids: number[], words: string[], unknown: string[] }}
 */
export function tokenize(text) {
  const words = String(text).toLowerCase().replace(/n['’]t\b/g, ' not').replace(/[^a-z\s]/g, ' ').split(/\s+/).filter(Boolean);
  const unknown = [...new Set(words.filter((w) => !ID.has(w)))];
  return { ids: words.map((w) => ID.get(w) ?? 1), words, unknown };
}

// A seeded generator (mulberry32): the same corpus for the same seed everywhere.
function generator(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One clause and its polarity (+1 positive, −1 negative), from a random template.
function clause(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const positive = random() < 0.5;
  const intensifier = random() < 0.35 ? `${pick(INTENSIFIERS)} ` : '';
  const negated = random() < 0.3;
  if (random() < 0.1) {
    // "[very] <adjective> <noun>", or the adjective alone: "truly awful film", "great"
    const text = `${intensifier}${pick(positive ? POSITIVE : NEGATIVE)}${random() < 0.7 ? ` ${pick(NOUNS)}` : ''}`;
    return { text, polarity: positive ? 1 : -1 };
  }
  if (random() < 0.75) {
    // "<subject> <verb> [not] [very] <adjective>"
    const adjective = pick(positive ? POSITIVE : NEGATIVE);
    const text = `${pick(SUBJECTS)} ${pick(VERBS)} ${negated ? `${pick(NEGATIONS)} ` : ''}${intensifier}${adjective}`;
    return { text, polarity: (positive ? 1 : -1) * (negated ? -1 : 1) };
  }
  // "i loved this film" / "i did not enjoy this movie" / "i really hated it"
  const object = random() < 0.8 ? `this ${pick(NOUNS)}` : 'it';
  const text = negated ? `i did not ${pick(positive ? LIKE_BASE : DISLIKE_BASE)} ${object}`
    : `i ${intensifier}${pick(positive ? LIKE : DISLIKE)} ${object}`;
  return { text, polarity: (positive ? 1 : -1) * (negated ? -1 : 1) };
}

// One sentence: a clause, a clause "but" a clause (the label follows the second), or an
// opener before a clause.
function sentence(random) {
  const r = random();
  if (r < 0.25) {
    const first = clause(random), second = clause(random);
    return { text: `${first.text} but ${second.text}`, label: second.polarity > 0 ? 1 : 0 };
  }
  const one = clause(random);
  const opener = r < 0.4 ? `${OPENERS[Math.floor(random() * OPENERS.length)]} ` : '';
  return { text: `${opener}${one.text}`, label: one.polarity > 0 ? 1 : 0 };
}

/** `count` distinct labelled sentences for a seed: [{ text, label }]. */
export function makeCorpus(seed, count) {
  const random = generator(seed);
  const seen = new Set();
  const out = [];
  for (let attempt = 0; out.length < count && attempt < count * 50; attempt++) {
    const s = sentence(random);
    if (seen.has(s.text)) continue;
    seen.add(s.text);
    out.push(s);
  }
  return out;
}

/** Every fifth sentence held out (texts are distinct, so the two sets share none). */
export function splitCorpus(examples) {
  return { train: examples.filter((_, i) => i % 5 !== 0), heldOut: examples.filter((_, i) => i % 5 === 0) };
}

/**
 * A classifier batch: tokens [B, L] padded with `<pad>` (0) to the longest sentence (at most
 * maxLen words; longer ones are cut), lengths [B] (at least 1), targets [B] (the labels).
 */
export function encodeBatch(examples, maxLen) {
  const ids = examples.map((e) => tokenize(e.text).ids.slice(0, maxLen));
  const L = Math.max(1, ...ids.map((row) => row.length));
  return {
    tokens: ids.map((row) => Array.from({ length: L }, (_, t) => row[t] ?? 0)),
    lengths: ids.map((row) => Math.max(1, row.length)),
    targets: examples.map((e) => e.label),
  };
}
