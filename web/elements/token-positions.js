// The sentence that explains a repeated token's mark. The views name a token that occurs more
// than once by its position, counted from 0 as the API's arrays are ("was·3", [CLS]
// included: model-views.js's positionedLabels); this says so in words under the view.
import { positionedLabels } from './model-views.js';

/** The one sentence on numbering, as the views count (the API's arrays: attentions[layer][head]). */
export const COUNTING = 'Layers, heads, positions and dimensions count from 0, as in attentions[layer][head].';

/**
 * The sentence that explains the marks of positionedLabels(names), or '' when no name repeats:
 * "A repeated token carries its position, counted from 0: was·3 is the “was” at position 3."
 * @param {string[]} names
 */
export function positionNote(names) {
  const labels = positionedLabels(names);
  const i = labels.findIndex((label, j) => label !== names[j]);
  if (i < 0) return '';
  return `A repeated token carries its position, counted from 0: ${labels[i]} is the “${names[i]}” at position ${i}.`;
}
