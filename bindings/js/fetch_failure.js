// What to try when fetch() itself fails (it rejects with an unnamed "Failed to fetch" for a
// server that does not answer and for a file on another origin whose server sends no CORS
// header alike; only the browser's console tells them apart). A URL on another origin than
// the page gets the likely cause and its two fixes; the same origin, or Node (no page), none.

/**
 * The sentence added to a failed fetch's message: '' unless `url` is on another origin than
 * `pageOrigin` (the page's or Worker's `location.origin`; undefined in Node) and the browser
 * is online (offline, the network is the cause, and the elements say so).
 * @param {string | URL} url @param {string | undefined} [pageOrigin] @param {boolean} [online]
 */
export function fetchFailureHint(
  url,
  pageOrigin = globalThis.location?.origin,
  online = globalThis.navigator?.onLine !== false,
) {
  let origin;
  try {
    origin = new URL(url, pageOrigin).origin;
  } catch {
    return '';
  }
  if (!online || !pageOrigin || pageOrigin === 'null' || origin === pageOrigin || !/^https?:/.test(origin)) return '';
  return (
    ` (${origin} is another origin than this page's, ${pageOrigin}: if that server is up, it must allow this page` +
    ` to read the file with the header Access-Control-Allow-Origin (CORS), as npm CDNs and the Hugging Face Hub do,` +
    ` or serve the file from this page's origin; the browser's console names the cause)`
  );
}
