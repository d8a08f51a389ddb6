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
