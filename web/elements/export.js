// Export for every element: PNG (the element as drawn), JSON (every tensor it shows) and
// "copy as code" (a short snippet that reproduces the view with the public API), and the
// small toolbar that offers them.
import { isLight } from './theme.js';

/** The cells, lines and text nodes of an element, through nested shadow roots. */
function drawables(root, out = { boxes: [], lines: [], texts: [] }) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === Node.TEXT_NODE) {
      const parent = node.parentElement;
      if (node.textContent.trim() && parent && !['STYLE', 'SCRIPT', 'OPTION'].includes(parent.tagName))
        out.texts.push(node);
      continue;
    }
    if (node.shadowRoot) drawables(node.shadowRoot, out);
    if (node.tagName === 'TD' || node.tagName === 'TH' || node.tagName === 'BUTTON' || node.classList?.contains('bar'))
      out.boxes.push(node);
    else if (node.tagName === 'line') out.lines.push(node);
  }
  return out;
}

// Each word of a text node where the browser drew it (wrapped lines included).
function* words(textNode) {
  const range = document.createRange();
  const text = textNode.textContent;
  for (const match of text.matchAll(/\S+/g)) {
    range.setStart(textNode, match.index);
    range.setEnd(textNode, match.index + match[0].length);
    const rect = range.getClientRects()[0];
    if (rect) yield [match[0], rect];
  }
}

const transparent = (c) => !c || c === 'rgba(0, 0, 0, 0)' || c === 'transparent';

/**
 * What the reader sees behind the element: the first background colour on the way up
 * (through shadow hosts), else the canvas colour of its scheme (white, or black for light
 * text, as followPageScheme decides), so that light text on a dark page is not exported onto white.
 */
function backdrop(element) {
  for (let node = element; node; node = node.parentElement ?? node.getRootNode?.().host ?? null) {
    const colour = getComputedStyle(node).backgroundColor;
    if (!transparent(colour)) return colour;
  }
  return isLight(getComputedStyle(element).color) ? '#000' : '#fff';
}

/**
 * The element as drawn, as a PNG Blob of its on-screen size (times devicePixelRatio): cell
 * and button boxes with their colours, the lines of a lines view, and every word of text,
 * each where the page draws it (no external library: a canvas and the browser's layout).
 */
export async function elementToPng(element) {
  const box = element.getBoundingClientRect();
  const scale = window.devicePixelRatio || 1;
  // A CSS transform (a scaled slide) scales the boxes on screen but not the computed font
  // sizes: text is drawn at its size times the element's on-screen scale.
  const zoom = element.offsetHeight > 0 ? box.height / element.offsetHeight : 1;
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(box.width * scale));
  canvas.height = Math.max(1, Math.round(box.height * scale));
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.fillStyle = backdrop(element);
  ctx.fillRect(0, 0, box.width, box.height);
  const { boxes, lines, texts } = drawables(element.shadowRoot ?? element);
  for (const node of boxes) {
    const r = node.getBoundingClientRect();
    const style = getComputedStyle(node);
    const x = r.left - box.left,
      y = r.top - box.top;
    if (!transparent(style.backgroundColor)) {
      ctx.fillStyle = style.backgroundColor;
      ctx.fillRect(x, y, r.width, r.height);
    } else if (!transparent(style.backgroundImage) && style.backgroundImage !== 'none') {
      const gradient = ctx.createLinearGradient(x, 0, x + r.width, 0); // a legend bar
      const stops = style.backgroundImage.match(/rgba?\([^)]*\)/g) ?? [];
      stops.forEach((c, i) => gradient.addColorStop(stops.length > 1 ? i / (stops.length - 1) : 0, c));
      ctx.fillStyle = gradient;
      ctx.fillRect(x, y, r.width, r.height);
    }
    if (node.tagName !== 'TH' && parseFloat(style.borderTopWidth) > 0) {
      ctx.strokeStyle = style.borderTopColor;
      ctx.lineWidth = zoom;
      ctx.strokeRect(x + zoom / 2, y + zoom / 2, r.width - zoom, r.height - zoom);
    }
  }
  for (const node of lines) {
    const svg = node.ownerSVGElement;
    const svgBox = svg.getBoundingClientRect();
    const view = svg.viewBox.baseVal;
    const sx = svgBox.width / (view.width || svgBox.width),
      sy = svgBox.height / (view.height || svgBox.height);
    const style = getComputedStyle(node);
    ctx.globalAlpha = Number(style.opacity);
    ctx.strokeStyle = style.stroke;
    ctx.lineWidth = 2 * sx;
    ctx.beginPath();
    ctx.moveTo(svgBox.left - box.left + node.x1.baseVal.value * sx, svgBox.top - box.top + node.y1.baseVal.value * sy);
    ctx.lineTo(svgBox.left - box.left + node.x2.baseVal.value * sx, svgBox.top - box.top + node.y2.baseVal.value * sy);
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
  ctx.textBaseline = 'middle';
  for (const node of texts) {
    const style = getComputedStyle(node.parentElement);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    ctx.fillStyle = node.parentElement instanceof SVGElement ? style.fill : style.color;
    ctx.font = `${style.fontStyle} ${style.fontWeight} ${parseFloat(style.fontSize) * zoom}px ${style.fontFamily}`;
    for (const [word, r] of words(node)) ctx.fillText(word, r.left - box.left, r.top - box.top + r.height / 2);
  }
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}

