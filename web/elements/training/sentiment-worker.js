// A module Worker that trains the sentiment classifier from scratch, off the page's main
// thread: { type: 'train', steps, seed } in; { type: 'progress', step, loss, accuracy } every
// chunk and { type: 'done', weights, seconds, accuracy } out. Its own wasm instance.
import { init } from './api.js';
import { SENTIMENT_CONFIG, sentimentData, trainSentiment } from './sentiment-training.js';

let attn = null;

self.onmessage = async ({ data: message }) => {
  if (message.type !== 'train') return;
  try {
    attn ??= await init();
    const model = new attn.TinyTransformer({ ...SENTIMENT_CONFIG, seed: message.seed ?? SENTIMENT_CONFIG.seed });
    const started = performance.now();
    let last = null;
    for (const progress of trainSentiment(model, sentimentData(), { steps: message.steps ?? 600, seed: message.seed ?? 7 })) {
      last = progress;
      self.postMessage({ type: 'progress', ...progress });
    }
    self.postMessage({ type: 'done', weights: model.getWeights(), seconds: (performance.now() - started) / 1000, accuracy: last.accuracy, build: attn.info.build });
    model.dispose();
  } catch (error) {
    self.postMessage({ type: 'error', message: String(error?.message ?? error) });
  }
};
