// The one attention-wasm instance every element on a page shares: loaded on first use, once.
// A page can hand over its own (`useApi(await init({ threads: 2 }))`) before elements render.
//
// By default the elements load the baseline build, whose bits are the same in every engine
// and on every machine (the relaxed build's fused multiply-adds may differ across CPUs), so
// "Copy code" (which asks for the same build, see initCode) reproduces what the element shows
// wherever the snippet runs. Speed does not matter at the elements' sizes.
import { init } from '../../bindings/js/browser.js';

let api = null;
let build = 'baseline'; // of the instance in use, once it has loaded

function track(promise) {
  promise.then(
    (a) => {
      build = a?.info?.build ?? build;
    },
    () => {},
  );
  return promise;
}

/** The shared API (a Promise), loading the wasm the first time. */
export function getApi() {
  api ??= track(init({ simd: 'baseline' }));
  return api;
}

/** Makes every element on the page use `instance` (an `init()` result or a Promise of one). */
export function useApi(instance) {
  api = track(Promise.resolve(instance));
}

/** The line of a "Copy code" snippet that loads the build the elements use. */
export function initCode() {
  return build === 'relaxed'
    ? "const attn = await init({ simd: 'relaxed' });  // the build this element used (Node: --experimental-wasm-relaxed-simd); FMA bits may differ across CPUs"
    : "const attn = await init({ simd: 'baseline' });  // the build this element used: the same bits in Node and every browser";
}
