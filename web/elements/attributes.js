// Every element's attributes, declared once: the element's observedAttributes, its typed
// getters and the sanitize allow-list are read from this table, and so is the one error
// policy. A bad value shows a message in place, naming the element and the attribute
// ('token-pruning: dim must be a whole number from 1 to 64, got "1e9"'); the element keeps
// its controls (drawn with the attribute's default meanwhile), and the next good value
// recovers. (<attention-sentiment> keeps its own list for now; its row is here for the
// allow-list and the typings test.)
//
// A row: { type, default?, min?, max?, values?, observed? }
//   'int'      a whole number in [min, max]; `values` names words allowed beside it
//              (head="all"); the element may pass a tighter max when it knows one (heads)
//              (layer, head, query and token are indices: from 0, as in attentions[layer][head])
//   'number'   a finite number in [min, max]
//   'enum'     one of `values`
//   'boolean'  on when present, whatever its text
//   'string'   any text; 'json': text the element parses itself (its own messages)
//   observed   false: read once (at connect or start), by the styles, or when linking
import { LIMITS } from './limits.js';

const LINKS = {
  for: { type: 'string', observed: false },
  link: { type: 'string', observed: false },
};
const MATRIX = { type: 'json' };

/** Attributes every element takes (read by the styles: :host([theme="dark"])). */
export const COMMON_ATTRIBUTES = Object.freeze({
  theme: { type: 'enum', values: ['light', 'dark'], observed: false },
});

/** Each element's attributes by tag name. */
export const ATTRIBUTES = deepFreeze({
  'attention-matrix': {
    label: { type: 'string', default: '' },
    value: MATRIX,
    precision: { type: 'int', min: 0, max: 8, default: 4 },
    heat: { type: 'enum', values: ['sequential', 'diverging'], default: null },
    editable: { type: 'boolean' },
    toggle: { type: 'boolean' },
    'row-labels': { type: 'string' },
    'col-labels': { type: 'string' },
    'row-title': { type: 'string', default: '' },
    'col-title': { type: 'string', default: '' },
    caption: { type: 'string', default: '' },
  },
  'attention-steps': {
    example: { type: 'int', min: 1, max: 4 },
    x: MATRIX,
    c: MATRIX,
    wq: MATRIX,
    wk: MATRIX,
    wv: MATRIX,
    wo: MATRIX,
    mask: MATRIX, // or a preset: the element checks the name (its message lists them)
    'show-slides': { type: 'boolean' },
    precision: { type: 'int', min: 0, max: 8, default: 4 },
    stages: { type: 'string' },
    json: { type: 'string' },
    layout: { type: 'enum', values: ['compact'], observed: false },
    tokens: { type: 'string' },
    'query-tokens': { type: 'string' },
    ...LINKS,
  },
  'attention-flash': {
    q: MATRIX,
    k: MATRIX,
    v: MATRIX,
    block: { type: 'int', min: 1, default: 2 },
  },
  'attention-heatmap': {
    weights: { type: 'json' },
    tokens: { type: 'string' },
    'query-tokens': { type: 'string' },
    'key-tokens': { type: 'string' },
    view: { type: 'enum', values: ['grid', 'lines'], default: 'grid' },
    head: { type: 'int', min: 0, max: LIMITS.heatmap.heads - 1, values: ['average', 'all'] },
    example: { type: 'int', min: 1, max: 4 },
    toolbar: { type: 'enum', values: ['none'], default: null },
    ...LINKS,
  },
  'positional-encoding': {
    kind: { type: 'enum', values: ['sinusoidal', 'rope', 'alibi', 'laplacian'], default: 'sinusoidal' },
  },
  'token-pruning': {
    tokens: { type: 'string', default: 'The,cat,sat,on,the,mat' },
    drop: { type: 'string', default: '' },
    dim: { type: 'int', min: 1, max: LIMITS.pruning.dim, default: 4 },
  },
  'attention-sentiment': {
    text: { type: 'string' },
    model: { type: 'string' },
    encoder: { type: 'string' }, // a loaded encoder for the linear probe (a folder URL or Hub id)
    layer: { type: 'int', min: 0 },
    head: { type: 'int', min: 0 },
    eager: { type: 'boolean', observed: false },
  },
  'attention-training': {
    task: { type: 'enum', values: ['copy', 'reverse', 'sort', 'induction'], default: 'reverse' },
    preset: { type: 'enum', values: ['small', 'medium'], default: 'small', observed: false },
    seed: { type: 'int', min: 0, max: 4294967295, default: 1, observed: false },
    lr: { type: 'enum', values: ['0.0003', '0.001', '0.003', '0.01'], default: '0.003', observed: false },
    // every: steps per progress report (one Worker task each: more would not answer pause
    // for seconds); steps: in a run.
    steps: { type: 'int', min: 1, max: 1_000_000, default: 3000, observed: false },
    every: { type: 'int', min: 1, max: 500, default: 10, observed: false },
    autostart: { type: 'boolean', observed: false },
    // the held-out accuracy (%) at which a run pauses ("Keep training" goes on), or none
    target: { type: 'int', min: 1, max: 100, values: ['none'], default: 100, observed: false },
  },
  'attention-model': {
    src: { type: 'string' },
    text: { type: 'string', default: '' },
    view: { type: 'enum', values: ['head', 'model', 'neuron'], default: 'head' },
    layer: { type: 'int', min: 0, default: 0 },
    head: { type: 'int', min: 0, values: ['average', 'all'] },
    query: { type: 'int', min: 0 },
    eager: { type: 'boolean', observed: false },
    // layout="compact": the next-token table beside the view, tighter rows (a slide; CSS only)
    layout: { type: 'enum', values: ['compact'], observed: false },
  },
  'attention-explainer': {
    src: { type: 'string' },
    text: { type: 'string', default: 'The cat sat on the mat' },
    token: { type: 'int', min: 0 },
    layer: { type: 'int', min: 0, default: 0 },
    head: { type: 'int', min: 0, default: 0 },
    temperature: { type: 'number', min: 0, max: 100, default: 1 },
    'top-k': { type: 'int', min: 0, default: 0 },
    'top-p': { type: 'number', min: 0.001, max: 1, default: 1 },
    eager: { type: 'boolean', observed: false },
    // layout="compact": one stage at a time (the stage attribute, or the stage menu), in smaller type (a slide)
    layout: { type: 'enum', values: ['compact'] },
    stage: { type: 'int', min: 1, max: 10, default: 1 },
  },
});

