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
      <positional-encoding kind="rope" />
      <token-pruning tokens={['The', 'cat']} drop="2" />
      <attention-sentiment text="not bad at all" eager />
      <attention-training task="reverse" steps={200} />
      {/* @ts-expect-error view is 'grid' or 'lines' */}
      <attention-heatmap view="bars" />
      {/* @ts-expect-error no such task */}
      <attention-training task="translate" />
    </div>
  );
}
