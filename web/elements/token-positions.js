// Token names a reader can tell apart on an axis: a name that occurs more than once carries
// its position ("was·4", "was·9"), counted from 1 as the rows and columns are read (the first
// token, [CLS] included, is 1); a name that occurs once stays as it is.

/** The separator between a repeated token's name and its position. */
const POSITION_MARK = '·';

/**
 * Names for the tokens of one axis, in order: repeated names with their 1-based position.
 *   names: [T] strings  →  [T] strings
 * @param {string[]} names
 * @returns {string[]}
 */
export function positionedLabels(names) {
  const counts = new Map();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return names.map((name, i) => (counts.get(name) > 1 ? `${name}${POSITION_MARK}${i + 1}` : name));
}

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
