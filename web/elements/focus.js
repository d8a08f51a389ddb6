// Redrawing a view replaces its controls. The control that had the focus (the text field
// after Enter, the layer menu after an arrow key) is found again in the new view by its tag and
// accessible name and focused, its caret where it was, so the keys that follow stay in the
// element: on a reveal.js slide a key that reaches the page changes the slide.

// A selector that finds `el`'s stand-in in a redrawn view, or null (no accessible name).
function standInSelector(el) {
  const label = el.getAttribute?.('aria-label');
  return label ? `${el.localName}[aria-label="${CSS.escape(label)}"]` : null;
}

/**
 * Runs `redraw()`; if it replaced the control focused in `root` (a shadow root), focuses the
 * new control of the same tag and accessible name.
 * @param {ShadowRoot | null} root
 * @param {() => void} redraw
 */
export function keepFocus(root, redraw) {
  const before = root?.activeElement ?? null;
  const selector = before ? standInSelector(before) : null;
  redraw();
  if (!selector || before.isConnected) return;
  const again = root.querySelector(selector);
  if (!again) return;
  again.focus({ preventScroll: true });
  if (typeof before.selectionStart === 'number' && typeof again.setSelectionRange === 'function') {
    const end = again.value.length;
    again.setSelectionRange(Math.min(before.selectionStart, end), Math.min(before.selectionEnd, end));
  }
}
