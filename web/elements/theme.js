// The elements' colours: a page sets --attn-accent, --attn-focus, --attn-error, --attn-line,
// --attn-node, --attn-border, --attn-text (and --attn-font, --attn-text-font, --attn-cell-width); without
// them the defaults follow the page's colour scheme, not the reader's OS: light-dark() takes
// the scheme the element inherits (a page's `color-scheme: dark`), `theme="dark"` or
// `theme="light"` on an element forces one, and a dark page that declares no scheme (light
// text on a dark background, as most slide themes) is recognised by its text colour
// (followPageScheme). Text takes the page's own colour unless it is too pale to dim (a muted
// grey: --attn-text, or a default by scheme), backgrounds stay the page's.
import { relativeLuminance } from './format.js';

export const THEME_STYLE = `
:host {
  --_accent: var(--attn-accent, light-dark(#2563eb, #60a5fa));
  --_focus: var(--attn-focus, light-dark(#2563eb, #93c5fd));
  --_error: var(--attn-error, light-dark(#b91c1c, #fca5a5));
  --_line: var(--attn-line, light-dark(#2563eb, #93c5fd));
  --_node: var(--attn-node, light-dark(#2563eb, #3b82f6));
  --_selected: var(--attn-node-selected, light-dark(#b45309, #f59e0b));
  /* colour cells' edge: on a dark page viridis' low end (near black) keeps a visible outline */
  --_cell-edge: var(--attn-cell-edge, light-dark(#8883, #fff6));
}
:host([theme="dark"]), :host(:state(page-dark)) { color-scheme: dark; }
:host([theme="light"]) { color-scheme: light; }
/* a page whose text is already muted (see followPageScheme): the element's own, stronger */
:host(:state(page-muted)) { color: var(--attn-text, light-dark(#1f2328, #e6e6e6)); }
`;

/** The dimmest text the views draw: opacity 0.75 of the text colour (matrix shapes, notes). */
const DIMMEST_TEXT = 0.75;

/** 'rgb(r, g, b)' / 'rgba(r, g, b, a)' → [r, g, b, a], or null. */
function channels(colour) {
  const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?/.exec(colour);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
}

/** WCAG contrast ratio of two [r, g, b] colours. */
function contrastRatio(a, b) {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The page's background behind `element`: the first ancestor's opaque one, else the canvas. */
function backgroundBehind(element, dark) {
  for (let node = element; node; node = node.parentElement ?? node.getRootNode()?.host ?? null) {
    const rgba = channels(getComputedStyle(node).backgroundColor);
    if (rgba && rgba[3] > 0.5) return rgba.slice(0, 3);
  }
  return dark ? [18, 18, 18] : [255, 255, 255];
}

/**
 * Whether text of colour `text` ([r, g, b]), dimmed as the views dim it, falls under WCAG AA
 * (4.5:1) on `background`: create-vite's templates' grey #6b6375 on white gives 3.3:1.
 */
function mutedText(text, background) {
  const dimmed = text.map((c, k) => DIMMEST_TEXT * c + (1 - DIMMEST_TEXT) * background[k]);
  return contrastRatio(dimmed, background) < 4.5;
}

/** Whether a computed colour ('rgb(r, g, b)') is light: WCAG relative luminance above 0.5. */
export function isLight(colour) {
  const rgb = /rgba?\((\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?)/.exec(colour)?.slice(1, 4).map(Number);
  return rgb ? relativeLuminance(rgb) > 0.5 : false;
}

/**
 * Marks `element` as on a dark page (the :state(page-dark) above) when the page declares no
 * colour scheme but its text, which the element inherits, is light; and as on a page whose
 * text is muted (:state(page-muted): the element's text then takes `--attn-text`, or a dark
 * grey / light grey by scheme) when that text, dimmed as the views dim notes and shapes, would
 * fall under WCAG AA on the page's background; and as in a dark scheme (:state(scheme-dark):
 * base.js's .dark-only words show) when it is drawn dark either way. Call when connected.
 * @param {HTMLElement} element  @param {ElementInternals} internals
 */
export function followPageScheme(element, internals) {
  try {
    internals.states.delete('page-muted'); // (read the page's colour, not the element's own)
  } catch {
    /* an engine without custom states keeps the light defaults */
  }
  const style = getComputedStyle(element);
  const declared = style.colorScheme && style.colorScheme !== 'normal';
  const dark = !declared && isLight(style.color);
  const text = channels(style.color);
  const schemeDark =
    dark ||
    (/dark/.test(style.colorScheme) &&
      (!/light/.test(style.colorScheme) || matchMedia('(prefers-color-scheme: dark)').matches));
  const muted = text !== null && mutedText(text.slice(0, 3), backgroundBehind(element, schemeDark));
  try {
    if (dark) internals.states.add('page-dark');
    else internals.states.delete('page-dark');
    if (muted) internals.states.add('page-muted');
    if (schemeDark) internals.states.add('scheme-dark');
    else internals.states.delete('scheme-dark');
  } catch {
    /* an engine without custom states keeps the light defaults */
  }
}

const sheets = new Map();

/**
 * One constructed stylesheet per distinct CSS text, shared by every instance of an element
 * (adopted by the shadow roots: no inline <style>, so a strict style-src CSP is fine).
 */
export function styleSheet(css) {
  if (!sheets.has(css)) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    sheets.set(css, sheet);
  }
  return sheets.get(css);
}

/** A readable error in place of an element's content (role=alert). */
export function errorMessage(error) {
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  p.textContent = String(error?.message ?? error);
  return p;
}

const attributeErrors = new WeakMap(); // element → the bad attribute value's error shown

/**
 * An attribute's bad value, shown in place at the top of the element's content (its controls
 * stay below it), or the previous one removed when `error` is null (the next good value).
 */
export function showAttributeError(root, error) {
  attributeErrors.set(root.host, error ?? null);
  // (a shadow root's children: :scope does not name a ShadowRoot in querySelector)
  for (const old of [...root.children]) if (old.classList.contains('attribute-error')) old.remove();
  if (!error) return;
  const p = errorMessage(error);
  p.classList.add('attribute-error');
  root.prepend(p);
}

/** The bad attribute value's error the element shows (null when none): part of its `error`. */
export function attributeErrorOf(element) {
  return attributeErrors.get(element) ?? null;
}
