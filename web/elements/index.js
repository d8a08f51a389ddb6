// attention-wasm/elements: custom elements for tutorial authors. One module script registers
// them all; every element on the page shares one wasm instance (loaded on first use).
//
//   <script type="module" src="node_modules/attention-wasm/web/elements/index.js"></script>
//   <attention-steps example="2"></attention-steps>
import { AttentionMatrix } from './attention-matrix.js';
import { AttentionSteps, exampleData } from './attention-steps.js';
import { AttentionFlash, onlineSoftmaxSteps } from './attention-flash.js';
import { AttentionHeatmap } from './attention-heatmap.js';
import { PositionalEncoding } from './positional-encoding.js';
import { TokenPruning } from './token-pruning.js';
import { AttentionSentiment } from './attention-sentiment.js';
import { AttentionTraining } from './attention-training.js';
import { AttentionModel } from './attention-model.js';
import { AttentionExplainer } from './attention-explainer.js';
import { getApi, useApi } from './api.js';

const ELEMENTS = {
  'attention-matrix': AttentionMatrix,
  'attention-steps': AttentionSteps,
  'attention-flash': AttentionFlash,
  'attention-heatmap': AttentionHeatmap,
  'positional-encoding': PositionalEncoding,
  'token-pruning': TokenPruning,
  'attention-sentiment': AttentionSentiment,
  'attention-training': AttentionTraining,
  'attention-model': AttentionModel,
  'attention-explainer': AttentionExplainer,
};
for (const [name, element] of Object.entries(ELEMENTS)) {
  if (!customElements.get(name)) customElements.define(name, element);
}

export {
  AttentionMatrix,
  AttentionSteps,
  AttentionFlash,
  AttentionHeatmap,
  PositionalEncoding,
  TokenPruning,
  AttentionSentiment,
  AttentionTraining,
  AttentionModel,
  AttentionExplainer,
  exampleData,
  onlineSoftmaxSteps,
  getApi,
  useApi,
};
