// What the model elements (<attention-model>, <attention-explainer>) share about running a
// model on the reader's text: the model's lease (shared with the elements showing the same
// source), the text checked against LIMITS.model (characters before it is tokenized, tokens
// after), and one forward per frame however fast the text changes.
import { getApi } from './api.js';
import { acquire, wasDisposed } from './model-cache.js';
import { LIMITS, tooBig } from './limits.js';
import { SHIPPED_MODEL, SHIPPED_MODEL_FILES, fetchFiles } from './shipped-model.js';

/**
 * A lease on the model loadModel makes of `source` (model-cache.js): elements showing the same
 * source share one model, freed when none shows it. A model from Files or a Map is the
 * element's own. SHIPPED_MODEL ('tiny-gpt2') is the package's own model, its files fetched
 * from beside the module.
 */
export function leaseModel(source, onProgress) {
  const load = async (signal, progress) => {
    const attn = await getApi();
    const files = source === SHIPPED_MODEL ? await fetchFiles(SHIPPED_MODEL_FILES, signal) : source;
    return attn.loadModel(files, { onProgress: progress, signal });
  };
  const key = typeof source === 'string' ? `loadModel ${source}` : null;
  return acquire(key, load, { onProgress, isDisposed: (model) => wasDisposed(model, (m) => m.tokenize('')) });
}

/** The tokens of `text` (model.tokenize), or the element's tooBig error past its limits. */
export function tokensWithin(tag, model, text) {
  // Characters first: tokenizing a pasted megabyte took 0.8 s only to be refused below.
  if (text.length > LIMITS.model.chars)
    throw tooBig(tag, 'the text', `${text.length} characters`, `${LIMITS.model.chars} characters`);
  const tokens = model.tokenize(text);
  if (tokens.length > LIMITS.model.tokens)
    throw tooBig(tag, 'the text', `${tokens.length} tokens`, `${LIMITS.model.tokens} tokens`);
  return tokens;
}

/** A function that runs `callback` in the next animation frame, once however often it is called before. */
export function oncePerFrame(callback) {
  let pending = 0;
  return () => {
    if (pending) return;
    pending = requestAnimationFrame(() => {
      pending = 0;
      callback();
    });
  };
}
