// The sentence that explains a repeated token's mark. The views name a token that occurs more
// than once by its position, counted from 1 as the rows and columns are read ("was·4", [CLS]
// included: model-views.js's positionedLabels); this says so in words under the view.
import { positionedLabels } from './model-views.js';

/**
 * The sentence that explains the marks of positionedLabels(names), or '' when no name repeats:
 * "A repeated token carries its position, counted from 1: was·4 is the “was” at position 4."
 * @param {string[]} names
 */
export function positionNote(names) {
  const labels = positionedLabels(names);
  const i = labels.findIndex((label, j) => label !== names[j]);
  if (i < 0) return '';
  return `A repeated token carries its position, counted from 1: ${labels[i]} is the “${names[i]}” at position ${i + 1}.`;
}
