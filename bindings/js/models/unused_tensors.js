// The tensors a checkpoint holds that the model does not read, listed as transformers warns of
// them (model.unusedTensors: an lm_head under a base head, a GPT-2 attention-mask buffer), and
// the one kind refused: a tensor of a layer past the config's layer count, which means the
// file and its config disagree (a 6-layer file read as 2 layers runs a third of the model).
import { rangeError } from '../errors.js';

// A layer's index in a tensor name: blk.5. (GGUF), layers.5. / layer.5. (Llama, BERT), h.5.
// (GPT-2), block.5. / blocks.5.
const LAYER = /(?:^|\.)(?:blk|layers?|h|blocks?)\.(\d+)\./;
// Tensors read before the plan, by name: a GGUF file's RoPE factors and an embedder's Dense weights.
const READ_APART = /^(rope_(freqs|factors_long|factors_short)|dense_[23])\.weight$/;

/**
 * The checkpoint's tensors no plan entry or classifier layer reads, sorted; a RangeError when
 * one belongs to a layer the config does not have.
 * @param {string} fn @param {Iterable<string>} names every tensor of the checkpoint
 * @param {Set<string>} used @param {number} numLayers @param {string} source 'config.json', …
 */
export function unusedTensors(fn, names, used, numLayers, source) {
  const unused = [];
  for (const name of names) {
    if (used.has(name) || READ_APART.test(name)) continue;
    const layer = LAYER.exec(name);
    if (layer && Number(layer[1]) >= numLayers)
      throw rangeError(
        fn,
        `the checkpoint holds tensor '${name}' of layer ${layer[1]}, but ${source} says the model has ${numLayers} layers; the file and its config disagree`,
      );
    unused.push(name);
  }
  return Object.freeze(unused.sort());
}
