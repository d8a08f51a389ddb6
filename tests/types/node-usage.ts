// A Node project's use of the package: compiled with lib es2022 and @types/node, no DOM types
// (tests/types.test.js), as `tsc --init` with `"types": ["node"]` sets it up.
import { init } from 'attention-wasm';

const attn = await init();
const { output, weights } = attn.attention(
  [
    [1, 0],
    [0, 1],
  ],
  [
    [1, 0],
    [0, 1],
    [1, 1],
  ],
  [
    [1, 2],
    [3, 4],
    [5, 6],
  ],
  {
    causal: true,
    returnWeights: true,
  },
);
const nested = attn.toNested(output);
const model = await attn.loadModel(new URL('file:///models/tiny-gpt2/'));
const folder = await attn.loadModel(new Map<string, Uint8Array>([['config.json', new Uint8Array()]]));
console.log(nested, weights?.shape, attn.info.build);
model.dispose();
folder.dispose();
// @ts-expect-error a number is not a source
await attn.loadModel(3);
