// A labelled text corpus as users bring it: TSV, CSV or JSONL text (or rows already parsed),
// read into { texts, labels (class ids), labelNames }. Errors name the function and the line.
//
//   TSV   text<TAB>label per line (the UCI "Sentiment Labelled Sentences" files); a header
//         line naming the columns is allowed, and the label is the last column.
//   CSV   RFC 4180 (quoted fields with "" escapes and line breaks); a header row names the
//         text column (text, review, sentence, content) and the label column (label,
//         sentiment, class, target, polarity); without one: text first, label last.
//   JSONL one object per line with a text field and a label field (same names as above).
import { typeError, rangeError, describe, show } from '../errors.js';

const TEXT_NAMES = ['text', 'review', 'sentence', 'content', 'document'];
const LABEL_NAMES = ['label', 'sentiment', 'class', 'target', 'polarity', 'score'];
const FORMATS = ['tsv', 'csv', 'jsonl'];
/**
 * The most labels a classifier takes. Training draws examples uniformly, so with the default
 * 1,500 steps of 32 each of 1,000 labels is seen about 48 times, and far fewer times past
 * that; evaluate's confusion matrix has labels² cells (a million here, 10^10 for 100,000
 * labels). A corpus with more distinct labels is most likely a wrong label column.
 */
export const MAX_LABELS = 1000;

// The format from the first line: JSONL starts with '{', TSV has a tab, CSV otherwise.
function sniff(text) {
  const first =
    text
      .slice(0, 4096)
      .split(/\r?\n/)
      .find((line) => line.trim() !== '') ?? '';
  if (first.trimStart().startsWith('{')) return 'jsonl';
  return first.includes('\t') ? 'tsv' : 'csv';
}

// CSV records with their first line numbers (1-based).
function csvRecords(fn, text) {
  const records = [];
  let record = [],
    field = '',
    quoted = false,
    line = 1,
    start = 1,
    i = 0,
    wasQuoted = false;
  const endField = () => {
    record.push(wasQuoted ? field : field.trim());
    field = '';
    wasQuoted = false;
  };
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"' && field.trim() === '') {
      quoted = true;
      wasQuoted = true;
      field = '';
    } else if (c === ',') {
      endField();
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endField();
      if (record.some((f) => f !== '')) records.push({ fields: record, line: start });
      record = [];
      line++;
      start = line;
    } else {
      field += c;
    }
  }
  if (quoted) throw rangeError(fn, `CSV line ${start}: a quoted field is not closed`);
  endField();
  if (record.some((f) => f !== '')) records.push({ fields: record, line: start });
  return records;
}

function tsvRecords(text) {
  return text
    .split(/\r?\n/)
    .map((line, i) => ({ fields: line.split('\t'), line: i + 1 }))
    .filter((r) => r.fields.some((f) => f.trim() !== ''));
}

// Which columns hold the text and the label: from a header row, or text first and label last.
function columns(fn, format, records) {
  const header = records[0].fields.map((f) => f.trim().toLowerCase());
  const text = header.findIndex((h) => TEXT_NAMES.includes(h));
  const label = header.findIndex((h) => LABEL_NAMES.includes(h));
  if (text >= 0 && label >= 0) return { text, label, skip: 1 };
  const width = records[0].fields.length;
  if (width < 2)
    throw rangeError(
      fn,
      `${format.toUpperCase()} line ${records[0].line}: expected a text and a label separated by ${format === 'tsv' ? 'a tab' : 'a comma'}, got one field`,
    );
  return { text: 0, label: -1, skip: 0 };
}

/**
 * Parses a corpus. `source` is the file's text, or an array of { text, label } rows.
 * @param {string} fn the public function's name, for errors
 * @param {string | Array<{ text: string, label: string | number }>} source
 * @param {{ format?: 'tsv' | 'csv' | 'jsonl', labels?: string[] }} [options] labels: the class
 *   names in id order (default: the labels found, numbers ascending, then names sorted);
 *   2 to MAX_LABELS of them, distinct
 * @returns {{ texts: string[], labels: Int32Array, labelNames: string[] }}
 */
export function parseCorpus(fn, source, { format, labels } = {}) {
  let rows; // [{ text, label (string), where (for errors) }]
  if (Array.isArray(source)) {
    rows = source.map((row, i) => {
      if (row === null || typeof row !== 'object')
        throw typeError(fn, `corpus[${i}] must be { text, label }, got ${describe(row)}`);
      return { text: row.text, label: row.label, where: `corpus[${i}]` };
    });
  } else if (typeof source === 'string') {
    const kind = format ?? sniff(source);
    if (!FORMATS.includes(kind))
      throw rangeError(fn, `format must be one of ${FORMATS.map((f) => `'${f}'`).join(', ')}, got ${describe(kind)}`);
    rows = kind === 'jsonl' ? jsonlRows(fn, source) : tableRows(fn, kind, source);
  } else {
    throw typeError(
      fn,
      `corpus must be the text of a TSV, CSV or JSONL file, or an array of { text, label }, got ${describe(source)}`,
    );
  }
  if (rows.length === 0) throw rangeError(fn, 'the corpus has no examples');
  for (const row of rows) {
    if (typeof row.text !== 'string')
      throw typeError(fn, `${row.where}: the text must be a string, got ${describe(row.text)}`);
    if (row.text.trim() === '') throw rangeError(fn, `${row.where}: the text is empty`);
    if (typeof row.label === 'number' && Number.isFinite(row.label)) row.label = String(row.label);
    if (typeof row.label !== 'string' || row.label.trim() === '')
      throw typeError(fn, `${row.where}: the label must be a string or a number, got ${describe(row.label)}`);
    row.label = row.label.trim();
  }
  const names = labels === undefined ? labelsFound(fn, rows) : checkLabels(fn, labels);
  const id = new Map(names.map((n, i) => [n, i]));
  const out = new Int32Array(rows.length);
  rows.forEach((row, i) => {
    const k = id.get(row.label);
    if (k === undefined) throw rangeError(fn, `${row.where}: label ${show(row.label)} is not one of ${listed(names)}`);
    out[i] = k;
  });
  return { texts: rows.map((r) => r.text), labels: out, labelNames: names.slice() };
}

