// The shell every element shares, so that an element file holds only its view:
//   - attributes from the table (attributes.js): observedAttributes, typed reads, the one
//     error policy (a bad value's message above the element, which keeps drawing);
//   - an open shadow root that keeps the keys it consumes (keys.js), with the theme, the
//     export toolbar's, the legend's and the caption's styles adopted before the element's;
//   - the page's colour scheme followed on connect (theme.js);
//   - the export toolbar (PNG, JSON, Copy code: the element's toPNG/toJSON/toCode);
//   - an error line in place of the view;
//   - a colour legend with numbers and a one-sentence caption (how every view explains);
//   - a sideways-scrolling region for what cannot fit a narrow page, labelled and hinted;
//   - resize: a callback when the element's width changes (batched in one frame).
//
//   class TokenPruning extends AttentionElement {
//     static tag = 'token-pruning';      // its row in attributes.js
//     static style = `.row { ... }`;     // its own CSS only
//   }
import {
  THEME_STYLE,
  styleSheet,
  followPageScheme,
  errorMessage,
  showAttributeError,
  attributeErrorOf,
} from './theme.js';
import { EXPORT_STYLE, exportToolbar, elementToPng } from './export.js';
import { containKeys } from './keys.js';
import { observedAttributes, attributeReader, readAttribute } from './attributes.js';
import { formatNumber, paletteGradient } from './format.js';

/** The shell's CSS: theme colours, toolbar, legend, caption and axis titles. */
export const SHELL_STYLE = `${THEME_STYLE}${EXPORT_STYLE}
.legend { display: flex; align-items: center; flex-wrap: wrap; gap: 0.3rem; font-family: system-ui, sans-serif; font-size: 0.8rem; }
.legend .bar { position: relative; width: 7rem; height: 0.7rem; border-radius: 2px; border: 1px solid var(--attn-border, #8886); }
.legend .ends { display: flex; gap: 0.3rem; align-items: center; }
.legend .zero { font-variant-numeric: tabular-nums; }
.caption { font-family: system-ui, sans-serif; font-size: 0.85rem; margin: 0.3rem 0; max-width: 60rem; }
.axis { font-family: system-ui, sans-serif; font-size: 0.8rem; opacity: 0.9; }
.error { color: var(--_error); }
.scroll { overflow-x: auto; max-width: 100%; }
.scroll:focus-visible { outline: 2px solid var(--_focus); outline-offset: 2px; }
.scroll-hint { font-family: system-ui, sans-serif; font-size: 0.8rem; margin: 0.1rem 0; font-style: italic; }
/* On paper: no toolbar, no button that only acts (chips and row buttons that name a head stay) */
@media print { .export, .print-hide { display: none !important; } }
`;

export class AttentionElement extends HTMLElement {
  /** The element's tag name: its row in attributes.js. */
  static tag = '';
  /** The element's own CSS (the shell's comes first). */
  static style = '';
  static get observedAttributes() {
    return observedAttributes(this.tag);
  }

  #internals = this.attachInternals();
  #resize = null;

  constructor() {
    super();
    const sheets = [styleSheet(SHELL_STYLE), styleSheet(this.constructor.style)];
    containKeys(this.attachShadow({ mode: 'open' })).adoptedStyleSheets = sheets;
  }

  /** Follows the page's colour scheme; a subclass calls super.connectedCallback() first. */
  connectedCallback() {
    followPageScheme(this, this.#internals);
  }

  /** Stops watching the width; a subclass calls super.disconnectedCallback(). */
  disconnectedCallback() {
    this.#resize?.disconnect();
    this.#resize = null;
  }

  /** Attribute `name` typed by the table; a RangeError naming the element when bad. */
  typedAttribute(name, max) {
    return readAttribute(this, this.constructor.tag, name, max);
  }

  /** The attribute reader for one render (defaults while a value is bad; its `error`). */
  attributeReader() {
    return attributeReader(this, this.constructor.tag);
  }

  /** The bad attribute value's error shown (null when none). */
  get attributeError() {
    return attributeErrorOf(this);
  }

  /** Shows `error` (a bad attribute's, or null to clear) above the view. */
  showAttributeError(error) {
    showAttributeError(this.shadowRoot, error);
  }

  /** Checks every attribute present and shows the first bad one's message (or clears it). */
  checkAttributes() {
    this.showAttributeError(this.attributeReader().checkAll().error);
  }

  /** Replaces the view by a readable error line (role=alert). */
  showError(error) {
    this.shadowRoot.replaceChildren(errorMessage(error));
  }

  /** The export toolbar: PNG, JSON and Copy code; `name` is the file stem. */
  exportBar(name = this.constructor.tag) {
    return exportToolbar(this, name);
  }

  /** A PNG of the element as drawn (a Promise of a Blob). */
  toPNG() {
    return elementToPng(this);
  }

  /**
   * Calls `callback(width)` when the element's content width changes (once per frame at
   * most; not at the first observation). Stops when the element is disconnected.
   */
  onResize(callback) {
    this.#resize?.disconnect();
    let last = null,
      frame = 0;
    this.#resize = new ResizeObserver(([entry]) => {
      const width = Math.round(entry.contentRect.width);
      if (last === null || width === last) {
        last = width;
        return;
      }
      last = width;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => callback(width));
    });
    this.#resize.observe(this);
  }
}

