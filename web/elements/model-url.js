// A model folder's URL from an element's attribute, checked before anything loads: the loader
// fetches files under it, so it must be an http: or https: URL (or a path, which resolves
// against the page). `javascript:alert(1)` or an unparsable URL failed deep in the loader
// with the engine's unnamed "Failed to construct 'URL': Invalid URL".

/**
 * The absolute URL of the folder `value` names (so that '/m/' and 'https://host/m/' are one
 * source), or a TypeError naming the element and the attribute.
 * @param {string} element @param {string} attribute @param {string} value
 */
export function modelUrl(element, attribute, value) {
  let url = null;
  try {
    url = new URL(value, document.baseURI);
  } catch {
    // reported below
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new TypeError(
      `${element}: ${attribute} must be the http(s) URL of a model folder, got "${String(value).slice(0, 40)}"`,
    );
  }
  return url.href;
}
