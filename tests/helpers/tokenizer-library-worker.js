// Runs @huggingface/tokenizers on a worker thread, so that a test can stop a call that does
// not return (a RegExp cannot be interrupted on its own thread). Messages:
//   { kind: 'encode', json, text }  → { ms }: the library's encode of text with that file
//   { kind: 'match', pattern, inputs } → { worst, at }: the slowest global match (ms, best
//     of two tries when over 20 ms) of the pattern as a Split pre-tokenizer compiles it
import { parentPort } from 'node:worker_threads';
import { Tokenizer, SplitPreTokenizer } from '@huggingface/tokenizers';

function matchTime(re, text) {
  const start = performance.now();
  for (const m of text.matchAll(re)) void m;
  return performance.now() - start;
}

parentPort.on('message', (message) => {
  if (message.kind === 'encode') {
    const tokenizer = new Tokenizer(message.json, {});
    const start = performance.now();
    tokenizer.encode(message.text);
    parentPort.postMessage({ ms: performance.now() - start });
  } else if (message.kind === 'match') {
    const re = new SplitPreTokenizer({ pattern: { Regex: message.pattern }, behavior: 'Isolated', invert: false })
      .pattern;
    let worst = 0;
    let at = -1;
    message.inputs.forEach((text, i) => {
      let ms = matchTime(re, text);
      if (ms > 20) ms = Math.min(ms, matchTime(re, text)); // a pause of the machine, or the pattern?
      if (ms > worst) [worst, at] = [ms, i];
    });
    parentPort.postMessage({ worst, at });
  }
});
