// The linear probe's timing, shared by bench/probe.js (Node) and bench/browser-probe-session.js
// (a Chromium page): TextClassifier.train(corpus, { encoder }) with its progress events marking
// where embedding the corpus ends and training the head begins.

/** "bert, 12 layers, 12 heads, 768 wide": the encoder's shape for the tables. */
export function encoderShape(encoder) {
  const d = encoder.descriptor;
  return `${encoder.modelType}, ${d.numLayers} layers, ${d.numHeads} heads, ${d.dModel} wide`;
}

/**
 * Trains the probe; resolves to { probe, embedMs (per sentence), trainSeconds }. onEmbedded(n,
 * total) follows the embedding.
 */
export async function timeProbe(attn, corpus, { encoder, epochs, onEmbedded = () => {} }) {
  let embedded = 0,
    started = 0;
  const begin = performance.now();
  const probe = await attn.TextClassifier.train(corpus, {
    encoder,
    epochs,
    onProgress: (e) => {
      if (e.stage === 'embedding') {
        embedded = performance.now();
        onEmbedded(e.embedded, e.total);
      } else if (e.epoch === 1) started = embedded; // training starts where embedding ended
    },
  });
  const end = performance.now();
  return { probe, embedMs: (embedded - begin) / corpus.length, trainSeconds: (end - started) / 1000 };
}
