// The Emscripten factory of each build, imported on first use so a page loads one glue only
// (bundlers make each a chunk of its own, with its wasm beside it). A build is its SIMD
// variant, plus '-threads' for the pthread builds. Code that must not split into chunks (a
// Worker bundled as 'iife', Vite's default) imports the glues it needs statically instead
// (web/elements/training/api.js), and leaves out `models` (its API has no loadModel).
export const GLUES = {
  baseline: async () => (await import('../../dist/attention.js')).default,
  relaxed: async () => (await import('../../dist/attention-relaxed.js')).default,
  'baseline-threads': async () => (await import('../../dist/attention-threads.js')).default,
  'relaxed-threads': async () => (await import('../../dist/attention-relaxed-threads.js')).default,
  // Not a build: the pretrained-model code (attn.loadModel), a chunk of its own too, so a page
  // that never loads a checkpoint never downloads it.
  models: () => import('./models/models_chunk.js'),
};
