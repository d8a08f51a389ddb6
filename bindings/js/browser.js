// Browser (and bundler) entry: each build's glue fetches its wasm next to itself
// (new URL('attention.wasm', import.meta.url)), which Vite and webpack 5 also resolve. A
// page fetches one build only: the glue of the other is never imported.
import { browserInit } from './browser_init.js';
import { GLUES } from './glues.js';

/**
 * Loads the wasm module (once per build and thread count) and returns the API.
 * @param {{ wasmUrl?: string | URL, wasmBinary?: ArrayBuffer | Uint8Array, simd?: 'auto' | 'relaxed' | 'baseline', threads?: number | 'auto' }} [options]
 */
export const init = /* @__PURE__ */ browserInit(GLUES); // pure: a bundle that never calls init drops the glues

export { tensor, toNested, toTfjs, toOrt } from './tensor.js';
export { VERSION } from './version.js';
