// The file names a checkpoint may name. A checkpoint is data from a stranger: its index
// (model.safetensors.index.json's weight_map) and its other files name further files, and
// those names must stay inside the folder or URL prefix the caller gave. A name is one plain
// file name, as the Hub writes them (model-00001-of-00002.safetensors, tokenizer.json): no
// folder separator, no '.' or '..', no scheme or drive ('http:', 'C:'), no query or fragment
// ('?', '#'), no percent escapes (a URL would decode '%2e%2e%2f' into '../'), no control
// characters, at most 255 bytes. Anything else is refused before any read or request.
import { rangeError } from '../errors.js';

const MAX_NAME_BYTES = 255; // the longest file name ext4, APFS and NTFS hold
// Letters and digits of any script, and the punctuation file names use; not / \ : ? # % and
// no control or format characters.
const PLAIN = /^[\p{L}\p{N}\p{M}_. +@=,()[\]{}~!$&'-]+$/u;

/** Why `name` is not one plain file name, or null when it is. */
export function fileNameProblem(name) {
  if (typeof name !== 'string') return 'it is not a string';
  if (name === '') return 'it is empty';
  if (name === '.' || name === '..') return `'${name}' names a folder`;
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES) return `it is longer than ${MAX_NAME_BYTES} bytes`;
  if (/[/\\]/.test(name)) return 'it holds a folder separator (a file name may not leave the folder)';
  if (/^[a-z][a-z0-9+.-]*:/i.test(name) || name.includes(':'))
    return "it holds ':' (a scheme or a drive: the file must come from the same folder or URL prefix)";
  if (/[?#%]/.test(name)) return "it holds '?', '#' or '%' (a URL query, fragment or escape)";
  if (!PLAIN.test(name) || name.startsWith(' ') || name.endsWith(' ') || name.endsWith('.')) {
    return 'it holds characters a plain file name does not (control or format characters, quotes, a leading or trailing space or a trailing dot)';
  }
  return null;
}

/**
 * Checks a file name a checkpoint file gives; returns it.
 * @param {string} fn the public function @param {string} where the file and key that named it,
 *   e.g. "model.safetensors.index.json's weight_map['lm_head.weight']"
 */
export function checkFileName(fn, where, name) {
  const problem = fileNameProblem(name);
  if (problem !== null)
    throw rangeError(fn, `${where} is ${shown(name)}, not a file name inside the checkpoint: ${problem}`);
  return name;
}

// A path holds at most this many names: sentence-transformers' are two ('1_Pooling/config.json').
const MAX_PATH_NAMES = 4;

/**
 * Checks a relative path inside the checkpoint: plain file names (each as checkFileName
 * wants it) joined by '/', such as '1_Pooling/config.json' (sentence-transformers' modules.json
 * names module folders). No empty name, so no leading '/' (an absolute path) and no '//'.
 * Returns it.
 * @param {string} fn the public function @param {string} where what named it
 */
export function checkFilePath(fn, where, path) {
  if (typeof path !== 'string') return checkFileName(fn, where, path);
  const names = path.split('/');
  if (names.length > MAX_PATH_NAMES)
    throw rangeError(
      fn,
      `${where} is ${shown(path)}, not a path inside the checkpoint: it is more than ${MAX_PATH_NAMES} folders deep`,
    );
  for (const name of names) {
    const problem = name === '' ? "it has an empty name (a leading, trailing or doubled '/')" : fileNameProblem(name);
    if (problem !== null)
      throw rangeError(fn, `${where} is ${shown(path)}, not a path inside the checkpoint: ${problem}`);
  }
  return path;
}

// A name as an error message shows it: quoted, at most 80 characters.
function shown(name) {
  return typeof name === 'string' ? JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name) : String(name);
}
