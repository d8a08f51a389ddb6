// Compiled (not run) by tests/types.test.js: the elements' events through addEventListener,
// each listener given its CustomEvent's detail; DOM events keep theirs; misuse must not compile.
import type {} from 'attention-wasm/elements';

const model = document.querySelector('attention-model')!;
model.addEventListener('modelload', (e) => void e.detail.model.descriptor.numLayers);
model.addEventListener('loadprogress', (e) => void (e.detail.loaded / (e.detail.total ?? 1)));
model.addEventListener('click', (e) => void e.clientX);
document.querySelector('attention-explainer')!.addEventListener('trace', (e) => void e.detail.position);
const matrix = document.querySelector('attention-matrix')!;
const onChange = (e: CustomEvent<{ row: number; col: number; value: number }>) => void e.detail.value;
matrix.addEventListener('change', onChange);
matrix.removeEventListener('change', onChange);
document.querySelector('attention-training')!.addEventListener('training-done', (e) => void e.detail.accuracy);
document.querySelector('attention-sentiment')!.addEventListener('prediction', (e) => void e.detail.label);
document.querySelector('token-pruning')!.addEventListener('change', (e) => void e.detail.keep.length);
document.querySelector('attention-flash')!.addEventListener('step', (e) => void e.detail.blocks);
// @ts-expect-error a model load's detail has no weights
model.addEventListener('modelload', (e) => void e.detail.weights);
// @ts-expect-error a click is no CustomEvent
model.addEventListener('click', (e) => void e.detail.model);
