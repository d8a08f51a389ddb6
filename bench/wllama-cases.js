// What the wllama comparison runs (issue 34), shared by the file writer (bench/wllama-model.js,
// Node) and the page (bench/browser-wllama-session.js): the storages, the request's sizes and
// the prompt's ids. No Node or test imports: the page loads it as it is.

/** The GGUF storages compared. */
export const STORAGES = ['q8_0', 'q4_0'];

/** The prompt's length and the greedy tokens generated after it. */
export const PROMPT = 128;
export const STEPS = 32;

/**
 * The file's vocabulary starts with <unk>, <s>, </s> and the 256 byte pieces; every later id is
 * one character of its own, U+20000 onwards (CJK Extension B and on: 4 UTF-8 bytes each). No
 * piece is two characters, so a SentencePiece tokenizer merges nothing and a text of those
 * characters is exactly their ids: wllama 3 takes a prompt as text only, never as ids.
 */
export const FIRST_PLAIN_ID = 3 + 256;
const FIRST_CODE_POINT = 0x20000;

/** The piece of a plain id (its one character). */
export const pieceOf = (id) => String.fromCodePoint(FIRST_CODE_POINT + id - FIRST_PLAIN_ID);

/** A text → the plain ids of its characters (null when one is not a plain piece). */
export function idsOf(text) {
  const ids = [...text].map((ch) => ch.codePointAt(0) - FIRST_CODE_POINT + FIRST_PLAIN_ID);
  return ids.every((id) => id >= FIRST_PLAIN_ID) ? ids : null;
}

/** The prompt ids both engines are fed: plain pieces only (no special or byte token). */
export const promptIds = (length = PROMPT, vocab = 49152) =>
  Array.from({ length }, (_, i) => FIRST_PLAIN_ID + ((i * 7919 + 104729) % (vocab - FIRST_PLAIN_ID)));

/** The file of a storage, under the served build/ folder. */
export const modelPath = (storage) => `build/bench/models/wllama/smollm2-135m-${storage}.gguf`;

/**
 * The long-context rows (issue 47, bench/browser-long-context.js): prompt lengths, the greedy
 * tokens after each, and the file: the same SmolLM2-135M shape with 32,768 positions (its own
 * file, so the 128-token rows keep theirs), or a tiny model for a quick check.
 */
export const LONG_PROMPTS = [1024, 4096, 16384];
export const LONG_STEPS = 16;
export const longModelPath = (storage, tiny = false) =>
  `build/bench/models/wllama/${tiny ? 'tiny' : 'smollm2-135m'}-long-${storage}.gguf`;
