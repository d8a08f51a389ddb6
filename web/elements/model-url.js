// A model folder's URL from an element's attribute, checked before anything loads: the loader
// fetches files under it, so it must be an http: or https: URL (or a path, which resolves
// against the page). `javascript:alert(1)` or an unparsable URL failed deep in the loader
// with the engine's unnamed "Failed to construct 'URL': Invalid URL".
import { SHIPPED_MODEL } from './shipped-model.js';

/**
 * The absolute URL of the folder `value` names (so that '/m/' and 'https://host/m/' are one
 * source), 'tiny-gpt2' (the shipped model, shipped-model.js) as it is, or a TypeError naming the
 * element and the attribute.
 * @param {string} element @param {string} attribute @param {string} value
 */
export function modelUrl(element, attribute, value) {
  if (value === SHIPPED_MODEL) return value;
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

// A Hugging Face Hub id as loadModel tells one apart (bindings/js/models/hub_ids.js ID_PART,
// the same rule): exactly 'owner/name', each part ASCII letters, digits, '_', '-' and '.',
// starting and ending with a letter, digit or '_', no '--' or '..', at most 96 characters.
const HUB_PART = /^(?!.*(?:--|\.\.))[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?$/;
export const isHubId = (value) => {
  const parts = value.split('/');
  return parts.length === 2 && parts.every((part) => HUB_PART.test(part));
};

/**
 * A model source from an element's attribute: a Hub id ('distilbert/distilbert-base-uncased-
 * finetuned-sst-2-english') as it is (the library fetches it from the Hub, as loadModel does
 * in a browser), else the absolute URL of the folder (modelUrl). A folder beside the page
 * whose path is two plain names reads as a Hub id: write it './owner/name'.
 * @param {string} element @param {string} attribute @param {string} value
 */
export function modelSource(element, attribute, value) {
  return isHubId(value) ? value : modelUrl(element, attribute, value);
}
