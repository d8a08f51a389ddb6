// A module Worker with no import map: loads the package by path, a checkpoint by URL, and
// answers with the first layer's attention and the tokens (tests/model-element.test.js).
import { init } from '/bindings/js/browser.js';

self.onmessage = async ({ data }) => {
  try {
    const attn = await init({ simd: 'baseline' });
    const model = await attn.loadModel(data.src, { cache: false });
    const out = model.forward(data.text, { attentions: true });
    self.postMessage({ tokens: out.tokens[0].map((t) => t.text), attention: Array.from(out.attentions[0].data) });
    model.dispose();
  } catch (error) {
    self.postMessage({ error: `${error.name}: ${error.message}` });
  }
};
