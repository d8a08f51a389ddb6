// Training a text classifier (TinyTransformer with a [CLS] head) on token ids, with the
// augmentations that make a small model read real text: no DOM, no Node APIs, deterministic
// for a seed (the same steps give the same bits in Node, a page and a Worker of one build).
//
// Each batch mixes real examples with generated ones, in these proportions (options):
//   wordDropout  each token of a real example is dropped with this probability;
//   unkRate      each remaining token becomes [UNK] with this probability, so [UNK] (an unseen
//                word) carries no sentiment of its own;
//   contrastRate "A, but B" (and "although A, B") from two real examples of different
//                labels, labelled as B: the clause after "but" decides;
//   concatRate   2-4 real examples of one label in a row, so that long, many-sentence
//                reviews look like something the model has seen;
//   lexiconRate  one word of a sentiment lexicon, or "not"/"never" + the word (label flipped);
//   junkRate     unknown and made-up words: [UNK]s or made-up words alone, in pairs labelled
//                both ways (so the model learns 0.5 for them), or made-up words inserted
//                into a real example (which keeps its label).
import { seededRandom } from '../parameters.js';
import { rangeError } from '../errors.js';

/** The default recipe (the shipped review classifier's; see scripts/train-review-classifier.mjs). */
export const DEFAULT_RECIPE = Object.freeze({
  steps: 1500,
  batchSize: 32,
  lr: 2e-3,
  warmup: 100,
  weightDecay: 0.1,
  clipNorm: 1,
  wordDropout: 0.2,
  unkRate: 0.05,
  contrastRate: 0.1,
  lexiconRate: 0.25,
  junkRate: 0.08,
  concatRate: 0.1,
  seed: 7,
});

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The example stream: a function that returns the next { ids, label }.
 * @param {{ ids: number[], label: number }[]} train encoded real examples (ids without specials)
 * @param {object} r the recipe
 * @param {{ encode: (text: string) => number[], unk: number, lexicon: { ids: number[], label: number }[] }} tools
 */
export function exampleStream(train, r, { encode, unk, lexicon, maxLen, numClasses, fragments = null }) {
  const random = seededRandom(r.seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  // A made-up word (3-9 random letters), new each time, so no particular one is learned.
  // With `fragments` ({ starts, continuations }: ids of pieces that are not words), half of
  // them are spelled from pieces instead, as a rare or made-up word reaches the model.
  const letters = () =>
    encode(Array.from({ length: 3 + Math.floor(random() * 7) }, () => LETTERS[Math.floor(random() * 26)]).join(''));
  const spelled = () => [
    pick(fragments.starts),
    ...Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(fragments.continuations)),
  ];
  const junkWord = () => (fragments && random() < 0.5 ? spelled() : letters());
  const but = encode(', but'),
    although = encode('although'),
    comma = encode(',');
  const negations = ['not', 'never', 'no', "don't", "didn't", 'not at all'].map(encode);
  const byLabel = groupByLabel(train, numClasses);
  const twoLabels = byLabel.filter((list) => list.length > 0).length >= 2;
  const fit = (ids) => ids.slice(0, maxLen);
  let pending = null; // the second half of a junk pair
  const corrupt = (ids) => {
    const kept = ids.filter(() => random() >= r.wordDropout);
    const out = kept.length > 0 ? kept : ids.slice();
    return out.map((id) => (random() < r.unkRate ? unk : id));
  };
  return () => {
    if (pending) {
      const next = pending;
      pending = null;
      return next;
    }
    const u = random();
    let t = r.junkRate;
    if (u < t) {
      const kind = random();
      if (kind < 0.7) {
        // A pair, labelled two ways: unknown words only ([UNK] × n), or made-up words.
        // Short texts most often: a lone [UNK] must not read like a lone lexicon word.
        const n = 1 + Math.floor(random() ** 2 * 8);
        const ids = fit(kind < 0.4 ? Array.from({ length: n }, () => unk) : Array.from({ length: n }, junkWord).flat());
        const label = Math.floor(random() * numClasses);
        pending = { ids, label: (label + 1 + Math.floor(random() * (numClasses - 1))) % numClasses };
        return { ids, label };
      }
      const e = pick(train);
      const ids = e.ids.slice();
      const n = 1 + Math.floor(random() * 3);
      for (let i = 0; i < n; i++) ids.splice(Math.floor(random() * (ids.length + 1)), 0, ...junkWord());
      return { ids: fit(ids), label: e.label };
    }
    t += r.lexiconRate;
    if (u < t && lexicon.length > 0) {
      const w = pick(lexicon);
      if (numClasses === 2 && random() < 0.5) return { ids: fit([...pick(negations), ...w.ids]), label: 1 - w.label };
      return { ids: w.ids, label: w.label };
    }
    t += r.concatRate;
    if (u < t) {
      // A longer text: 2-4 real examples with the same label, one after the other.
      const first = pick(train);
      const same = byLabel[first.label];
      const ids = [...first.ids];
      const n = 1 + Math.floor(random() * 3);
      for (let i = 0; i < n; i++) ids.push(...pick(same).ids);
      return { ids: fit(corrupt(ids)), label: first.label };
    }
    t += r.contrastRate;
    if (u < t && twoLabels) {
      const a = pick(train);
      let b = pick(train);
      for (let i = 0; i < 8 && b.label === a.label; i++) b = pick(train);
      if (b.label !== a.label) {
        const ids = random() < 0.7 ? [...a.ids, ...but, ...b.ids] : [...although, ...a.ids, ...comma, ...b.ids];
        return { ids: fit(corrupt(ids)), label: b.label };
      }
    }
    const e = pick(train);
    return { ids: fit(corrupt(e.ids)), label: e.label };
  };
}

