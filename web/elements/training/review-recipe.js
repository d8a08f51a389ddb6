// The review classifier's recipe: the data it learns from, its held-out splits, and the
// options of TextClassifier.train. One module for scripts/train-review-classifier.mjs (the
// shipped model), the page's "Train from scratch" Worker, the benchmark and the tests, so
// all of them train the same model. No DOM, no Node APIs.
//
// Data (models/review-sentiment/training/, see its DATA.md for sources and licences):
//   imdb_labelled.txt, amazon_cells_labelled.txt, yelp_labelled.txt  UCI "Sentiment Labelled
//       Sentences" (Kotzias et al., KDD 2015; CC BY 4.0): 1,000 real review sentences each
//   vader-lexicon.tsv     VADER's sentiment lexicon (Hutto & Gilbert 2014; MIT), words only
//   word-vectors.safetensors  GloVe 6B 100-d vectors (Pennington et al. 2014; PDDL) of the
//       vocabulary's words, projected on their 64 principal axes

import { seededRandom } from '../../../bindings/js/parameters.js';
import { readLexicon } from '../../../bindings/js/text/word_vectors.js';

/** The three sources, with their file names. */
export const SOURCES = Object.freeze({
  imdb: 'imdb_labelled.txt',
  amazon: 'amazon_cells_labelled.txt',
  yelp: 'yelp_labelled.txt',
});
export const LABELS = Object.freeze(['negative', 'positive']);
/** The held-out share of every source, and the seed of the split. */
export const HELD_OUT = 0.2;
export const SPLIT_SEED = 2026;

/** Options of TextClassifier.train beside the corpus, lexicon and vectors (the defaults of train_classifier.js and training.js otherwise). */
export const REVIEW_OPTIONS = Object.freeze({ seed: 7, steps: 1500 });

/** One UCI file (sentence<TAB>0|1 per line) → [{ text, label: 'negative' | 'positive' }]. */
export function readUciFile(text) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const tab = line.lastIndexOf('\t');
      return { text: line.slice(0, tab).trim(), label: LABELS[Number(line.slice(tab + 1).trim())] };
    });
}

/** Rows with each text once: repeats dropped, and texts labelled both ways dropped entirely. */
export function uniqueRows(rows) {
  const labels = new Map();
  for (const r of rows) labels.set(r.text, labels.has(r.text) && labels.get(r.text) !== r.label ? null : r.label);
  const seen = new Set();
  return rows.filter((r) => labels.get(r.text) !== null && !seen.has(r.text) && seen.add(r.text));
}

/**
 * A source's rows → { train, heldOut }: repeated sentences once (the UCI files repeat a few,
 * and a repeat must not sit on both sides), a seeded shuffle, the first HELD_OUT share held out.
 */
export function splitRows(rows, seed = SPLIT_SEED) {
  const next = seededRandom(seed); // mulberry32: the same split everywhere
  const shuffled = uniqueRows(rows);
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  const n = Math.round(rows.length * HELD_OUT);
  return { heldOut: shuffled.slice(0, n), train: shuffled.slice(n) };
}

/**
 * The training rows and held-out rows by source. `exclude` names a source left out of
 * training entirely (cross-source evaluation: all of its sentences are then held out).
 * @param {Record<string, string>} files the UCI files' texts by source
 */
export function reviewSplits(files, { exclude = null } = {}) {
  const train = [];
  const heldOut = {};
  for (const source of Object.keys(SOURCES)) {
    const rows = readUciFile(files[source]);
    if (source === exclude) {
      heldOut[source] = uniqueRows(rows);
      continue;
    }
    const split = splitRows(rows);
    train.push(...split.train);
    heldOut[source] = split.heldOut;
  }
  // No held-out sentence is a training sentence (sources share a few short ones).
  const trained = new Set(train.map((r) => r.text));
  for (const source of Object.keys(heldOut)) heldOut[source] = heldOut[source].filter((r) => !trained.has(r.text));
  return { train, heldOut };
}

/** The lexicon file (word<TAB>valence) → TextClassifier.train's lexicon option. */
export function lexiconOption(text) {
  return { entries: readLexicon(text), labels: LABELS.slice() };
}

/**
 * The example reviews as [gold label, text]: the four of seed 001 (IMDB, shortened as the
 * slides show them), then a few of our own, among them mistakes of the small shipped model
 * (the element marks the ones the classifier it shows gets wrong).
 */
export const EXAMPLES = Object.freeze([
  [
    'positive',
    'A wonderful little production. The filming technique is very unassuming- very old-time-BBC fashion and gives a comforting, and sometimes discomforting, sense of realism to the entire piece.',
  ],
  [
    'negative',
    "This show was an amazing, fresh & innovative idea in the 70's when it first aired. The first 7 or 8 years were brilliant, but things dropped off after that. By 1990, the show was not really funny anymore, and it's continued its decline further to the complete waste of time it is today.",
  ],
  [
    'positive',
    'I thought this was a wonderful way to spend time on a too hot summer weekend, sitting in the air conditioned theater and watching a light-hearted comedy. The plot is simplistic, but the dialogue is witty and the characters are likable (even the well bread suspected serial killer).',
  ],
  [
    'negative',
    "BTW Carver gets a very annoying sidekick who makes you wanna shoot him the first three minutes he's on screen.",
  ],
  ['positive', 'not bad at all'],
  ['negative', 'I would not recommend this film to anyone'],
  ['negative', 'The food was cold and the waiter ignored us.'],
  ['positive', 'the acting was not bad'],
  ['negative', 'The pasta arrived cold and the manager shrugged.'],
]);
