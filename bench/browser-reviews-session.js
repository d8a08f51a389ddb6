// The review classifier's training and inference time in Chromium (bench/reviews.html, run
// by bench/browser.js): the shipped recipe on the shipped data with 1 or 2 threads, on the
// page's main thread (the element trains in a Worker with a single-threaded build; this
// measures what threads add), then predict() per held-out sentence.
import { init } from 'attention-wasm';
import {
  REVIEW_OPTIONS,
  reviewSplits,
  lexiconOption,
  LABELS,
  SOURCES,
} from '../web/elements/training/review-recipe.js';
import { readWordVectors } from '../bindings/js/text/word_vectors.js';

const DATA = new URL('../web/elements/models/review-sentiment/training/', import.meta.url);
const get = async (name, bytes = false) => {
  const response = await fetch(new URL(name, DATA));
  return bytes ? new Uint8Array(await response.arrayBuffer()) : response.text();
};

window.runReviews = async (threads) => {
  const attn = await init({ threads });
  const uci = Object.fromEntries(
    await Promise.all(Object.entries(SOURCES).map(async ([source, name]) => [source, await get(name)])),
  );
  const [lexicon, vectors] = await Promise.all([get('vader-lexicon.tsv'), get('word-vectors.safetensors', true)]);
  const { train, heldOut } = reviewSplits(uci);
  console.log(`progress: reviews in Chromium: training with ${attn.info.threads} thread(s), ${attn.info.build} build`);
  const started = performance.now();
  const files = await attn.TextClassifier.trainFiles(train, {
    ...REVIEW_OPTIONS,
    labels: LABELS.slice(),
    lexicon: lexiconOption(lexicon),
    wordVectors: readWordVectors(vectors),
  });
  const seconds = (performance.now() - started) / 1000;
  const classifier = await attn.TextClassifier.load(files);
  const sentences = Object.values(heldOut).flat();
  const accuracy = classifier.evaluate(sentences).accuracy;
  for (const s of sentences.slice(0, 50)) classifier.predict(s.text);
  const t0 = performance.now();
  for (const s of sentences) classifier.predict(s.text);
  const perSentence = (performance.now() - t0) / sentences.length;
  classifier.dispose();
  return { threads: attn.info.threads, build: attn.info.build, seconds, perSentence, accuracy };
};
document.body.dataset.ready = 'true';
