// Reading the training aids of a text classifier: word vectors (safetensors) and a
// sentiment lexicon (text). No tokenizer library: Workers import this.
import { typeError, rangeError, describe } from '../errors.js';
import { readSafetensors } from './safetensors_io.js';

/** Word vectors from a safetensors file: tensor "vectors" [n, dim] and metadata "words" (a JSON list). */
export function readWordVectors(bytes) {
  const fn = 'readWordVectors';
  const { tensors, metadata } = readSafetensors(
    fn,
    'word vectors',
    bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes),
  );
  const t = tensors.get('vectors');
  if (!t || t.shape.length !== 2) throw rangeError(fn, 'the file has no 2-D tensor "vectors"');
  let words;
  try {
    words = JSON.parse(metadata?.words ?? 'null');
  } catch {
    words = null;
  }
  if (!Array.isArray(words) || words.length !== t.shape[0])
    throw rangeError(fn, `metadata "words" must list the ${t.shape[0]} words of the rows`);
  return { words, vectors: t.data, dim: t.shape[1] };
}

/** A VADER-style lexicon text (word<TAB>valence<TAB>…) → [word, valence] entries. */
export function readLexicon(text) {
  if (typeof text !== 'string') throw typeError('readLexicon', `text must be a string, got ${describe(text)}`);
  return text
    .split(/\r?\n/)
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t'))
    .map(([w, v]) => [w, Number(v)])
    .filter(([w, v]) => w && Number.isFinite(v));
}