/**
 * A colour legend with numbers: `title`, the low end, the palette's bar and the high end;
 * a diverging palette is centred on 0 and also says 0 under the bar's middle.
 *   { kind: 'sequential'|'diverging', min, max, title?, digits? }
 * The ends are the numbers the colours span (for diverging: −m … m, m = max |value|).
 */
export function colourLegend({ kind, min, max, title = '', digits = 2 }) {
  const legend = document.createElement('div');
  legend.className = 'legend';
  legend.setAttribute('part', 'legend');
  const [lo, hi] = legendEnds(kind, min, max);
  legend.dataset.min = String(lo);
  legend.dataset.max = String(hi);
  if (title) legend.append(Object.assign(document.createElement('span'), { className: 'title', textContent: title }));
  const bar = document.createElement('span');
  bar.className = 'bar';
  // border-box: the gradient spans the bar under its border too (at padding-box it repeated
  // under the 1 px border: a sliver of the far end's colour at each end).
  bar.style.background = `${paletteGradient(kind)} border-box`;
  bar.setAttribute('role', 'img');
  const words = `colour scale${title ? ` of ${title}` : ''}: ${formatNumber(lo, digits)} to ${formatNumber(hi, digits)}`;
  bar.setAttribute('aria-label', kind === 'diverging' ? `${words}, white at 0` : words);
  const low = Object.assign(document.createElement('span'), { className: 'lo', textContent: formatNumber(lo, digits) });
  const high = Object.assign(document.createElement('span'), {
    className: 'hi',
    textContent: formatNumber(hi, digits),
  });
  const ends = document.createElement('span');
  ends.className = 'ends';
  if (kind === 'diverging') {
    const zero = Object.assign(document.createElement('span'), { className: 'zero', textContent: '(white = 0)' });
    ends.append(low, bar, high, zero);
  } else ends.append(low, bar, high);
  legend.append(ends);
  return legend;
}

/** The two numbers a legend's ends show for data in [min, max]. */
export function legendEnds(kind, min, max) {
  if (kind !== 'diverging') return [min, max];
  const m = Math.max(Math.abs(min), Math.abs(max));
  return [-m, m];
}

/** A one-sentence caption: what is shown and what to notice. */
export function captionLine(text) {
  const p = document.createElement('p');
  p.className = 'caption';
  p.setAttribute('part', 'caption');
  p.textContent = text;
  return p;
}

/** An axis title ("query ↓  key →"). */
export function axisTitle(text) {
  const div = Object.assign(document.createElement('div'), { className: 'axis', textContent: text });
  div.setAttribute('part', 'axis');
  return div;
}

/**
 * What cannot fit a narrow page (a wide table), in a region that scrolls sideways: labelled
 * (role=region, `label`), focusable while it overflows (so keys scroll it), with a visible
 * hint above it then ("↔ scroll sideways …"), so that a reader, or a screenshot, knows there
 * is more. A table's caption moves above the region (a caption as wide as the table would be
 * cut at the region's edge) and names the table. With `fit(region, overflows)`, the caller
 * may first make the content narrower (a compact style) before the hint is decided.
 * Returns the wrapper: [caption?, hint, region holding `content`].
 */
export function scrollRegion(label, content, { fit = null } = {}) {
  const wrap = document.createElement('div');
  wrap.className = 'scroll-wrap';
  const caption = content instanceof HTMLTableElement ? content.caption : null;
  if (caption) {
    const words = caption.textContent;
    caption.remove();
    content.setAttribute('aria-label', words);
    wrap.append(Object.assign(document.createElement('p'), { className: 'table-caption caption', textContent: words }));
  }
  const hint = document.createElement('p');
  hint.className = 'scroll-hint';
  hint.hidden = true;
  hint.textContent = `↔ ${label}: wider than this page; scroll sideways (or focus it and use the arrow keys) to see the rest.`;
  const region = document.createElement('div');
  region.className = 'scroll';
  region.setAttribute('role', 'region');
  region.setAttribute('aria-label', label);
  region.tabIndex = 0; // until measured: a region that may scroll is reachable by keys
  region.append(content);
  wrap.append(hint, region);
  const overflows = () => region.scrollWidth > region.clientWidth + 1;
  const measure = () => {
    fit?.(region, overflows);
    const over = overflows();
    hint.hidden = !over;
    if (over) region.tabIndex = 0;
    else region.removeAttribute('tabindex');
  };
  // After layout (and again when the width changes), in the next frame: measuring inside the
  // observer's callback would change what it observes.
  const observer = new ResizeObserver(() => requestAnimationFrame(measure));
  observer.observe(region);
  observer.observe(content);
  return wrap;
}
