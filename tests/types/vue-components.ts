// Compiled (not run) by tests/types.test.js: the Vue augmentation registers every tag.
import type {} from 'attention-wasm/elements/vue';
import type { GlobalComponents } from 'vue';

const tags: Array<keyof GlobalComponents> = [
  'attention-matrix',
  'attention-steps',
  'attention-flash',
  'attention-heatmap',
  'positional-encoding',
  'token-pruning',
  'attention-sentiment',
  'attention-training',
];
// @ts-expect-error not one of ours
const wrong: keyof GlobalComponents = 'attention-nothing';
export { tags, wrong };
