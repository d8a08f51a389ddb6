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
 * IntersectionObserver). With `idle` (a source on the page's own origin: the shipped models,
 * a folder beside the page), also once the page has loaded and is idle, so that a print or a
 * full-page screenshot, which scroll nothing into view and cannot wait for a download, shows
 * it drawn. Returns a function that stops waiting (disconnectedCallback).
 * @param {Element} element @param {() => void} load @param {{ idle?: boolean }} [options]
 */
export function loadWhenNear(element, load, { idle = false } = {}) {
  let observer = null;
  let stopPrint = () => {};
  let stopIdle = () => {};
  const stop = () => {
    observer?.disconnect();
    stopPrint();
    stopIdle();
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
  if (idle) stopIdle = whenIdle(once);
  observer = new IntersectionObserver(
    (entries) => {
      if (entries.some((e) => e.isIntersecting)) once();
    },
    { rootMargin: '400px' },
  );
  observer.observe(element);
  return stop;
}

// Calls `run` after the page's load event, when the browser is idle (at most 2 s later).
// Returns a function that cancels it.
function whenIdle(run) {
  let cancel = () => {},
    cancelled = false;
  const schedule = () => {
    if (cancelled) return;
    // Each handle cancelled by its own API: an idle callback's id is not a timer's, and
    // clearTimeout on it cancelled whatever page timer had the same number (a caller's
    // setTimeout never fired).
    if (globalThis.requestIdleCallback) {
      const handle = requestIdleCallback(run, { timeout: 2000 });
      cancel = () => cancelIdleCallback(handle);
    } else {
      const handle = setTimeout(run, 200);
      cancel = () => clearTimeout(handle);
    }
  };
  if (document.readyState === 'complete') schedule();
  else globalThis.addEventListener('load', schedule, { once: true });
  return () => {
    cancelled = true;
    globalThis.removeEventListener('load', schedule);
    cancel();
  };
}

/** Whether a model source (a URL or path; not a Hub id) is on the page's own origin. */
export function sameOrigin(source) {
  try {
    return new URL(source, document.baseURI).origin === location.origin;
  } catch {
    return false;
  }
}
