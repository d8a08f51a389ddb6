// Elements that load lazily (when they near the viewport) must still show their result in
// print: a printed page, or reveal.js's print view (?print-pdf, which lays every slide out
// for a PDF), never scrolls them into view.

/** Whether the page is being printed or laid out for print now. */
function printing() {
  return (
    globalThis.matchMedia?.('print').matches === true ||
    document.documentElement.classList.contains('print-pdf') ||
    /print-pdf/i.test(location.search)
  );
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
  const onChange = () => {
    if (printing()) load();
  };
  media?.addEventListener('change', onChange);
  globalThis.addEventListener('beforeprint', load);
  return () => {
    media?.removeEventListener('change', onChange);
    globalThis.removeEventListener('beforeprint', load);
  };
}

/**
 * Calls `load` once, when `element` nears the viewport (400 px ahead), when the page prints,
 * or at once if the element has the `eager` attribute (or the browser has no
 * IntersectionObserver). Returns a function that stops waiting (disconnectedCallback).
 * @param {Element} element @param {() => void} load
 */
export function loadWhenNear(element, load) {
  let observer = null;
  let stopPrint = () => {};
  const stop = () => {
    observer?.disconnect();
    stopPrint();
  };
  const once = () => {
    stop();
    load();
  };
  stopPrint = loadForPrint(once);
  if (element.hasAttribute('eager') || typeof IntersectionObserver === 'undefined') {
    once();
    return stop;
  }
  observer = new IntersectionObserver(
    (entries) => {
      if (entries.some((e) => e.isIntersecting)) once();
    },
    { rootMargin: '400px' },
  );
  observer.observe(element);
  return stop;
}