// The labels of the rows, numbers ascending or else names sorted; between 2 and MAX_LABELS.
function labelsFound(fn, rows) {
  const found = [...new Set(rows.map((r) => r.label))];
  if (found.length < 2)
    throw rangeError(fn, `a classifier needs at least two labels; the corpus has only ${describe(found[0])}`);
  if (found.length > MAX_LABELS)
    throw rangeError(
      fn,
      `the corpus has ${found.length} distinct labels; a classifier takes at most ${MAX_LABELS} (is the label column the right one?)`,
    );
  const numeric = found.every((l) => /^-?\d+(\.\d+)?$/.test(l));
  return numeric ? found.sort((a, b) => Number(a) - Number(b)) : found.sort();
}

/**
 * Class names by id (options.labels, or a classifier's id2label): 2 to MAX_LABELS distinct
 * non-empty strings without spaces around them (as corpus labels are read). Returns a copy.
 * @param {string} name how the labels read in messages ('options.labels')
 */
export function checkLabels(fn, labels, name = 'options.labels') {
  if (!Array.isArray(labels)) throw typeError(fn, `${name} must be an array of strings, got ${describe(labels)}`);
  if (labels.length < 2 || labels.length > MAX_LABELS)
    throw rangeError(fn, `${name} must name 2 to ${MAX_LABELS} labels, got ${labels.length}`);
  const copy = labels.slice();
  const seen = new Set();
  copy.forEach((label, i) => {
    if (typeof label !== 'string') throw typeError(fn, `${name}[${i}] must be a string, got ${describe(label)}`);
    if (label.trim() === '' || label.trim() !== label)
      throw rangeError(
        fn,
        `${name}[${i}] must be a label as a corpus holds it (not empty, no spaces around it), got ${show(label)}`,
      );
    if (seen.has(label))
      throw rangeError(fn, `${name}[${i}] ${show(label)} is there twice (the labels must be distinct)`);
    seen.add(label);
  });
  return copy;
}

/**
 * config.json's id2label ({ "0": name, "1": name, ... }) as names by id: ids 0 to K - 1, names
 * as checkLabels wants them (distinct; 2 to MAX_LABELS).
 */
export function labelsOfConfig(fn, config) {
  const map = config.id2label;
  if (map === null || typeof map !== 'object' || Array.isArray(map))
    throw rangeError(fn, 'config.json has no id2label');
  const keys = Object.keys(map);
  const labels = keys.map((_, id) => {
    if (!Object.hasOwn(map, String(id)))
      throw rangeError(fn, `config.json's id2label must have the ids 0 to ${keys.length - 1}; ${id} is missing`);
    return map[String(id)];
  });
  return checkLabels(fn, labels, "config.json's id2label");
}

// Names for a message: the first ten, then how many more.
function listed(names) {
  const shown = names.slice(0, 10).map(show).join(', ');
  return names.length > 10 ? `${shown} … (${names.length} labels)` : shown;
}

function jsonlRows(fn, source) {
  const rows = [];
  source.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw rangeError(fn, `JSONL line ${i + 1}: not valid JSON (${error.message})`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw rangeError(
        fn,
        `JSONL line ${i + 1}: expected an object { "text": ..., "label": ... }, got ${describe(value)}`,
      );
    const textKey = TEXT_NAMES.find((k) => k in value),
      labelKey = LABEL_NAMES.find((k) => k in value);
    if (!textKey) throw rangeError(fn, `JSONL line ${i + 1}: no text field (one of ${TEXT_NAMES.join(', ')})`);
    if (!labelKey) throw rangeError(fn, `JSONL line ${i + 1}: no label field (one of ${LABEL_NAMES.join(', ')})`);
    rows.push({ text: value[textKey], label: value[labelKey], where: `JSONL line ${i + 1}` });
  });
  return rows;
}

function tableRows(fn, kind, source) {
  const records = kind === 'csv' ? csvRecords(fn, source) : tsvRecords(source);
  if (records.length === 0) return [];
  const { text, label, skip } = columns(fn, kind, records);
  const name = kind.toUpperCase();
  return records.slice(skip).map(({ fields, line }) => {
    if (fields.length < 2)
      throw rangeError(
        fn,
        `${name} line ${line}: expected a text and a label separated by ${kind === 'tsv' ? 'a tab' : 'a comma'}, got one field`,
      );
    const l = label >= 0 ? label : fields.length - 1;
    // Without a header, a TSV's text is everything before the label (texts may hold tabs).
    const t = label < 0 && kind === 'tsv' ? fields.slice(0, -1).join('\t') : fields[text];
    return { text: t, label: fields[l], where: `${name} line ${line}` };
  });
}
