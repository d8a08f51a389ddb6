// Vue 3 typings of the elements (for vue-tsc and Volar): each tag as a global component
// whose props are its attributes and its events (`@modelload="(e) => e.detail.model"`).
//   import type {} from 'attention-wasm/elements/vue';
// Vue also needs to be told these tags are custom elements when it compiles templates:
//   app.config.compilerOptions.isCustomElement = (tag) => tag.startsWith('attention-') ||
//     tag === 'positional-encoding' || tag === 'token-pruning'
// (in Vite: vue({ template: { compilerOptions: { isCustomElement } } })).
import type { DefineComponent } from 'vue';
import type { AttentionElementAttributes, AttentionElementEvents } from './index.js';

/** 'show-slides' → 'showSlides'. */
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/**
 * The element's attributes as Vue props, named in camelCase because vue-tsc matches a template's
 * `show-slides` to `showSlides`. Write them as in HTML (`show-slides`): on a custom element Vue
 * sets an attribute by the name written, and `showslides` is not one the element reads.
 */
type Props<Tag extends keyof AttentionElementAttributes> = {
  [Name in keyof AttentionElementAttributes[Tag] as Camel<Name & string>]: AttentionElementAttributes[Tag][Name];
};

/** Its events as Vue hands `@modelload` / `@training-done` to a component: `onModelload`, `onTrainingDone`. */
type Listeners<Tag extends keyof AttentionElementEvents> = {
  [Name in keyof AttentionElementEvents[Tag] & string as `on${Capitalize<Camel<Name>>}`]?: (
    event: CustomEvent<AttentionElementEvents[Tag][Name]>,
  ) => void;
};

/**
 * A custom element as Vue sees it: a component whose props are the element's attributes and
 * its events' listeners (checked by vue-tsc, `strictTemplates` too).
 */
type Element<Tag extends keyof AttentionElementAttributes> = DefineComponent<Props<Tag> & Listeners<Tag>>;

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
