// The numeric examples of the course material (its file 001, "Transformer Insight", slides
// 24-45), as ../shared/worked-examples.md restates them. Inputs only; every result on the
// page is computed by the library. `slides` holds what the slides print (rounded to 2
// decimals), shown beside the exact numbers.

export const WEIGHTS = {
  W_Q: [
    [-0.35, 0.51, 0.5],
    [0.36, -0.47, -0.29],
    [-0.51, -0.14, -0.56],
  ],
  W_K: [
    [-0.49, -0.68, 0.18],
    [-0.44, -0.46, 0.18],
    [0.07, -0.1, 0.44],
  ],
  W_V: [
    [-0.41, 0.39, -0.65],
    [-0.4, -0.07, -0.34],
    [-0.55, -0.13, -0.29],
  ],
  W_O: [
    [-0.36, -0.08, 0.32],
    [0.27, 0.05, 0.15],
    [-0.05, -0.28, 0.05],
  ],
};

const X1 = [[-0.1, 0.1, 0.3]];
const X2 = [
  [-0.1, 0.1, 0.3],
  [0.4, -1.1, -0.3],
];
const C = [
  [-0.6, 0.3, -0.4],
  [0.5, 0.9, -0.5],
];

export const EXAMPLES = [
  {
    id: 'ex1',
    title: '1. Self-attention, one token',
    text: 'One token attends to itself. The softmax of a single score is 1, so the output A is V itself.',
    X: X1,
    slides: {
      Q: [[-0.08, -0.14, -0.24]],
      K: [[0.02, -0.01, 0.13]],
      V: [[-0.16, -0.08, -0.05]],
      scaledScores: [[-0.0198]],
    },
    slips: [
      "The slides print Q's last entry as -0.24; X·W_Q gives -0.247 (truncated, not rounded).",
      "The slides' last line repeats V where Y = A·W_O belongs; Y is computed here.",
    ],
  },
  {
    id: 'ex2',
    title: '2. Self-attention, two tokens',
    text: 'Two tokens; each row of the weights says how much of each value row the token takes.',
    X: X2,
    slides: {
      scaledScores: [
        [-0.019, 0.002],
        [0.043, -0.046],
      ],
      weights: [
        [0.49, 0.51],
        [0.52, 0.48],
      ],
      A: [
        [0.14, 0.09, 0.07],
        [0.12, 0.08, 0.06],
      ],
      Y: [
        [-0.029, -0.028, 0.065],
        [-0.025, -0.025, 0.058],
      ],
    },
    slips: [
      "The slides print V's second row as [-0.02 -0.02 0.05]; X·W_V gives [0.441 0.272 0.201], which their later numbers use.",
    ],
  },
  {
    id: 'ex3',
    title: '3. Masked self-attention',
    text: 'The mask M = [[0, −∞], [0, 0]] is added to the scaled scores: token 0 may not look at token 1.',
    X: X2,
    mask: [
      [0, -Infinity],
      [0, 0],
    ],
    slides: {
      weights: [
        [1.0, 0.0],
        [0.52, 0.48],
      ],
      A: [
        [-0.16, -0.08, -0.05],
        [0.12, 0.08, 0.06],
      ],
      Y: [
        [0.03, 0.02, -0.06],
        [-0.02, -0.02, 0.05],
      ],
    },
    slips: [],
  },
  {
    id: 'ex4',
    title: '4. Cross-attention',
    text: 'Queries come from the decoder side C; keys and values from the encoder output X.',
    X: X2,
    C,
    slides: {
      Q: [
        [0.52, -0.39, -0.16],
        [0.4, -0.09, 0.27],
      ],
      weights: [
        [0.49, 0.51],
        [0.51, 0.49],
      ],
      A: [
        [0.15, 0.1, 0.07],
        [0.13, 0.09, 0.07],
      ],
      Y: [
        [-0.0305, -0.0296, 0.0677],
        [-0.0281, -0.0277, 0.063],
      ],
    },
    slips: [
      'The slides round every intermediate to 2 decimals, so their Y differs from the exact result in the third decimal.',
    ],
  },
];

export const SLIDE_NOTES = [
  'The slides write "sigmoid" in the formula; every number they compute is a softmax, as here.',
];

/** Where the examples come from, in a reader's words (no file or seed number a reader lacks). */
export const EXAMPLE_SOURCE = 'the “Transformer Insight” course slides (AI VIETNAM, 2023)';

/**
 * What worked example `n` (1-4) is, said inline for a reader who has not seen the slides:
 * its tokens, their features, one head, and weights that are the slides' made-up numbers.
 */
export function exampleWords(n) {
  const ex = EXAMPLES[n - 1];
  const name = ex.title.replace(/^\d+\.\s*/, '').toLowerCase();
  const d = ex.X[0].length;
  const tokens = ex.C
    ? `${ex.C.length} queries from a decoder side C, ${ex.X.length} keys and values from an encoder side X`
    : `${ex.X.length} token${ex.X.length > 1 ? 's' : ''}`;
  const size = name.includes('token') ? '' : `, ${tokens}`;
  return `${name}${size}, ${d} features a token, one head; W_Q, W_K, W_V and W_O are the slides' made-up numbers, not trained; from ${EXAMPLE_SOURCE}`;
}

/**
 * The caption of a view of worked example `n`'s attention (1-4): which example it is, what
 * the view's axes are (`axes`: "rows are queries, columns keys") and whether a query attends
 * to a later key (`seesLater`, read from the weights or mask shown): example 2 does, which a
 * decoder never may, so the view says it is an encoder's (bidirectional) attention.
 */
export function exampleCaption(n, seesLater, axes = 'rows are queries, columns keys') {
  const ex = EXAMPLES[n - 1];
  const head = `The course's worked example ${n} (${exampleWords(n)}): ${axes}.`;
  if (ex.C)
    return `${head} Cross-attention: each query from the decoder side C sees every key of the encoder output X; no causal mask applies.`;
  if (seesLater)
    return `${head} Not causal: a token also attends to a later token, as in an encoder (bidirectional attention, no mask); a decoder would block it with a causal mask${n === 3 ? '' : " (the course's example 3 does: the same two tokens, with that mask)"}.`;
  if (ex.X.length === 1) return `${head} One token only: it attends to itself.`;
  return `${head} Causal: no token attends to a later one (the mask M blocks it), as in a decoder.`;
}

/** Whether some query i attends to a later key j > i: weights [Lq][Lk] (or a mask: 0 = may attend). */
export function attendsLater(rows, allowed = (x) => x > 0) {
  return rows.some((row, i) => row.some((x, j) => j > i && allowed(x)));
}
