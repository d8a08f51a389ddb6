// How sure a classifier is, in words a learner reads beside the number (issue 35): the
// probability of the label shown, against fixed thresholds. The shipped review classifier's
// probabilities are calibrated (temperature scaling, its config.json's `calibration`), so on
// its held-out sentences "confident" answers are right about as often as they claim.
//   p ≥ 0.9 confident · 0.7 ≤ p < 0.9 fairly sure · 0.55 ≤ p < 0.7 unsure · p < 0.55 a coin toss

/** [lowest probability, words], highest first. */
export const CONFIDENCE_WORDS = Object.freeze([
  [0.9, 'confident'],
  [0.7, 'fairly sure'],
  [0.55, 'unsure'],
  [0, 'a coin toss'],
]);

/** The words for the probability p of the label shown. */
export function confidenceWords(p) {
  return CONFIDENCE_WORDS.find(([lowest]) => p >= lowest)[1];
}

/** The words for p with the band they stand for: "fairly sure: 0.7 ≤ p < 0.9". */
export function confidenceBand(p) {
  const at = CONFIDENCE_WORDS.findIndex(([lowest]) => p >= lowest);
  const [lowest, words] = CONFIDENCE_WORDS[at];
  const below = at > 0 ? CONFIDENCE_WORDS[at - 1][0] : null;
  const band = below === null ? `p ≥ ${lowest}` : lowest === 0 ? `p < ${below}` : `${lowest} ≤ p < ${below}`;
  return `${words}: ${band}`;
}
