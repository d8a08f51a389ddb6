// Vue 3 typings of the elements (for vue-tsc and Volar): each tag as a global component
// whose props are its attributes.
//   import type {} from 'attention-wasm/elements/vue';
// Vue also needs to be told these tags are custom elements when it compiles templates:
//   app.config.compilerOptions.isCustomElement = (tag) => tag.startsWith('attention-') ||
//     tag === 'positional-encoding' || tag === 'token-pruning'
// (in Vite: vue({ template: { compilerOptions: { isCustomElement } } })).
import type { DefineComponent } from 'vue';
import type { AttentionElementAttributes } from './index.js';

/** A custom element as Vue sees it: a component whose props are the element's attributes. */
type Element<Tag extends keyof AttentionElementAttributes> = DefineComponent<AttentionElementAttributes[Tag]>;

declare module 'vue' {
  interface GlobalComponents {
    'attention-matrix': Element<'attention-matrix'>;
    'attention-steps': Element<'attention-steps'>;
    'attention-flash': Element<'attention-flash'>;
    'attention-heatmap': Element<'attention-heatmap'>;
    'positional-encoding': Element<'positional-encoding'>;
    'token-pruning': Element<'token-pruning'>;
    'attention-sentiment': Element<'attention-sentiment'>;
    'attention-training': Element<'attention-training'>;
    'attention-model': Element<'attention-model'>;
    'attention-explainer': Element<'attention-explainer'>;
  }
}
