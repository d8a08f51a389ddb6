// The linear probe in a Chromium page (bench/probe.html, run by bench/browser-probe.js):
// window.runProbe(threads, { sentences, epochs, heldOut }) loads the BERT-base-shaped encoder
// from the local server, then times TextClassifier.train on the first `sentences` review
// sentences of the training split, on the page's main thread, as bench/probe.js does in Node:
// the embedding (the encoder's forward and mean pooling; per sentence) and the head's training
// (`epochs` epochs). Then the accuracy on the first `heldOut` held-out sentences (null: all;
// 0: none, accuracy null), which on random weights says nothing.
import { init } from 'attention-wasm';
import { reviewSplits, SOURCES } from '../web/elements/training/review-recipe.js';
import { encoderShape, timeProbe } from './probe-timing.js';

const DATA = new URL('../web/elements/models/review-sentiment/training/', import.meta.url);
const MODEL = '/build/bench/models/bert-probe/';
const status = document.getElementById('status');

async function reviewFiles() {
  const read = async ([source, name]) => [source, await (await fetch(new URL(name, DATA))).text()];
  return Object.fromEntries(await Promise.all(Object.entries(SOURCES).map(read)));
}

window.runProbe = async (threads, { sentences, epochs, heldOut = null }) => {
  const attn = await init({ threads });
  if (attn.info.threads !== threads)
    throw new Error(`asked for ${threads} threads, got ${attn.info.threads}: ${attn.info.threadsReason}`);
  const progress = (text) => {
    status.textContent = text;
    console.log(`progress: probe, ${threads} thread${threads > 1 ? 's' : ''}: ${text}`);
  };
  const splits = reviewSplits(await reviewFiles());
  const corpus = splits.train.slice(0, sentences);
  const held = Object.values(splits.heldOut)
    .flat()
    .slice(0, heldOut ?? undefined);
  progress('loading the BERT-base-shaped encoder from the server');
  const encoder = await attn.loadModel(MODEL, { cache: false });
  const shape = encoderShape(encoder);
  // Tokens per sentence, [CLS] and [SEP] included: what the per-sentence time depends on.
  const tokens = corpus.reduce((sum, r) => sum + encoder.tokenizer.encode(r.text).ids.length, 0);
  progress(`${corpus.length} sentences (${(tokens / corpus.length).toFixed(1)} tokens each) on ${shape}`);
  // 1. The corpus embedded, then the head trained.
  const { probe, embedMs, trainSeconds } = await timeProbe(attn, corpus, {
    encoder,
    epochs,
    onEmbedded: (n, total) => {
      if (n % 256 === 0 || n === total) progress(`embedded ${n} of ${total}`);
    },
  });
  // 2. The held-out accuracy (random weights: meaningless, printed to show the path runs);
  // heldOut 0 skips it.
  let accuracy = null;
  if (held.length) {
    progress(`training done; evaluating on ${held.length} held-out sentences`);
    accuracy = probe.evaluate(held).accuracy;
  }
  probe.dispose();
  encoder.dispose();
  return {
    threads: attn.info.threads,
    build: attn.info.build,
    shape,
    sentences: corpus.length,
    epochs,
    tokensPerSentence: tokens / corpus.length,
    embedMs,
    trainSeconds,
    accuracy,
    heldOut: held.length,
  };
};
status.textContent = 'ready';
document.body.dataset.ready = 'true';
