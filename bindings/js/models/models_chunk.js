// The pretrained-model chunk (glues.js `models`, imported on first use): loadModel, and the text
// classifier, which rides in the same chunk because it needs the tokenizer library as models
// do. This entry imports both, so neither imports the other: text/hub_classifier.js and
// text/probe_classifier.js call loadModel, and load_model.js knows nothing of classifiers.
export { loadModel } from './load_model.js';
export { loadClassifier, trainClassifier } from '../text/text_classifier.js';
