// Typed errors whose message starts with the public function's name:
//   attention: k has 8 columns but q has 16 (dk must match)

/** @param {string} fn @param {string} message */
export function typeError(fn, message) {
  return new TypeError(`${fn}: ${message}`);
}

/** @param {string} fn @param {string} message @param {ErrorOptions} [options] */
export function rangeError(fn, message, options) {
  return new RangeError(`${fn}: ${message}`, options);
}

/** Describes a value for an error message: its type, or its class for objects. */
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) {
    const kind = Object.prototype.toString.call(value).slice(8, -1);
    return `${/^[AEIO]/.test(kind) ? 'an' : 'a'} ${kind}`; // an Int32Array, a Uint8Array
  }
  if (typeof value === 'object') return `an object (${className(value)})`;
  if (typeof value === 'function') return 'a function';
  const text = String(value);
  return `a ${typeof value} (${text.length > 40 ? `${text.slice(0, 40)}…` : text})`;
}

// The constructor's name, without running a caller's getters or proxy traps.
function className(value) {
  try {
    return Object.prototype.toString.call(value).slice(8, -1);
  } catch {
    return 'Object';
  }
}

/** A value as it reads in a message: numbers and strings as they are, anything else described. */
export function show(value) {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  return describe(value);
}

/**
 * The name in `known` closest to a misspelled `name`, for "did you mean …?", or null when
 * none is close: at most one edit per three letters (insertions, deletions, substitutions
 * and swaps of two neighbours count one each; case is ignored), so 'casual' suggests
 * 'causal' and 'stepz' 'steps', while 'learningRate' suggests nothing.
 */
export function closestName(name, known) {
  const budget = Math.max(1, Math.floor(name.length / 3));
  let best = null,
    bestDistance = budget + 1;
  for (const candidate of known) {
    if (Math.abs(candidate.length - name.length) > budget) continue; // too far apart, and a long key costs nothing
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

// Optimal string alignment distance (Levenshtein with swaps of neighbours), by rows.
function editDistance(a, b) {
  let before = null,
    previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (before && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j], before[j - 2] + 1);
    }
    [before, previous] = [previous, row];
  }
  return previous[b.length];
}
