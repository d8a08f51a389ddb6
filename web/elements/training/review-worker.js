// A module Worker that trains the review classifier from scratch, off the page's main
// thread, with the shipped recipe (review-recipe.js) on the shipped data:
//   in:  { type: 'train', steps? }
//   out: { type: 'progress', step, steps, loss, accuracy, seconds } every 50 steps,
//        { type: 'done', files, seconds, accuracy, build } (files: TextClassifier.load reads
//        them; accuracy on the held-out sentences of the three sources), or { type: 'error', message }.
// Its own wasm instance (a single-threaded build: training/api.js).
import { init } from './api.js';
import { REVIEW_OPTIONS, reviewSplits, lexiconOption, LABELS } from './review-recipe.js';
import { readWordVectors } from '../../../bindings/js/text/word_vectors.js';

// Literal URLs, so bundlers copy the files.
const FILES = {
  imdb: new URL('../models/review-sentiment/training/imdb_labelled.txt', import.meta.url),
  amazon: new URL('../models/review-sentiment/training/amazon_cells_labelled.txt', import.meta.url),
  yelp: new URL('../models/review-sentiment/training/yelp_labelled.txt', import.meta.url),
  lexicon: new URL('../models/review-sentiment/training/vader-lexicon.tsv', import.meta.url),
  vectors: new URL('../models/review-sentiment/training/word-vectors.safetensors', import.meta.url),
};

async function get(url, as) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch ${url} (HTTP ${response.status})`);
  return as === 'bytes' ? new Uint8Array(await response.arrayBuffer()) : response.text();
}

let attn = null;

self.onmessage = async ({ data: message }) => {
  if (message?.type !== 'train') return;
  try {
    attn ??= await init();
    const [imdb, amazon, yelp, lexicon, vectors] = await Promise.all([
      get(FILES.imdb),
      get(FILES.amazon),
      get(FILES.yelp),
      get(FILES.lexicon),
      get(FILES.vectors, 'bytes'),
    ]);
    const { train, heldOut } = reviewSplits({ imdb, amazon, yelp });
    const started = performance.now();
    let accuracy = NaN;
    const files = await attn.TextClassifier.trainFiles(train, {
      ...REVIEW_OPTIONS,
      ...(message.steps ? { steps: message.steps } : {}),
      labels: LABELS.slice(),
      lexicon: lexiconOption(lexicon),
      wordVectors: readWordVectors(vectors),
      validation: Object.values(heldOut).flat(),
      every: 100,
      onProgress: (p) => {
        accuracy = p.accuracy;
        self.postMessage({ type: 'progress', ...p });
      },
    });
    const seconds = (performance.now() - started) / 1000;
    const weights = files['model.safetensors'];
    self.postMessage({ type: 'done', files, seconds, accuracy, build: attn.info.build }, [weights.buffer]);
  } catch (error) {
    self.postMessage({ type: 'error', message: String(error?.message ?? error) });
  }
};
