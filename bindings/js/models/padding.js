// Batches of PretrainedModel.forward: any input form (texts, token ids, { inputIds,
// attentionMask }) → the right-padded batch the runner takes, and left padding undone in its
// outputs (the runner pads on the right; a left-padded sequence runs moved to the front).
import { typeError, rangeError, describe } from '../errors.js';
import { checkTextFits } from './text_limits.js';

// Left padding: the runner takes right-padded batches, so a left-padded sequence b is run
// shifted left by pads[b] and each output's sequence axis is rotated back (row t of the
// caller's layout is the runner's row t − pads[b], mod T; its pad rows are the runner's pad
// rows). data: [B, outer, T, inner] in place.
export function unpadLeft(data, B, outer, T, inner, pads) {
  const block = T * inner;
  const copy = new Float32Array(block);
  for (let b = 0; b < B; b++) {
    const shift = pads[b] * inner;
    if (shift === 0) continue;
    for (let o = 0; o < outer; o++) {
      const at = (b * outer + o) * block;
      copy.set(data.subarray(at, at + block));
      data.set(copy.subarray(block - shift), at);
      data.set(copy.subarray(0, block - shift), at + shift);
    }
  }
  return data;
}

/**
 * Any input form of PretrainedModel.forward → a right-padded batch: ids [B, T], positions,
 * token types, lengths, the tokens of texts, each sequence's ids, and `pads` (each sequence's
 * left padding, moved to its end; null when none). Reads only the model's public members.
 */
export function batchOf(fn, input, model) {
  let sequences;
  let tokens = null;
  let masks = null;
  let typeRows = null;
  if (
    typeof input === 'string' ||
    (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'string'))
  ) {
    if (model.tokenizer === null) throw rangeError(fn, 'this checkpoint has no tokenizer.json; pass token ids');
    const texts = typeof input === 'string' ? [input] : input;
    texts.forEach((text, b) =>
      checkTextFits(
        fn,
        model.tokenizer,
        text,
        model.descriptor.contextLength,
        texts.length === 1 ? 'the text' : `texts[${b}]`,
      ),
    );
    tokens = texts.map((text) => model.tokenize(text));
    sequences = tokens.map((t) => t.map((x) => x.id));
  } else if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'number')) {
    sequences = [input];
  } else if (
    Array.isArray(input) &&
    input.length > 0 &&
    input.every((x) => Array.isArray(x) || ArrayBuffer.isView(x))
  ) {
    sequences = input.map((x) => Array.from(x));
  } else if (input !== null && typeof input === 'object' && !Array.isArray(input) && 'inputIds' in input) {
    sequences = Array.from(input.inputIds ?? [], (x) => Array.from(x));
    masks = input.attentionMask ? Array.from(input.attentionMask, (x) => Array.from(x)) : null;
    typeRows = input.tokenTypeIds ? Array.from(input.tokenTypeIds, (x) => Array.from(x)) : null;
  } else {
    throw typeError(
      fn,
      `input must be a string, strings, token ids (number[] or number[][]) or { inputIds, attentionMask? }, got ${describe(input)}`,
    );
  }
  if (sequences.length === 0) throw rangeError(fn, 'input holds no sequence');
  const d = model.descriptor;
  const B = sequences.length;
  const lengths = new Int32Array(B);
  // Left padding (0s then 1s): the sequence is moved to the front (forward rotates the
  // outputs back), so its tokens get the positions they would have alone.
  let pads = null;
  sequences.forEach((s, b) => {
    let n = s.length;
    if (masks) {
      const m = masks[b] ?? [];
      if (m.length !== s.length)
        throw rangeError(fn, `attentionMask[${b}] has ${m.length} entries but inputIds[${b}] has ${s.length}`);
      if (m.some((v) => v !== 0 && v !== 1)) throw rangeError(fn, `attentionMask[${b}] must hold only 0s and 1s`);
      const lead = m.indexOf(1);
      n = m.indexOf(0, Math.max(lead, 0));
      if (n < 0) n = m.length;
      if (lead > 0 && n === m.length) {
        pads ??= new Int32Array(B);
        pads[b] = lead;
        sequences[b] = s.slice(lead).concat(s.slice(0, lead));
        if (typeRows?.[b]) typeRows[b] = typeRows[b].slice(lead).concat(typeRows[b].slice(0, lead));
        n = m.length - lead;
      } else if (lead > 0 || m.slice(n).some((v) => v !== 0)) {
        throw rangeError(
          fn,
          `attentionMask[${b}] must be 1s then 0s (right padding) or 0s then 1s (left padding), got [${m.join(', ')}]`,
        );
      }
    }
    if (n < 1) throw rangeError(fn, `sequence ${b} is empty`);
    lengths[b] = n;
  });
  let T = 0; // a loop, not Math.max(...): a batch may hold more sequences than a call has arguments
  for (const s of sequences) T = Math.max(T, s.length);
  if (T > d.contextLength)
    throw rangeError(fn, `a sequence has ${T} tokens but this model takes at most ${d.contextLength} (max positions)`);
  const pad = model.config.pad_token_id ?? model.config.eos_token_id ?? 0;
  const ids = new Int32Array(B * T);
  const positions = new Int32Array(B * T);
  const types = typeRows ? new Int32Array(B * T) : null;
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const id = t < sequences[b].length ? sequences[b][t] : pad;
      if (!Number.isInteger(id) || id < 0 || id >= d.vocabSize)
        throw rangeError(fn, `token id ${id} at [${b}, ${t}] is outside [0, ${d.vocabSize})`);
      ids[b * T + t] = id;
      // RoBERTa counts positions from padding_idx + 1 and puts padding at padding_idx.
      positions[b * T + t] = d.positionOffset ? (t < lengths[b] ? d.positionOffset + t : d.positionOffset - 1) : t;
      if (types) {
        const type = typeRows[b]?.[t] ?? 0;
        if (!Number.isInteger(type) || type < 0 || type >= Math.max(1, d.typeVocabSize))
          throw rangeError(fn, `token type ${type} at [${b}, ${t}] is outside [0, ${Math.max(1, d.typeVocabSize)})`);
        types[b * T + t] = type;
      }
    }
  }
  const idRows = sequences.map((s, b) => s.slice(0, lengths[b]));
  return { B, T, ids, positions, types, lengths, tokens, idRows, pads };
}
