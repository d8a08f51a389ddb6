// Elements that load lazily (when they near the viewport) must still show their result in
// print: a printed page, or reveal.js's print view (?print-pdf, which lays every slide out
// for a PDF), never scrolls them into view.

/** Whether the page is being printed or laid out for print now. */
function printing() {
  return globalThis.matchMedia?.('print').matches === true ||
    document.documentElement.classList.contains('print-pdf') || /print-pdf/i.test(location.search);
}

/**
 * Calls `load` now if the page is printing, else when it starts to (print media, or the
 * `beforeprint` event). Returns a function that stops listening.
 * @param {() => void} load
 */
export function loadForPrint(load) {
  if (printing()) {
    load();
    return () => {};
  }
  const media = globalThis.matchMedia?.('print');
  const onChange = () => { if (printing()) load(); };
  media?.addEventListener('change', onChange);
  globalThis.addEventListener('beforeprint', load);
  return () => {
    media?.removeEventListener('change', onChange);
    globalThis.removeEventListener('beforeprint', load);
  };
}
