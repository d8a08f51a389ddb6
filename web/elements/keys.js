// Keys an element consumes stay inside it; keys it does not consume reach the page.
//
// Hosts such as slide decks (reveal.js) listen for keys on the document and decide whether
// a key is theirs by document.activeElement, which for anything inside a shadow root is the
// element itself: an arrow key in an editable cell also moved the slide, and "." typed in a
// number paused the deck. So every element stops at its shadow root:
//   - keys its own handlers consumed (they call consume(e), or preventDefault);
//   - every key typed into a text field, number field or select inside it, except Tab and
//     Escape (focus moves and the host's way out stay the page's);
//   - Space and Enter on its buttons, checkboxes and radios (the browser presses them).
// Everything else (an arrow key on a read-only table, say) goes on to the page.

const KEY_EVENTS = ['keydown', 'keypress', 'keyup'];
const PRESSES = new Set([' ', 'Spacebar', 'Enter']);
const TOGGLES = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'color', 'file']);

/** What an element does with a key it acts on: no default action, and not the page's. */
export function consume(event) {
  event.preventDefault();
  event.stopPropagation();
}

// Does the control at the start of the event's path take this key itself?
function takenByControl(target, event) {
  if (!(target instanceof Element)) return false;
  if (event.key === 'Tab' || event.key === 'Escape') return false;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable) return true;
  if (tag === 'INPUT') return TOGGLES.has(target.type) ? PRESSES.has(event.key) : true;
  if (tag === 'BUTTON' || tag === 'SUMMARY' || target.getAttribute('role') === 'button') return PRESSES.has(event.key);
  return false;
}

function contain(event) {
  if (event.defaultPrevented || takenByControl(event.composedPath()[0], event)) event.stopPropagation();
}

/** Keeps the keys an element consumes inside its shadow root `root` (see above). */
export function containKeys(root) {
  for (const type of KEY_EVENTS) root.addEventListener(type, contain);
  return root;
}
