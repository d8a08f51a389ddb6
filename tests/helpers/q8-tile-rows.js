// Prints, as JSON, the logits of generate with a q8 cache in the relaxed build with 6-row and
// with 4-row register tiles (tiny-gpt2 read as one head of 32: key rows of whole q8_0 blocks,
// scored in integers; a 20-token prompt runs in tiles of 6 or 4 rows):
//   node --experimental-wasm-relaxed-simd tests/helpers/q8-tile-rows.js
// (a child process: the relaxed build needs the flag in Node 20).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { instantiate } from '../../bindings/js/load.js';
import { GLUES } from '../../bindings/js/glues.js';
import { fixtureFiles } from './safetensors.js';

const folder = fileURLToPath(new URL('../fixtures/hf/tiny-gpt2', import.meta.url));
const config = JSON.parse(readFileSync(`${folder}/config.json`, 'utf8'));
const files = { ...fixtureFiles(folder), 'config.json': JSON.stringify({ ...config, n_head: 1 }) };
const bytes = readFileSync(new URL('../../dist/attention-relaxed.wasm', import.meta.url));
const prompt = Array.from({ length: 20 }, (_, i) => ((i * 7) % 50) + 3);
const runs = [];
for (const tileRows of [6, 4]) {
  const attn = await instantiate(GLUES, 'relaxed', { wasmBinary: bytes }, 'the relaxed wasm', { tileRows });
  const model = await attn.loadModel(files);
  const { scores } = await model.generate(prompt, {
    maxNewTokens: 6,
    stopAtEos: false,
    returnScores: true,
    kvDtype: 'q8',
  });
  runs.push({ tileRows: attn.info.tileRows, scores: scores.map((s) => Array.from(s)) });
  model.dispose();
}
process.stdout.write(JSON.stringify(runs));
