// Numbers and colours shared by the elements.

/** A number as a reader sees it: `digits` decimals, −∞ / ∞ / NaN spelled out, no "-0". */
export function formatNumber(x, digits = 4) {
  if (x === -Infinity) return '−∞';
  if (x === Infinity) return '∞';
  if (Number.isNaN(x)) return 'NaN';
  return x
    .toFixed(digits)
    .replace(/^-(0\.?0*)$/, '$1')
    .replace(/^-/, '−');
}

/** The exact float32 value, for hover and focus. */
export function exactNumber(x) {
  return Object.is(x, -0) ? '-0' : String(x);
}

// Colour-blind-safe palettes: viridis (sequential, for weights in [0, 1]) and a blue–orange
// diverging map (for signed values), as RGB stops.
const VIRIDIS = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];
const DIVERGING = [
  [33, 102, 172],
  [146, 197, 222],
  [247, 247, 247],
  [244, 165, 130],
  [178, 24, 43],
];

function interpolate(stops, t) {
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
}

/** [r, g, b] of a finite value on a palette (see heatColour), or null for a non-finite one. */
export function heatRgb(x, kind, { min = 0, max = 1 } = {}) {
  if (!Number.isFinite(x)) return null;
  if (kind === 'diverging') {
    const m = Math.max(Math.abs(min), Math.abs(max)) || 1;
    return interpolate(DIVERGING, (x / m + 1) / 2);
  }
  return interpolate(VIRIDIS, max > min ? (x - min) / (max - min) : 0);
}

/**
 * Background and text colour of a cell: `kind` 'sequential' maps [min, max] on viridis,
 * 'diverging' maps [-m, m] (m = max |value|) with white at 0. Non-finite values get none.
 */
export function heatColour(x, kind, { min = 0, max = 1 } = {}) {
  const rgb = heatRgb(x, kind, { min, max });
  if (!rgb) return null;
  // Black or white text, whichever contrasts more.
  const luminance = relativeLuminance(rgb);
  const onBlack = (luminance + 0.05) / 0.05,
    onWhite = 1.05 / (luminance + 0.05);
  return { background: `rgb(${rgb.join(' ')})`, color: onBlack >= onWhite ? '#000' : '#fff' };
}

/** WCAG relative luminance (0 black … 1 white) of [r, g, b] in 0-255. */
export function relativeLuminance([r, g, b]) {
  const linear = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** A value given as data: numbers, and the strings JSON needs for ±∞ ("-Infinity", "−∞"); NaN for anything else. */
export function toNumber(x) {
  return typeof x === 'string' ? Number(x.replace('−', '-').replace(/^(-?)∞$/, '$1Infinity')) : Number(x);
}

/** CSS gradient of a palette, for legends. */
export function paletteGradient(kind) {
  const stops = kind === 'diverging' ? DIVERGING : VIRIDIS;
  return `linear-gradient(to right, ${stops.map((c) => `rgb(${c.join(' ')})`).join(', ')})`;
}

/** The marks visibleText uses, for a legend: [mark, what it stands for]. */
export const TOKEN_MARKS = Object.freeze([
  ['␣', 'space'],
  ['↵', 'newline'],
  ['⇥', 'tab'],
  ['<0x08>', 'a byte by its code (a control byte, or one byte of a character split across tokens)'],
  ['<?>', 'part of a character split across tokens'],
]);

/**
 * Text as a reader can see it: a space as ␣, a newline as ↵, a tab as ⇥, any other control
 * character (and a byte that decoded to U+FFFD) as its code, <0x08>. Never a raw control
 * character or U+FFFD.
 */
export function visibleText(text) {
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f\ufffd ]/g, (c) => {
    if (c === ' ') return '␣';
    if (c === '\n') return '↵';
    if (c === '\t') return '⇥';
    if (c === '\ufffd') return '<?>';
    return `<0x${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}>`;
  });
}

/** Whether visibleText changed `text` (a legend of the marks is then due). */
export function hasMarks(text) {
  return /[\u0000-\u001f\u007f-\u009f\ufffd ]/.test(String(text));
}
