// Training a TinyTransformer on a toy task (tasks.js) in chunks: shared by the
// <attention-training> Worker and the tests, so both train the same way, bit for bit.
import { seededRandom, makeHeldOut } from './tasks.js';

/** Model sizes a learner can pick. */
export const PRESETS = Object.freeze({
  small: Object.freeze({ dModel: 32, numHeads: 2, numLayers: 2, dFF: 128 }),
  medium: Object.freeze({ dModel: 64, numHeads: 4, numLayers: 2, dFF: 256 }),
});

/** The model configuration for a task and a preset. */
export function toyConfig(task, preset = 'small', seed = 1) {
  return {
    vocabSize: task.vocabSize,
    maxLen: task.length,
    ...PRESETS[preset],
    causal: task.causal,
    head: 'token',
    seed,
  };
}

/**
 * Trains `model` on `task` forever (the caller stops), yielding after every `every` steps:
 * { step, loss (mean of the chunk, nats), accuracy (held-out token accuracy) }.
 * Deterministic for a seed: batches come from seededRandom(seed), the held-out set from its own.
 */
export function* trainToy(model, task, { seed = 1, lr = 3e-3, batchSize = 32, every = 10, heldOutCount = 256 } = {}) {
  const random = seededRandom(seed);
  const heldOut = makeHeldOut(task, 999, heldOutCount);
  for (let step = 0; ;) {
    let sum = 0;
    for (let i = 0; i < every; i++) sum += model.trainStep(task.makeBatch(random, batchSize), { lr, clipNorm: 1 }).loss;
    step += every;
    yield { step, loss: sum / every, accuracy: model.evaluate(heldOut).accuracy };
  }
}
