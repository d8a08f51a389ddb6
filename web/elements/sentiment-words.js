// <attention-sentiment>'s words, apart from its view: the examples' names, the last stage's
// title and caption by classifier format, how the attention leads to the verdict, and the
// classifier's data set and accuracy in a reader's words. Plain functions and tables, no DOM.
import { formatNumber } from './format.js';

// An example's name in the list, marked when the classifier gets it wrong.
export const exampleName = ([gold, text], i, wrong) =>
  `${wrong ? 'The model gets this wrong: ' : ''}${i < 4 ? `IMDB review ${i + 1} from the course slides (${gold})` : `“${text}”`}`;

export const percent = (x) => `${formatNumber(100 * x, 1)}%`;

// This package's classifiers put a [CLS] before the text: a vector of their own (learned, no
// row of the embedding table), the query whose last-layer row is classified.
export const CLS_NOTE =
  'added before the text; its index picks no row of the embedding table: the classifier reads its own learned [CLS] vector (the first row in stage 4)';
/** How many of the words [CLS] attends to most are listed under its table. */
export const MOST_ATTENDED = 5;

// The indices of the `count` largest values, largest first.
export const topIndices = (values, count) =>
  Array.from(values.keys())
    .sort((a, b) => values[b] - values[a])
    .slice(0, count);

// The last stage, by classifier format: what turns the last layer into probabilities.
export const HEAD_TITLES = {
  'attention-wasm': '6. [CLS] → linear & softmax',
  'hugging-face': "6. [CLS] → the checkpoint's classification head & softmax",
  'linear-probe': '6. Mean of the last layer → linear & softmax (a linear probe)',
};
export const HEAD_CAPTIONS = {
  'attention-wasm': 'The [CLS] row of the last layer, through a linear layer (logits) and softmax (probabilities)',
  'hugging-face':
    "The first token's row of the last layer, through the checkpoint's classification head (its dense layers: logits) and softmax (probabilities)",
  'linear-probe':
    "The encoder's last layer pooled into one vector, through the probe's linear layer (logits) and softmax (probabilities)",
};
// How the attention shown leads to the verdict, by classifier format (c: its modelConfig).
export const VERDICT_PATHS = {
  'attention-wasm': (c) =>
    `How attention leads to the verdict: the [CLS] query's weights (its row in stage 5) decide how much of each token's vector flows into the [CLS] row. That row of the last layer (layer ${c.numLayers - 1}), ${c.dModel} numbers, is the pooled vector: a linear layer turns it into one logit per label, and the softmax below turns the logits into probabilities.`,
  'hugging-face': (c) =>
    `How attention leads to the verdict: the first token's weights (its row in stage 5) decide how much of each token's vector flows into its row. That row of the last layer (layer ${c.numLayers - 1}), ${c.dModel} numbers, is the pooled vector: the checkpoint's classification head turns it into one logit per label, and the softmax below turns the logits into probabilities.`,
  'linear-probe': (c) =>
    `How attention leads to the verdict: each layer's weights (stage 5) mix the tokens' vectors; the last layer's ${c.dModel} numbers per token are averaged into one vector, the probe's linear layer turns it into one logit per label, and the softmax below turns the logits into probabilities.`,
};
/** The data set, its licence and the accuracy as measured (config.json's metrics), in words. */
export function describeClassifier(classifier) {
  const m = classifier.metrics;
  const parts = [];
  if (m?.heldOut) {
    parts.push(
      `Trained on ${classifier.training?.examples?.toLocaleString('en-US') ?? 'the'} real review sentences from the UCI “Sentiment Labelled Sentences” set (Kotzias et al., KDD 2015; CC BY 4.0: IMDB, Amazon and Yelp). `,
    );
    parts.push(
      `Right on held-out sentences it never trained on: ${Object.entries(m.heldOut)
        .map(([s, r]) => `${s} ${percent(r.accuracy)} of ${r.count}`)
        .join(', ')}. `,
    );
    if (m.crossSource)
      parts.push(
        `Trained without one source, on all of that source: ${Object.entries(m.crossSource)
          .map(([s, r]) => `${s} ${percent(r.accuracy)}`)
          .join(', ')}. `,
      );
    if (m.negationSuite)
      parts.push(
        `On ${m.negationSuite.count} hand-written negation and contrast sentences: ${percent(m.negationSuite.accuracy)}. `,
      );
    const all = Object.values(m.heldOut);
    const wrong = all.reduce((s, r) => s + (1 - r.accuracy) * r.count, 0) / all.reduce((s, r) => s + r.count, 0);
    parts.push(
      `Word vectors start from GloVe (PDDL); a VADER lexicon (MIT) adds sentiment words. A small model: it is wrong about ${percent(wrong)} of held-out sentences.`,
    );
  } else if (classifier.format !== 'attention-wasm') {
    const c = classifier.modelConfig;
    const what =
      classifier.format === 'linear-probe'
        ? `A linear probe (a softmax layer on the pooled last layer) on a pretrained ${c.modelType} encoder`
        : `A pretrained ${c.modelType} sequence classifier`;
    parts.push(
      `${what}: ${c.numLayers} layers of ${c.numHeads} heads, ${c.dModel} numbers per token, ${classifier.vocabSize.toLocaleString('en-US')} tokens; labels ${classifier.labels.join(', ')}.`,
    );
  } else {
    parts.push(`A classifier with ${classifier.vocabSize} tokens and labels ${classifier.labels.join(', ')}.`);
  }
  return parts.join('');
}
