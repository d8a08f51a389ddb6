// Starting the elements' module Workers where the page is not the package's origin.
// The elements write `new Worker(new URL('./x.js', import.meta.url), { type: 'module' })`
// literally, so bundlers (Vite, webpack 5) find and bundle the Worker; a page that imports
// the package from a CDN gets a SecurityError from that line (a Worker script must have
// the page's origin), and comes here: a same-origin blob: module that imports the Worker
// script by its absolute URL (the CDN must allow CORS, as npm CDNs do).

/**
 * A module Worker running `path` (relative to web/elements/), started from a blob: URL.
 * @param {string} path
 */
function crossOriginWorker(path) {
  const url = new URL(path, import.meta.url).href;
  const bootstrap = URL.createObjectURL(new Blob([`import ${JSON.stringify(url)};\n`], { type: 'text/javascript' }));
  const worker = new Worker(bootstrap, { type: 'module' });
  worker.addEventListener('message', () => URL.revokeObjectURL(bootstrap), { once: true });
  return worker;
}

/**
 * The Worker `start()` makes (an element's literal `new Worker(new URL(…), { type: 'module' })`,
 * kept in the element so bundlers find it), or, where that throws a SecurityError (the page
 * is not the package's origin), the same script through a blob: bootstrap.
 * @param {() => Worker} start  @param {string} path the script, relative to web/elements/
 */
export function moduleWorker(start, path) {
  try {
    return start();
  } catch (error) {
    if (error?.name !== 'SecurityError') throw error;
    return crossOriginWorker(path);
  }
}
