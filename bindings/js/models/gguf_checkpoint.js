// A GGUF file as loadModel's checkpoint: what a Hugging Face folder gives (config, the
// architecture, tokenizer, generation defaults, chat templates, the weights' table and reader),
// read from the one file: its header parsed and checked whole first (gguf.js), the metadata
// turned into a config.json (gguf_model.js) and a tokenizer.json (gguf_tokenizer.js), and the
// tensors handed over as their bytes come, what the converter changed undone.
import { rangeError } from '../errors.js';
import { parseGguf, StreamReader } from './gguf.js';
import { GGML_TYPES, canDequantize, dequantize, READABLE_TYPES } from './gguf_quants.js';
import {
  ggufFamily,
  ggufConfig,
  ggufNames,
  ggufUndo,
  checkPermutable,
  ropeTensorNames,
  completeRopeScaling,
} from './gguf_model.js';
import { ggufTokenizer } from './gguf_tokenizer.js';
import { checkFinite } from './gguf_finite.js';
import { ggufSentenceEmbedding, ggufDenseNames } from './gguf_sentence.js';
import { architectureOf } from './architectures.js';
import { loadTokenizer } from './tokenizer.js';
import { generationDefaults } from './generation_config.js';
import { loadChatTemplates } from './chat_template.js';

/**
 * @param {string} fn @param {object} file gguf_file.js's source @param {object} KIND weight kinds
 * @param {{ head?: string, chatTemplate?: string }} options
 */
export async function readGguf(fn, file, KIND, { head, chatTemplate }) {
  await file.open?.();
  const size = file.size ?? Infinity;
  const reader = new StreamReader(file.chunks());
  const name = file.description;
  const { metadata, tensors: raw } = await parseGguf(fn, name, reader, size);
  // 1. The weights' types (the runner's tensors: blk.*, the embeddings and the head), before the
  //    tokenizer is built; the config, with any RoPE factors the file keeps in tensors.
  for (const [n, t] of raw) {
    const problem = /^(blk\.|token_embd\.|position_embd\.|output)/.test(n)
      ? ggufTypeProblem(n, { ggmlType: t.type })
      : null;
    if (problem) throw rangeError(fn, `${name}: ${problem}`);
  }
  const family = ggufFamily(fn, name, metadata);
  let config = ggufConfig(fn, name, metadata, raw, family);
  // The tensors read before the model's (in one pass, in file order): RoPE factors and an
  // embedder's Dense weights.
  const ropeNames = ropeTensorNames(raw);
  const apart = [...ropeNames, ...ggufDenseNames(raw)];
  const weights = ggufWeights(fn, file, reader, raw, ggufUndo(family, config), new Set(apart));
  const early = new Map();
  if (apart.length > 0) await weights.forEach(new Set(apart), (n, bytes, type) => early.set(n, { bytes, type }));
  if (ropeNames.length > 0) {
    const factors = new Map();
    for (const n of ropeNames) {
      const { bytes, type } = early.get(n);
      if (type !== 0) throw rangeError(fn, `${name}: tensor '${n}' must be F32, got ${GGML_TYPES[type].name}`);
      factors.set(n, dequantize(0, bytes, new Float32Array(raw.get(n).count)));
    }
    config = completeRopeScaling(fn, name, config, factors);
  }
  if (family.permuteQK) checkPermutable(fn, name, raw, config);
  const arch = asMetadata(name, () => architectureOf(fn, config, head, KIND));
  const ggufArch = { ...arch, names: ggufNames(KIND, family, arch.descriptor) };
  // 2. The tokenizer, generation defaults and chat templates.
  const vocabSize = arch.descriptor.vocabSize;
  const tok = ggufTokenizer(fn, name, metadata, vocabSize);
  const tokenizer =
    tok === null
      ? null
      : await loadTokenizer(fn, tok.json, tok.config, { size: vocabSize, source: `${name}'s token_embd rows` });
  const decoder = arch.descriptor.causal && arch.descriptor.lmHead;
  const generation = decoder ? generationDefaults(fn, null, config, vocabSize) : undefined;
  if (chatTemplate !== undefined && !(decoder && tokenizer))
    throw rangeError(fn, 'options.chatTemplate is for a causal language model with a tokenizer');
  const chat =
    decoder && tokenizer
      ? await loadChatTemplates(fn, tok.config, chatTemplate, `${name}'s tokenizer.chat_template`)
      : null;
  return {
    config,
    arch: ggufArch,
    tokenizer,
    sentenceEmbedding: ggufSentenceEmbedding(
      fn,
      name,
      metadata,
      raw,
      family,
      arch.descriptor.dModel,
      new Map([...early].map(([n, e]) => [n, e.bytes])),
    ),
    generation,
    chat,
    weights,
    prefix: '',
  };
}

// The tensors in loadModel's form (name → { file, dtype, ggmlType, shape, count, begin, end },
// the shape in PyTorch order: GGUF's dims reversed), and forEach(names, visit(name, bytes,
// ggmlType)) giving each one's bytes as the Hugging Face model holds it (undo).
function ggufWeights(fn, file, reader, raw, undo, keep) {
  const tensors = new Map();
  for (const [n, t] of raw) {
    tensors.set(n, {
      file: file.description,
      dtype: 'GGUF',
      ggmlType: t.type,
      shape: [...t.dims].reverse(),
      count: t.count,
      begin: t.begin,
      end: t.end,
    });
  }
  const done = new Map(); // the tensors in `keep` (RoPE factors) once streamed: read twice, streamed once
  async function forEach(names, visit) {
    const wanted = [...names].map((n) => [n, raw.get(n)]).sort((a, b) => a[1].begin - b[1].begin);
    for (const [n, t] of wanted) {
      let bytes;
      if (done.has(n)) bytes = done.get(n);
      else if (file.read) bytes = await file.read(t.begin, t.end);
      else {
        if (t.begin < reader.position)
          throw rangeError(
            fn,
            `${file.description}: tensor '${n}' lies before bytes already streamed; load the file from a path, File or bytes`,
          );
        bytes = await reader.read(t.begin, t.end);
        if (bytes === null)
          throw rangeError(
            fn,
            `${file.description} ended before tensor '${n}' (bytes ${t.begin}..${t.end}; truncated?)`,
          );
        if (keep.has(n)) done.set(n, bytes);
      }
      checkFinite(fn, file.description, n, t.type, bytes);
      const fixed = undo(n, t, bytes);
      await visit(n, fixed.bytes, fixed.type);
    }
  }
  return { tensors, forEach };
}

// architectureOf names config.json's keys; here they came from the file's metadata.
function asMetadata(file, read) {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new RangeError(error.message.replace('config.json', `the config read from ${file}'s metadata`));
  }
}

/** Why a GGUF tensor cannot be read, or null. */
export function ggufTypeProblem(name, tensor) {
  if (canDequantize(tensor.ggmlType)) return null;
  return `tensor '${name}' is ${GGML_TYPES[tensor.ggmlType].name}; GGUF weights must be ${READABLE_TYPES.join(', ')}`;
}
