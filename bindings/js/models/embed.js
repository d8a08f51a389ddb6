// PretrainedModel.embed: texts → sentence embeddings [B, width], as sentence-transformers'
// SentenceTransformer.encode computes them:
//   1. each text trimmed (lowercased when sentence_bert_config.json says do_lower_case),
//      tokenized, and truncated to max_seq_length keeping the tokenizer's special tokens
//      ([CLS] … [SEP]), as truncation='longest_first' does for one sequence
//   2. the texts run through the encoder in right-padded batches of similar lengths
//   3. each text's real tokens pooled (pooling.js), the modes concatenated
//   4. the folder's Dense modules, in order (sentence_dense.js: EmbeddingGemma's projections)
//   5. each row scaled to unit length when the folder ends with Normalize (or normalize: true)
// The folder's modules.json gives the pooling and normalisation; explicit options win.
import { renamed } from './finite_outputs.js';
import { startFor } from './text_limits.js';
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { tensor as makeTensor } from '../tensor.js';
import { POOLING_MODES, poolTokens, normalizeRows } from './pooling.js';
import { applyDense } from './sentence_dense.js';

const FN = 'PretrainedModel.embed';
const OPTIONS = ['pooling', 'normalize'];
const BATCH = 32; // texts per forward call (sentence-transformers' default batch_size)

// The options, each read once, with the folder's settings (or mean pooling, unnormalised,
// sentence-transformers' default for a plain model) where one is not given.
function checkOptions(options, folder) {
  checkKeys(FN, 'option', options, OPTIONS);
  const { pooling, normalize } = options ?? {};
  if (normalize !== undefined && typeof normalize !== 'boolean')
    throw typeError(FN, `options.normalize must be a boolean, got ${describe(normalize)}`);
  if (pooling === undefined && folder?.unsupported) {
    throw rangeError(
      FN,
      `this folder's modules.json lists ${folder.unsupported}, which embed does not run; pass options.pooling to pool the encoder's output yourself`,
    );
  }
  return {
    modes: pooling === undefined ? (folder?.pooling ?? ['mean']) : checkModes(pooling),
    normalize: normalize ?? folder?.normalize ?? false,
  };
}

// 'mean' or ['cls', 'mean'] → the modes in POOLING_MODES order (the concatenation's).
function checkModes(pooling) {
  const list = typeof pooling === 'string' ? [pooling] : pooling;
  if (!Array.isArray(list) || list.length === 0)
    throw typeError(
      FN,
      `options.pooling must be a pooling mode or a non-empty array of them (${POOLING_MODES.join(', ')}), got ${describe(pooling)}`,
    );
  for (const mode of list) {
    if (typeof mode !== 'string') throw typeError(FN, `options.pooling must hold strings, got ${describe(mode)}`);
    if (!POOLING_MODES.includes(mode))
      throw rangeError(
        FN,
        `options.pooling ${JSON.stringify(mode)} is not a pooling mode (known: ${POOLING_MODES.join(', ')})`,
      );
  }
  if (new Set(list).size !== list.length)
    throw rangeError(FN, `options.pooling names a mode twice: ${JSON.stringify(list)}`);
  return POOLING_MODES.filter((mode) => list.includes(mode));
}

// A string or strings → a copied array of strings.
function checkTexts(texts) {
  if (typeof texts === 'string') return [texts];
  if (!Array.isArray(texts))
    throw typeError(FN, `texts must be a string or an array of strings, got ${describe(texts)}`);
  if (texts.length === 0) throw rangeError(FN, 'texts is empty');
  const copy = Array.from(texts);
  copy.forEach((text, i) => {
    if (typeof text !== 'string') throw typeError(FN, `texts[${i}] must be a string, got ${describe(text)}`);
  });
  return copy;
}

// Step 1: one text's token ids, at most maxLength. Truncation cuts the text's own tokens and
// keeps what the tokenizer adds around them (the ids encoded with special tokens are those
// without, with a prefix and a suffix); if they are not found whole, the ids are cut at the end.
function tokenIds(tokenizer, text, maxLength, lowerCase) {
  const trimmed = lowerCase ? text.trim().toLowerCase() : text.trim();
  const clean = startFor(tokenizer, trimmed, maxLength).text; // a long text: only the start it keeps
  const full = tokenizer.encode(clean).ids;
  if (full.length <= maxLength) return full;
  const own = tokenizer.encode(clean, { addSpecialTokens: false }).ids;
  const added = full.length - own.length;
  const at = full.findIndex((_, k) => own.every((id, i) => full[k + i] === id));
  if (at < 0 || added >= maxLength) return full.slice(0, maxLength);
  return [...full.slice(0, at), ...own.slice(0, maxLength - added), ...full.slice(at + own.length)];
}

/**
 * Sentence embeddings of `texts` (see PretrainedModel.embed).
 * @param {object} model a PretrainedModel (not disposed)
 * @param {string | string[]} texts
 * @param {{ pooling?: string | string[], normalize?: boolean }} [options]
 * @returns {{ data: Float32Array, shape: [number, number] }} [texts, modes · dModel], or the last Dense module's out_features wide
 */
export function embedTexts(model, texts, options) {
  const list = checkTexts(texts);
  const folder = model.sentenceEmbedding;
  const { modes, normalize } = checkOptions(options, folder);
  if (model.tokenizer === null) throw rangeError(FN, 'this checkpoint has no tokenizer.json');
  const d = model.descriptor.dModel;
  const maxLength = Math.min(folder?.maxSeqLength ?? Infinity, model.descriptor.contextLength);
  // 1. Token ids.
  const ids = list.map((text, i) => {
    const row = tokenIds(model.tokenizer, text, maxLength, folder?.lowerCase ?? false);
    if (row.length === 0) throw rangeError(FN, `texts[${i}] gives no tokens`);
    return row;
  });
  // 2-3. Longest first, in batches, pooled; each row put back at its text's place.
  const width = modes.length * d;
  const dense = folder?.dense ?? [];
  if (dense.length > 0 && dense[0].inFeatures !== width)
    throw rangeError(
      FN,
      `options.pooling gives ${width} features per text, but this folder's first Dense module takes ${dense[0].inFeatures}`,
    );
  const out = new Float32Array(list.length * width);
  const order = ids.map((_, i) => i).sort((a, b) => ids[b].length - ids[a].length);
  for (let start = 0; start < order.length; start += BATCH) {
    const chunk = order.slice(start, start + BATCH);
    let run;
    try {
      run = model.forward(
        chunk.map((i) => ids[i]),
        { logits: false },
      );
    } catch (error) {
      throw renamed(error, FN);
    }
    const { lastHiddenState, lengths } = run;
    const pooled = poolTokens(lastHiddenState.data, lastHiddenState.shape, lengths, modes);
    chunk.forEach((i, b) => out.set(pooled.subarray(b * width, (b + 1) * width), i * width));
  }
  // 4. The Dense modules.
  let rows = out;
  for (const layer of dense) rows = applyDense(rows, list.length, layer);
  const outWidth = dense.at(-1)?.outFeatures ?? width;
  // 5. Unit length.
  if (normalize) normalizeRows(rows, list.length, outWidth);
  return makeTensor(rows, [list.length, outWidth]);
}