function deepFreeze(object) {
  for (const value of Object.values(object)) if (typeof value === 'object' && value !== null) deepFreeze(value);
  return Object.freeze(object);
}

function rowOf(tag, name) {
  const row = ATTRIBUTES[tag]?.[name] ?? COMMON_ATTRIBUTES[name];
  if (!row) throw new Error(`internal error: ${tag} has no attribute '${name}' in attributes.js`);
  return row;
}

/** An element's observedAttributes: the attributes of its row that are not read once. */
export function observedAttributes(tag) {
  return Object.entries(ATTRIBUTES[tag])
    .filter(([, row]) => row.observed !== false)
    .map(([name]) => name);
}

/** Every attribute any element reads (the sanitize allow-list). */
export function allAttributeNames() {
  const names = new Set(Object.keys(COMMON_ATTRIBUTES));
  for (const rows of Object.values(ATTRIBUTES)) for (const name of Object.keys(rows)) names.add(name);
  return [...names];
}

/** What a value of this row must be, as the message says it. */
function ruleOf(row, max) {
  if (row.type === 'enum') return `one of ${row.values.join(', ')}`;
  const kind = row.type === 'int' ? 'a whole number' : 'a number';
  const range =
    max === undefined ? (row.min === undefined ? '' : ` ≥ ${row.min}`) : ` from ${row.min ?? -Infinity} to ${max}`;
  const words = row.values ? ` or one of ${row.values.join(', ')}` : '';
  return `${kind}${range}${words}`;
}

// The typed value of `text` for the row, or undefined when it breaks the row's rule.
function parse(row, text, max) {
  if (row.type === 'boolean') return true;
  if (row.type === 'string' || row.type === 'json') return text;
  if (row.type === 'enum') return row.values.includes(text) ? text : undefined;
  if (row.values?.includes(text)) return text;
  const n = Number(text);
  const whole = row.type !== 'int' || Number.isInteger(n);
  const inRange = Number.isFinite(n) && n >= (row.min ?? -Infinity) && n <= (max ?? Infinity);
  return whole && inRange ? n : undefined;
}

/**
 * Attribute `name` of an element, typed by its row: the row's default when absent (or blank,
 * for numbers), else its value; a RangeError naming the element and the attribute when the
 * value breaks the row's rule. `max` tightens the row's (the heads a heatmap holds).
 */
export function readAttribute(element, tag, name, max) {
  const row = rowOf(tag, name);
  const text = element.getAttribute(name);
  if (row.type === 'boolean') return text !== null;
  const blank = text === null || ((row.type === 'int' || row.type === 'number') && text.trim() === '');
  if (blank) return row.default ?? null;
  const limit = Math.min(max ?? Infinity, row.max ?? Infinity);
  const value = parse(row, text, Number.isFinite(limit) ? limit : undefined);
  if (value === undefined)
    throw new RangeError(
      `${tag}: ${name} must be ${ruleOf(row, Number.isFinite(limit) ? limit : undefined)}, got "${text.slice(0, 40)}"`,
    );
  return value;
}

/**
 * The element's attribute reader for one render: get(name, max?) gives the typed value, or
 * the default while the value is bad (the element keeps drawing, controls and all); `error`
 * is the first bad value's message (null when every attribute read is good).
 */
export function attributeReader(element, tag) {
  return {
    error: null,
    get(name, max) {
      try {
        return readAttribute(element, tag, name, max);
      } catch (error) {
        this.error ??= error;
        return rowOf(tag, name).default ?? null;
      }
    },
    /** Reads every attribute present (each with the row's own bounds), so all are checked. */
    checkAll() {
      for (const name of Object.keys(ATTRIBUTES[tag])) if (element.hasAttribute(name)) this.get(name);
      return this;
    },
  };
}
