// Toy tasks for a per-token transformer, small enough to learn in seconds in a browser tab,
// each with a pattern of attention a learner can see form: copy (every position looks at
// itself), reverse (position t looks at L−1−t), sort (each output position counts what is
// smaller), and induction (a causal model completes "A B … A" with B by looking at the token
// after the earlier A). No DOM, no Node APIs.
import { seededRandom } from '../../../bindings/js/parameters.js';

// The package's one mulberry32 (seeded numbers in [0, 1)), as the tasks' callers import it.
export { seededRandom };

const digit = (random, n = 10) => Math.floor(random() * n);
const digits = (random, length) => Array.from({ length }, () => digit(random));

// A task: { name, title, description, vocabSize, length, causal, example, makeBatch, tokenLabel }.
// makeBatch(random, batchSize) -> { tokens: number[][], targets: number[][] } (target −1: not scored).
function digitTask(name, title, description, target) {
  return Object.freeze({
    name,
    title,
    description,
    vocabSize: 10,
    length: 8,
    causal: false,
    example: [3, 1, 4, 1, 5, 9, 2, 6],
    target,
    makeBatch(random, batchSize) {
      const tokens = Array.from({ length: batchSize }, () => digits(random, this.length));
      return { tokens, targets: tokens.map(target) };
    },
    tokenLabel: (id) => String(id),
  });
}

// Induction: L tokens from 1..9 (0 is never drawn, so it can mark nothing); token A at position
// i is followed by B, A appears nowhere else until the last position, which repeats A: the
// target there is B. A causal model must find the earlier A and copy what came next.
const INDUCTION_LENGTH = 12;
function inductionSequence(random) {
  const L = INDUCTION_LENGTH;
  const a = 1 + digit(random, 9);
  let b = 1 + digit(random, 9);
  if (b === a) b = (b % 9) + 1;
  const other = () => {
    let x = 1 + digit(random, 9);
    while (x === a) x = 1 + digit(random, 9);
    return x;
  };
  const tokens = Array.from({ length: L }, other);
  const i = digit(random, L - 3); // A at i, B at i + 1, both before the last position
  tokens[i] = a;
  tokens[i + 1] = b;
  tokens[L - 1] = a;
  const targets = new Array(L).fill(-1);
  targets[L - 1] = b;
  return { tokens, targets };
}

/** The tasks, by name. */
export const TASKS = Object.freeze({
  copy: digitTask('copy', 'Copy', 'Output each digit as it is: every position only needs to look at itself.', (t) =>
    t.slice(),
  ),
  reverse: digitTask(
    'reverse',
    'Reverse',
    'Output the digits in reverse order: position t must look at position L − 1 − t (positions counted from 0, L of them).',
    (t) => t.slice().reverse(),
  ),
  sort: digitTask(
    'sort',
    'Sort digits',
    'Output the digits sorted: each position must work out which digit belongs there from all of them.',
    (t) => t.slice().sort((x, y) => x - y),
  ),
  induction: Object.freeze({
    name: 'induction',
    title: 'Induction',
    description:
      'After token A, predict what followed A last time: the last position repeats an earlier A, and its answer is the token that came after it (a causal model; only that position is scored).',
    vocabSize: 10,
    length: INDUCTION_LENGTH,
    causal: true,
    example: [4, 7, 2, 8, 3, 9, 5, 6, 1, 2, 5, 3],
    makeBatch(random, batchSize) {
      const rows = Array.from({ length: batchSize }, () => inductionSequence(random));
      return { tokens: rows.map((r) => r.tokens), targets: rows.map((r) => r.targets) };
    },
    tokenLabel: (id) => String(id),
  }),
});

/** A fixed evaluation set: `count` sequences of a task from their own seed. */
export function makeHeldOut(task, seed = 999, count = 256) {
  return task.makeBatch(seededRandom(seed), count);
}
