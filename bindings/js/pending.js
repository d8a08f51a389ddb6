// init() returns a Promise. Code that forgets `await` (`const attn = init();
// attn.attention(...)`) got "attn.attention is not a function"; the Promise init returns
// answers the API's names with a TypeError that says what to do instead.
const API_NAMES = [
  'attention',
  'attentionBackward',
  'matmul',
  'MultiHeadAttention',
  'TinyTransformer',
  'loadModel',
  'tensor',
  'toNested',
  'estimateMemory',
  'memory',
  'info',
];

/** `promise` (of the API), whose API-named properties throw a TypeError naming init. */
export function withAwaitHint(promise) {
  for (const name of API_NAMES) {
    Object.defineProperty(promise, name, {
      get() {
        throw new TypeError(`init: init() returns a Promise; await it first: const attn = await init(); attn.${name}`);
      },
    });
  }
  return promise;
}
