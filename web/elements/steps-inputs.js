// <attention-steps>'s inputs, apart from its view: reading and checking the matrices a
// reader gives (rowsOf), the course examples as element data, the mask presets, and the one
// colour scale of the score stages. Plain functions of plain data, no DOM.
import { WEIGHTS, EXAMPLES } from './course-examples.js';
import { LIMITS, tooBig, dimension } from './limits.js';

const TAG = 'attention-steps';

/** The mask presets an attribute may name (mask="causal"). */
export const MASK_PRESETS = ['none', 'causal', 'causal-top-left', 'causal-bottom-right'];

// The largest |printed − exact| over a matrix: slides: nested rows; exact: { data, shape }
// of the same [rows, cols].
export function slideGap(slides, exact) {
  const printed = slides.flat();
  return printed.reduce((gap, v, i) => Math.max(gap, Math.abs(v - exact.data[i])), 0);
}

// The signed stages that share one colour scale: the scores before and after scaling and masking.
export const SCORE_STAGES = ['scores', 'scaled', 'masked'];

/**
 * The one colour scale of the score stages (each a { data, shape } [Lq, Lk]): ± their largest
 * finite |value|, and at least ± 1, since scores closer than 1 change the softmax weights by
 * less than a factor e (example 2's ±0.08 would otherwise be drawn as saturated as ±10).
 */
export function scoreScale(stages) {
  let m = 1;
  for (const name of SCORE_STAGES)
    for (const x of stages[name].data) if (Number.isFinite(x)) m = Math.max(m, Math.abs(x));
  return {
    min: -m,
    max: m,
    note: 'one scale for Q·Kᵀ, ÷√d_k and the masked scores, at least ±1: scores less than 1 apart change the weights by less than a factor e',
  };
}

// Whether two computations have the same stages with the same shapes.
export function sameShapes(a, b) {
  return Object.keys(a).every(
    (k) => (a[k] === null) === (b[k] === null) && (a[k] === null || a[k].shape.join() === b[k].shape.join()),
  );
}

/** Nested rows, or a { data, shape } matrix, as nested rows of numbers. */
// Checked against LIMITS.steps before anything is built (a 2 × 3000 x once froze the tab):
// 1 … tokens rows (X, C, the mask) or 1 … features rows (the weights), each of the same
// 1 … max(tokens, features) numbers. Errors name the element and the input.
export function rowsOf(value, name = 'input') {
  if (value == null) return null;
  const { tokens, features } = LIMITS.steps;
  const maxRows = ['x', 'c', 'mask'].includes(name) ? tokens : features;
  const maxCols = name === 'mask' ? tokens : features;
  let rows, cols, at;
  if (Array.isArray(value)) {
    rows = value.length;
    cols = Array.isArray(value[0]) ? value[0].length : 1;
    at = (i) => (Array.isArray(value[i]) ? value[i] : [value[i]]);
  } else if (value && typeof value === 'object' && Array.isArray(value.shape) && value.shape.length === 2) {
    [rows, cols] = value.shape.map((d, i) => dimension(TAG, `${name}.shape[${i}]`, d));
    if (!(ArrayBuffer.isView(value.data) || Array.isArray(value.data)) || value.data.length !== rows * cols)
      throw new RangeError(`${TAG}: ${name}.data must hold ${rows} × ${cols} numbers`);
    at = (i) => Array.prototype.slice.call(value.data, i * cols, (i + 1) * cols);
  } else {
    throw new TypeError(`${TAG}: ${name} must be rows of numbers such as [[1, 0], [0, 1]] or a { data, shape } matrix`);
  }
  if (rows === 0 || cols === 0) throw new RangeError(`${TAG}: ${name} is empty`);
  if (rows > maxRows) throw tooBig(TAG, `${name}'s row count`, rows, maxRows);
  if (cols > maxCols) throw tooBig(TAG, `${name}'s column count`, cols, maxCols);
  const out = Array.from({ length: rows }, (_, i) => Array.from(at(i), Number));
  if (out.some((r) => r.length !== cols))
    throw new RangeError(`${TAG}: ${name} must be rectangular (every row ${cols} numbers)`);
  return out;
}

/** The course example `n` (1-4) as element data. */
export function exampleData(n, element = 'attention-steps') {
  const ex = Number.isInteger(n) ? EXAMPLES[n - 1] : undefined;
  if (!ex) throw new RangeError(`${element}: example must be 1 to ${EXAMPLES.length}, got ${String(n).slice(0, 40)}`);
  return {
    example: n,
    x: ex.X,
    c: ex.C,
    wq: WEIGHTS.W_Q,
    wk: WEIGHTS.W_K,
    wv: WEIGHTS.W_V,
    wo: WEIGHTS.W_O,
    mask: ex.mask,
    slides: ex.slides,
    title: ex.title,
    text: ex.text,
  };
}

// The additive mask [Lq, Lk] of a preset. 'causal-window': query i sees keys i − left … i
// (attention's `window: { left }` with `causal`, as Mistral's sliding_window − 1).
export function presetMask(preset, lq, lk, keyLength = lk, left = 1) {
  return Array.from({ length: lq }, (_, i) =>
    Array.from({ length: lk }, (_, j) => {
      if (preset === 'causal' || preset === 'causal-top-left') return j <= i ? 0 : -Infinity;
      if (preset === 'causal-window') return j <= i && j >= i - left ? 0 : -Infinity;
      if (preset === 'causal-bottom-right') return j <= i + lk - lq ? 0 : -Infinity;
      if (preset === 'key-length') return j < keyLength ? 0 : -Infinity;
      return 0;
    }),
  );
}

// A comma list (or JSON array) of names, or null when absent.
export function listOf(text) {
  if (text == null || text.trim() === '') return null;
  try {
    const parsed = JSON.parse(text);
    if (Array.isArray(parsed)) return parsed.map(String);
  } catch {
    /* a comma list */
  }
  return text.split(',').map((t) => t.trim());
}

/**
 * Sets a names attribute (tokens, query-tokens, …) from a property's value: a string is the
 * attribute's own text (a comma list or JSON); an array is written as a JSON array, so that a
 * name holding a comma ("1,000") or a space at either end (GPT-2's " cat") stays one name;
 * null or undefined removes the attribute.
 */
export function setListAttribute(element, name, value) {
  if (value == null) element.removeAttribute(name);
  else if (typeof value === 'string') element.setAttribute(name, value);
  else element.setAttribute(name, JSON.stringify(Array.from(value, String)));
}

/**
 * Names properties of an element class, each mirroring its attribute: { tokens: 'tokens',
 * queryTokens: 'query-tokens' } gives `tokens` (get: listOf the attribute, or null; set:
 * setListAttribute) and `queryTokens` alike.
 */
export function defineListProperties(elementClass, attributes) {
  for (const [property, attribute] of Object.entries(attributes)) {
    Object.defineProperty(elementClass.prototype, property, {
      configurable: true,
      get() {
        return listOf(this.getAttribute(attribute));
      },
      set(value) {
        setListAttribute(this, attribute, value);
      },
    });
  }
}
