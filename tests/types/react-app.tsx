// Compiled (not run) by tests/types.test.js: the elements in React 19 TSX, with the package's
// JSX typings; misuse must not compile.
import type {} from 'attention-wasm/elements/react';
import { useRef } from 'react';
import type { AttentionMatrix } from 'attention-wasm/elements';

export function Lesson() {
  const matrix = useRef<AttentionMatrix>(null);
  const code: string | undefined = matrix.current?.toCode();
  const png: Promise<Blob> | undefined = matrix.current?.toPNG();
  void code;
  void png;
  return (
    <div>
      <attention-matrix
        ref={matrix}
        label="weights"
        heat="sequential"
        value="[[0.49,0.51],[0.52,0.48]]"
        editable
        row-labels="I,am"
      />
      <attention-steps example={2} show-slides="" mask="causal" className="wide" />
      <attention-flash block={2} q="[[1,0]]" k="[[1,0]]" v="[[1,2]]" />
      <attention-heatmap
        tokens="The,cat"
        view="lines"
        weights={[
          [0.5, 0.5],
          [0.2, 0.8],
        ]}
      />
      {/* An array is set as the property: each string one label, a comma and all. */}
      <attention-heatmap tokens={['1,000', 'cats']} weights="[[0.5,0.5],[0.2,0.8]]" />
      <positional-encoding kind="rope" />
      <token-pruning tokens={['The', 'cat']} drop="2" />
      <attention-sentiment text="not bad at all" eager />
      <attention-training task="reverse" steps={200} />
      {/* Events as React 19 listens to them on custom elements: on + the event's name. */}
      <attention-model
        src="tiny-gpt2"
        onmodelload={(e) => void e.detail.model.descriptor.numLayers}
        onloadprogress={(e) => void e.detail.loaded}
        onforward={(e) => void e.detail.attentions[0].shape}
      />
      <attention-explainer ontrace={(e) => void e.detail.position} />
      <attention-matrix
        editable
        onchange={(e) => void (e.detail.value + e.detail.row)}
        oncellfocus={(e) => void e.detail.col}
      />
      <attention-training
        ontraining-done={(e) => void e.detail.accuracy}
        ontraining-progress={(e) => void e.detail.loss}
      />
      <attention-sentiment onprediction={(e) => void e.detail.label} />
      <attention-heatmap onpair={(e) => void e.detail.weight} onheadtoggle={(e) => void e.detail.hidden.length} />
      <attention-steps oncompute={(e) => void e.detail.weights.shape} />
      <attention-flash onstep={(e) => void e.detail.blocks} />
      <token-pruning onchange={(e) => void e.detail.keep} />
      {/* @ts-expect-error React 19 listens to "Modelload" for onModelload: not this element's event */}
      <attention-model onModelload={() => {}} />
      {/* @ts-expect-error a model load's detail has no weights */}
      <attention-model onmodelload={(e) => void e.detail.weights} />
      {/* @ts-expect-error view is 'grid' or 'lines' */}
      <attention-heatmap view="bars" />
      {/* @ts-expect-error no such task */}
      <attention-training task="translate" />
    </div>
  );
}
