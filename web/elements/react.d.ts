// JSX typings of the elements for React 19 (`@types/react`): each tag takes its attributes
// (as strings, or the values its properties accept) besides React's own HTML props.
//   import type {} from 'attention-wasm/elements/react';   // once, e.g. in a .d.ts or main.tsx
//   <attention-matrix value="[[0.49,0.51],[0.52,0.48]]" editable onchange={(e) => e.detail.value} />
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type {
  AttentionElementAttributes,
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
  AttentionElementEvents,
} from './index.js';

/**
 * The element's events as React 19 listens to them on a custom element: `on` + the event's
 * name, as it is spelled (`onmodelload`, `ontraining-done`; `onModelload` would listen to
 * "Modelload"), each handler given the `CustomEvent`.
 */
type EventProps<Tag extends keyof AttentionElementEvents, E extends HTMLElement> = {
  [Name in keyof AttentionElementEvents[Tag] & string as `on${Name}`]?: (
    event: CustomEvent<AttentionElementEvents[Tag][Name]> & { currentTarget: E },
  ) => void;
};

/** React props of one element: its attributes, its events, React's HTML props, and a ref to the element. */
type Props<Tag extends keyof AttentionElementAttributes, E extends HTMLElement> = Omit<
  DetailedHTMLProps<HTMLAttributes<E>, E>,
  keyof AttentionElementAttributes[Tag]
> &
  AttentionElementAttributes[Tag] &
  EventProps<Tag, E>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'attention-matrix': Props<'attention-matrix', AttentionMatrix>;
      'attention-steps': Props<'attention-steps', AttentionSteps>;
      'attention-flash': Props<'attention-flash', AttentionFlash>;
      'attention-heatmap': Props<'attention-heatmap', AttentionHeatmap>;
      'positional-encoding': Props<'positional-encoding', PositionalEncoding>;
      'token-pruning': Props<'token-pruning', TokenPruning>;
      'attention-sentiment': Props<'attention-sentiment', AttentionSentiment>;
      'attention-training': Props<'attention-training', AttentionTraining>;
      'attention-model': Props<'attention-model', AttentionModel>;
      'attention-explainer': Props<'attention-explainer', AttentionExplainer>;
    }
  }
}
