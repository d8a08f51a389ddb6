// What the model elements (<attention-model>, <attention-explainer>) share about running a
// model on the reader's text: the text checked against LIMITS.model (characters before it is
// tokenized, tokens after), and one forward per frame however fast the text changes.
import { LIMITS, tooBig } from './limits.js';

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