/**
 * JavaScript source for a value of nested arrays and plain objects of numbers and strings
 * (what toCode() pastes into a snippet), written while walking it: non-finite numbers as
 * Infinity, -Infinity and NaN, -0 as -0, and every string as a literal in which no `<`,
 * `>`, `&` or line separator appears raw, so the snippet is also safe inside an inline
 * <script> (`</script>` or `<!--` in a label cannot end or hide it). Anything else (a
 * function, a symbol, a class instance) is refused.
 */
export function jsLiteral(value) {
  if (typeof value === 'number')
    return Object.is(value, -0) ? '-0' : Number.isFinite(value) ? JSON.stringify(value) : String(value);
  if (typeof value === 'string') return jsString(value);
  if (typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return `[${Array.from(value, jsLiteral).join(',')}]`;
  if (Object.getPrototypeOf(value) === Object.prototype) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${jsString(k)}:${jsLiteral(v)}`)
      .join(',')}}`;
  }
  throw new TypeError(`jsLiteral: cannot write ${Object.prototype.toString.call(value)} as code`);
}

/** What toCode() gives while an element has no valid input: a comment saying why. */
export function noInputCode(element, error) {
  const why = String(error?.message ?? 'no input')
    .replace(/[\r\n\u2028\u2029]+/g, ' ')
    .replace(/</g, '\\u003c');
  return `// ${element} has no valid input to reproduce: ${why}\n`;
}

/** A JS string literal of `text`, safe inside an inline <script> (see jsLiteral). */
export function jsString(text) {
  return JSON.stringify(String(text)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A tensor as plain JSON: { shape, data } with −∞ written as the string "-Infinity". */
export function tensorJson(t) {
  return { shape: t.shape.slice(), data: Array.from(t.data, (x) => (Number.isFinite(x) ? x : String(x))) };
}

function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * The export toolbar of an element: "PNG image", "JSON data" and "Copy JS code" buttons calling the element's
 * toPNG(), toJSON() and toCode(). `name` is the file name stem.
 */
export function exportToolbar(element, name) {
  const bar = document.createElement('div');
  bar.className = 'export';
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', 'export');
  bar.setAttribute('part', 'export');
  const status = document.createElement('span');
  status.setAttribute('aria-live', 'polite');
  const button = (text, label, action) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.setAttribute('aria-label', label);
    b.addEventListener('click', action);
    bar.append(b);
  };
  // (words a reader of a screenshot can read: "JSON" and "Copy code" alone said too little)
  button('PNG image', 'PNG image of this element', async () => download(`${name}.png`, await element.toPNG()));
  button('JSON data', 'JSON data: every number shown', () =>
    download(`${name}.json`, new Blob([JSON.stringify(element.toJSON(), null, 1)], { type: 'application/json' })),
  );
  button('Copy JS code', 'Copy JS code: JavaScript that reproduces this view', async () => {
    try {
      await navigator.clipboard.writeText(element.toCode());
      status.textContent = 'copied';
    } catch {
      status.textContent = 'copy blocked by the browser: the code is in the console';
      console.info(element.toCode());
    }
  });
  bar.append(status);
  return bar;
}

export const EXPORT_STYLE = `
.export { display: flex; gap: 0.3rem; align-items: center; font-size: max(0.8em, 12px); margin: 0.2rem 0 0.4rem; flex-wrap: wrap; }
.export button { font: inherit; }
`;
