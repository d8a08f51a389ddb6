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
export { colourLegend, legendEnds, captionLine, axisTitle, scrollRegion } from './view-parts.js';

/** The shell's CSS: theme colours, toolbar, legend, caption and axis titles. */
export const SHELL_STYLE = `${THEME_STYLE}${EXPORT_STYLE}
/* A host's centred text (create-vite's templates, reveal.js) stops here; a rule on the tag itself still sets it */
:host { text-align: start; }
.legend { display: flex; align-items: center; flex-wrap: wrap; gap: 0.3rem; font-family: system-ui, sans-serif; font-size: 0.8rem; }
.legend .bar { position: relative; width: 7rem; height: 0.7rem; border-radius: 2px; border: 1px solid var(--attn-border, var(--_cell-edge)); }
.legend .ends { display: flex; gap: 0.3rem; align-items: center; }
.masked-key { font-family: system-ui, sans-serif; font-size: 0.8rem; }
.legend .zero { font-variant-numeric: tabular-nums; }
/* words true in a dark scheme only (followPageScheme's scheme-dark, or theme="dark") */
.dark-only { display: none; }
:host(:state(scheme-dark)) .dark-only, :host([theme="dark"]) .dark-only { display: inline; }
:host([theme="light"]) .dark-only { display: none; }
.caption { font-family: system-ui, sans-serif; font-size: 0.85rem; margin: 0.3rem 0; max-width: 60rem; }
.axis { font-family: system-ui, sans-serif; font-size: 0.8rem; opacity: 0.9; }
.error { color: var(--_error); }
.scroll { overflow-x: auto; max-width: 100%; }
.scroll:focus-visible { outline: 2px solid var(--_focus); outline-offset: 2px; }
.scroll-hint { font-family: system-ui, sans-serif; font-size: 0.8rem; margin: 0.1rem 0; font-style: italic; }
/* On paper: no toolbar, no button that only acts (chips and row buttons that name a head stay) */
@media print { .export, .print-hide { display: none !important; } }
/* On paper a setting is its value: a menu or a number field prints as plain text beside its
   label, a slider as the number written beside it (a reader saw controls, not settings) */
@media print {
  select, input:is([type=number], [type=text]) { appearance: none; border: 0; background: none; padding: 0; font: inherit; color: inherit; width: auto; field-sizing: content; }
  input[type=range] { display: none; }
}
.paper-only { display: none; }
@media print { .paper-only { display: inline; } }
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
