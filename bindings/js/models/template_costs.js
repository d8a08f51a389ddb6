// What one chat-template operation would make, known before it runs (template_sandbox.js asks
// before each operation that can make much more than it was given: a replace, a join, an
// indent, tojson, a value written out, a sort). Each function returns a bound on the
// characters (or, for a sort, the work) the operation takes, counting only until the bound
// passes `cap`: past it the answer is some number above `cap`, reached after at most `cap`
// steps of its own, so that asking is never the expensive part.
//
// Values are @huggingface/jinja's runtime values ({ type, value }): StringValue,
// IntegerValue, FloatValue, BooleanValue, NullValue, UndefinedValue, ArrayValue (TupleValue),
// ObjectValue (a Map), NamespaceValue (a Map).

const CONTAINERS = new Set(['ArrayValue', 'TupleValue', 'ObjectValue', 'KeywordArgumentsValue', 'NamespaceValue']);
const MAX_NESTING = 256; // deeper values (or a list that holds itself) are refused as too large

// JSON.stringify's text of a string: 2 quotes, 2 characters for \" \\ \b \f \n \r \t, 6 for
// other controls (and, with ensureAscii, for every non-ASCII character). The scan runs only
// when the string could pass the cap at 6 characters each.
const ESCAPED_TWO = /["\\\b\f\n\r\t]/g;
const ESCAPED_SIX = /[\x00-\x07\x0b\x0e-\x1f]/g;
const NON_ASCII = /[\x7f-\uffff]/g;
const count = (text, pattern) => {
  let n = 0;
  for (const _ of text.matchAll(pattern)) n++;
  return n;
};
function jsonStringLength(text, ensureAscii, cap) {
  const worst = 2 + 6 * text.length;
  if (worst <= cap) return worst;
  const six = count(text, ESCAPED_SIX) + (ensureAscii ? count(text, NON_ASCII) : 0);
  return 2 + text.length + count(text, ESCAPED_TWO) + 5 * six;
}

/**
 * A bound on the length of the library's toJSON(value, { indent, ensureAscii, separators }):
 * the text of `tojson`, of `string` on a list, and of a list or dict written out.
 * @param {{ type: string, value: unknown }} value @param {{ indent?: number | null, ensureAscii?: boolean, separators?: string[] | null }} options
 * @param {number} cap
 */
export function jsonLength(value, { indent = null, ensureAscii = false, separators = null }, cap) {
  const width = indent ? Math.max(0, indent) : 0;
  const [item, key] = separators ?? (indent ? [',', ': '] : [', ', ': ']);
  let total = 0;
  const walk = (v, depth) => {
    if (total > cap) return;
    if (depth > MAX_NESTING) {
      total = Infinity;
      return;
    }
    if (v.type === 'StringValue') total += jsonStringLength(v.value, ensureAscii, cap - total);
    else if (!CONTAINERS.has(v.type))
      total += String(v.value).length + 9; // 'undefined', -1.5e-300
    else {
      const entries = v.type === 'ArrayValue' || v.type === 'TupleValue' ? v.value : [...v.value.entries()];
      // brackets, separators, and with an indent a newline and depth + 1 indents before each
      total += 2 + entries.length * (item.length + (width > 0 ? 1 + (depth + 1) * width : 0)) + width * depth + 1;
      for (const entry of entries) {
        if (total > cap) return;
        if (Array.isArray(entry)) {
          total += jsonStringLength(entry[0], ensureAscii, cap - total) + key.length;
          walk(entry[1], depth + 1);
        } else walk(entry, depth + 1);
      }
    }
  };
  walk(value, 0);
  return total;
}

/**
 * A bound on the text a value is written out as ({{ value }}, `~`, `+` with a string, join):
 * a string as it is, a number as its digits, a list or dict as JSON.
 */
export function textLength(value, cap) {
  if (value.type === 'StringValue') return value.value.length;
  if (CONTAINERS.has(value.type)) return jsonLength(value, {}, cap);
  return String(value.value).length + 9;
}

/**
 * text.replace(old, replacement) with at most `limit` replacements (null: all): how many it
 * makes (each a call of the library's replacer: ~70 ns) and the length of its result.
 */
export function replaceCost(text, old, replacement, limit) {
  const most = limit === null || limit < 0 ? Infinity : limit;
  let found = 0;
  if (old === '') found = text.length + 1;
  else for (let at = text.indexOf(old); at !== -1 && found < most; at = text.indexOf(old, at + old.length)) found++;
  const replacements = Math.min(found, most);
  return { replacements, length: text.length + replacements * (replacement.length - old.length) };
}

/** The items text.split(separator) makes (null: runs of non-space). */
export function splitCount(text, separator) {
  if (separator === null) return count(text, /\S+/g);
  if (separator === '') return 0; // the library refuses it
  let n = 1;
  for (let at = text.indexOf(separator); at !== -1; at = text.indexOf(separator, at + separator.length)) n++;
  return n;
}

/** A bound on the length of text|indent(width): at most every line gains `width` spaces. */
export function indentLength(text, width) {
  return text.length + Math.max(0, width) * splitCount(text, '\n');
}

/** The length of items|join(separator): a string's characters, or a list's items written out. */
export function joinLength(operand, separatorLength, cap) {
  if (operand.type === 'StringValue') return operand.value.length * (1 + separatorLength);
  let total = Math.max(0, operand.value.length - 1) * separatorLength;
  for (const item of operand.value) {
    if (total > cap) break;
    total += textLength(item, cap - total);
  }
  return total;
}

/**
 * The work of list|sort: comparisons (n·log2 n), each counted as 1 + the characters it
 * compares / 16 (the default, case_sensitive=false, lower-cases both strings of every
 * comparison: ~240 ns a comparison of 7-character words here).
 */
export function sortWork(items) {
  const n = items.length;
  if (n < 2) return 0;
  let chars = 0;
  for (const item of items) if (item?.type === 'StringValue') chars += item.value.length;
  return n * Math.log2(n) * (1 + (2 * chars) / n / 16);
}
