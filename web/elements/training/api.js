// init() for the elements' training Workers: the two single-threaded builds, imported
// statically. A Worker's bundle then has no dynamic import and no top-level await, so every
// bundler builds it in any worker format, Vite's default 'iife' included (the package's
// main entry would split into one chunk per build, which 'iife' cannot hold). The wasm is
// still fetched for the chosen build only.
import createBaseline from '../../../dist/attention.js';
import createRelaxed from '../../../dist/attention-relaxed.js';
import { browserInit } from '../../../bindings/js/browser_init.js';

export const init = browserInit({ baseline: async () => createBaseline, relaxed: async () => createRelaxed });
