// The elements' colours: a page sets --attn-accent, --attn-focus, --attn-error, --attn-line,
// --attn-node, --attn-border (and --attn-font, --attn-text-font, --attn-cell-width); without
// them the defaults follow the reader's light or dark preference. Text takes the page's
// own colour, backgrounds stay the page's.
export const THEME_STYLE = `
:host {
  --_accent: var(--attn-accent, #2563eb); --_focus: var(--attn-focus, #2563eb);
  --_error: var(--attn-error, #b91c1c); --_line: var(--attn-line, #2563eb);
  --_node: var(--attn-node, #2563eb); --_selected: var(--attn-node-selected, #b45309);
}
@media (prefers-color-scheme: dark) {
  :host {
    --_accent: var(--attn-accent, #60a5fa); --_focus: var(--attn-focus, #93c5fd);
    --_error: var(--attn-error, #fca5a5); --_line: var(--attn-line, #93c5fd);
    --_node: var(--attn-node, #3b82f6); --_selected: var(--attn-node-selected, #f59e0b);
  }
}
`;

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
