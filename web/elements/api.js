// The one attention-wasm instance every element on a page shares: loaded on first use, once.
// A page can hand over its own (`useApi(await init({ threads: 2 }))`) before elements render.
import { init } from '../../bindings/js/browser.js';

let api = null;

/** The shared API (a Promise), loading the wasm the first time. */
export function getApi() {
  api ??= init();
  return api;
}

/** Makes every element on the page use `instance` (an `init()` result or a Promise of one). */
export function useApi(instance) {
  api = Promise.resolve(instance);
}
