// The parts every view explains itself with (base.js's shell adopts their styles): a colour
// legend with numbers, a one-sentence caption, an axis title, and a sideways-scrolling region
// for what cannot fit a narrow page. Plain DOM builders, no element class, so that the view
// modules (model-views.js, explainer-views.js) load in Node too (tests/token-labels.test.js).
import { formatNumber, paletteGradient } from './format.js';

// The diverging scale's middle in words true on a light and a dark page alike (its near-white
// middle is no page's "white" on a dark one; the bar's ends say which side is which). On a dark
// page the palest cells are the brightest, not the page's: the legend says so there (DARK_WORDS,
// shown by base.js's style in a dark scheme only).
const ZERO_WORDS = 'palest = 0';
const DARK_WORDS = ', the brightest on a dark page';

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
  bar.setAttribute('aria-label', kind === 'diverging' ? `${words}, ${ZERO_WORDS}` : words);
  const low = Object.assign(document.createElement('span'), { className: 'lo', textContent: formatNumber(lo, digits) });
  const high = Object.assign(document.createElement('span'), {
    className: 'hi',
    textContent: formatNumber(hi, digits),
  });
  const ends = document.createElement('span');
  ends.className = 'ends';
  if (kind === 'diverging') {
    const zero = Object.assign(document.createElement('span'), { className: 'zero' });
    zero.append(
      `(${ZERO_WORDS}`,
      Object.assign(document.createElement('span'), { className: 'dark-only', textContent: DARK_WORDS }),
      ')',
    );
    ends.append(low, bar, high, zero);
  } else ends.append(low, bar, high);
  legend.append(ends);
  return legend;
}

/**
 * How a masked cell is drawn (weight 0 because the mask hid that key, not a small weight): a
 * grey hatch outside every colour map, the same on a light and a dark page.
 */
export const MASKED_FILL = 'repeating-linear-gradient(135deg, #6b6b6b 0 2px, #c4c4c4 2px 5px)';

/** The legend entry of masked cells: a hatched swatch and `words` (what hid them). */
export function maskedKey(words) {
  const key = document.createElement('span');
  key.className = 'masked-key';
  key.setAttribute('part', 'legend');
  const swatch = document.createElement('span');
  swatch.setAttribute('aria-hidden', 'true');
  swatch.style.cssText = `display: inline-block; width: 1.4em; height: 0.9em; margin-inline-end: 0.3em; vertical-align: -0.1em; border: 1px solid #6b6b6b; background: ${MASKED_FILL};`;
  key.append(swatch, `masked: ${words}`);
  return key;
}

/** The two numbers a legend's ends show for data in [min, max]. */
export function legendEnds(kind, min, max) {
  if (kind !== 'diverging') return [min, max];
  const m = Math.max(Math.abs(min), Math.abs(max));
  return [-m, m];
}

/**
 * A one-sentence caption: what is shown and what to notice (text, or an array of text and
 * nodes such as screenOrPaper's); `liveOnly`, a hint to hover, click or tap, is shown on
 * screen only.
 */
export function captionLine(text, liveOnly = '') {
  const p = document.createElement('p');
  p.className = 'caption';
  p.setAttribute('part', 'caption');
  p.append(...[text].flat());
  // (class print-hide: paper has nothing to press)
  if (liveOnly)
    p.append(Object.assign(document.createElement('span'), { className: 'print-hide', textContent: liveOnly }));
  return p;
}

/**
 * Words that name a control (`screen`: "pick another head"), shown on screen only, and the
 * words paper shows in their place (`paper`: what is shown; '' for none): [spans].
 */
export function screenOrPaper(screen, paper = '') {
  const span = (className, textContent) => Object.assign(document.createElement('span'), { className, textContent });
  return [span('print-hide', screen), ...(paper ? [span('paper-only', paper)] : [])];
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