// The examples of each label, in corpus order: one pass (filtering once per label took
// 15-20 s for 60,000 labels).
function groupByLabel(train, numClasses) {
  const byLabel = Array.from({ length: numClasses }, () => []);
  for (const e of train) byLabel[e.label].push(e);
  return byLabel;
}

/** Examples → a padded batch { tokens [B][L], targets [B], lengths [B] } for TinyTransformer. */
export function toBatch(examples) {
  let L = 1; // a loop, not Math.max(...lengths): a spread of a large batch overflows the stack
  for (const e of examples) L = Math.max(L, e.ids.length);
  return {
    tokens: examples.map((e) => Array.from({ length: L }, (_, i) => e.ids[i] ?? 0)),
    targets: examples.map((e) => e.label),
    lengths: examples.map((e) => Math.max(1, e.ids.length)),
  };
}

/** The learning rate at a step: linear warm-up, then cosine decay to 0. */
export function learningRate(r, step) {
  return (
    r.lr *
    Math.min(1, step / Math.max(1, r.warmup)) *
    (0.5 + 0.5 * Math.cos((Math.PI * Math.min(step, r.steps)) / r.steps))
  );
}

/** Accuracy of `model` on encoded examples (empty sequences read as one [UNK]). */
export function accuracyOf(model, examples, unk, batchSize = 64) {
  if (examples.length === 0) return NaN;
  let correct = 0;
  for (let i = 0; i < examples.length; i += batchSize) {
    const chunk = examples.slice(i, i + batchSize).map((e) => (e.ids.length > 0 ? e : { ids: [unk], label: e.label }));
    correct += Math.round(model.evaluate(toBatch(chunk)).accuracy * chunk.length);
  }
  return correct / examples.length;
}

/**
 * Trains step by step: a generator yielding { step, steps, loss, done } after every `every`
 * steps (and the last), so callers can report progress and stop between chunks. A step whose
 * loss is not finite stops training with a RangeError naming `fn` and the step: the weights
 * are then NaN or on their way there (too high a learning rate), and every prediction
 * would be NaN.
 */
export function* trainSteps(model, next, r, every = 50, fn = 'TextClassifier.train') {
  let loss = 0,
    count = 0;
  for (let step = 1; step <= r.steps; step++) {
    const batch = toBatch(Array.from({ length: r.batchSize }, next));
    const lr = learningRate(r, step);
    const result = stepOrExplain(fn, model, batch, { lr, weightDecay: r.weightDecay, clipNorm: r.clipNorm }, step);
    if (!Number.isFinite(result.loss)) {
      throw rangeError(
        fn,
        `training diverged: the loss at step ${step} of ${r.steps} is ${result.loss} (options.lr is ${r.lr}: lower it)`,
      );
    }
    loss += result.loss;
    count++;
    if (step % every === 0 || step === r.steps) {
      yield { step, steps: r.steps, loss: loss / count, done: step === r.steps };
      loss = 0;
      count = 0;
    }
  }
}

// One train step; a batch the wasm heap cannot hold is a RangeError naming `fn`, the step and
// the options that size it (the core's own message names TinyTransformer.trainStep).
function stepOrExplain(fn, model, batch, options, step) {
  try {
    return model.trainStep(batch, options);
  } catch (error) {
    if (!(error instanceof RangeError) || !/wasm (heap|memory)/.test(error.message)) throw error;
    const L = batch.tokens[0].length;
    throw rangeError(
      fn,
      `step ${step}: a batch of ${batch.tokens.length} texts of ${L} tokens does not fit the wasm heap (${error.message}); lower options.batchSize or options.maxLen`,
      { cause: error },
    );
  }
}
