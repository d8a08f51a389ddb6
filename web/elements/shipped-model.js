// The tiny GPT-2 this package ships (random weights: web/elements/models/tiny-gpt2/README.md),
// for pages offline: src="tiny-gpt2" on <attention-model> and <attention-explainer> (the
// explainer's default). Each file is written out literally so that bundlers copy it: a folder
// URL is not an asset (a Vite 8 build from the packed tarball left the folder behind, and the
// element's hint pointed readers at a folder the app does not have).

import { fetchFailureHint } from '../../bindings/js/fetch_failure.js';

/** The name that stands for the shipped model in a `src` attribute. */
export const SHIPPED_MODEL = 'tiny-gpt2';

/** Its files: name → URL beside this module (wherever a bundler put them). */
export const SHIPPED_MODEL_FILES = {
  'config.json': new URL('./models/tiny-gpt2/config.json', import.meta.url),
  'generation_config.json': new URL('./models/tiny-gpt2/generation_config.json', import.meta.url),
  'tokenizer.json': new URL('./models/tiny-gpt2/tokenizer.json', import.meta.url),
  'tokenizer_config.json': new URL('./models/tiny-gpt2/tokenizer_config.json', import.meta.url),
  'model.safetensors': new URL('./models/tiny-gpt2/model.safetensors', import.meta.url),
};

/** How the elements name it wherever they name their model. */
export const SHIPPED_NAME =
  'tiny GPT-2, random weights: its predictions are meaningless, the attention arithmetic is exact';

/**
 * Whether `model` is the tiny GPT-2 the package ships (models/tiny-gpt2/README.md: random
 * weights, 2 layers, 4 heads, 32 dimensions, 305 tokens), wherever it was loaded from.
 */
export function isShippedModel(model) {
  const c = model.config ?? {};
  return c.model_type === 'gpt2' && c.vocab_size === 305 && c.n_embd === 32 && c.n_layer === 2 && c.n_head === 4;
}

/** What the elements call it in a hint. */
export const SHIPPED_MODEL_WORDS =
  'the tiny GPT-2 this package ships (random weights: its predictions mean nothing, its arithmetic is exact)';

/**
 * A model's files fetched: { name: URL } → { name: text (.json) or ArrayBuffer }, what
 * loadModel takes as a plain object.
 * @param {Record<string, URL>} files @param {AbortSignal} [signal]
 */
export async function fetchFiles(files, signal) {
  const entries = await Promise.all(
    Object.entries(files).map(async ([name, url]) => {
      let response;
      try {
        response = await fetch(url, { signal });
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new Error(`cannot fetch ${url}: ${error.message}${fetchFailureHint(url)}`, { cause: error });
      }
      if (!response.ok) throw new Error(`cannot fetch ${url} (HTTP ${response.status})`);
      return [name, name.endsWith('.json') ? await response.text() : await response.arrayBuffer()];
    }),
  );
  return Object.fromEntries(entries);
}
