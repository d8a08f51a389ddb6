import { init } from 'attention-wasm';
import { makeGpt2 } from './bench/model-cases.js';
const attn = await init({ threads: Number(process.argv[2] ?? 1) });
const files = makeGpt2();
const src = { 'config.json': files.config, 'model.safetensors': files.safetensors };
const prompt = Array.from({ length: 128 }, (_, i) => (i * 31 + 7) % 50000);
for (const dtype of ['float32', 'q8', 'q4']) {
  const m = await attn.loadModel(src, { dtype });
  m.forward(prompt);
  let best = 1e9;
  for (let r = 0; r < 3; r++) { const t = performance.now(); m.forward(prompt); best = Math.min(best, performance.now() - t); }
  let t0 = 0;
  const g = await m.generate(prompt, { maxNewTokens: 17, stopAtEos: false, onToken: ({ index }) => { if (index === 0) t0 = performance.now(); } });
  const dec = (performance.now() - t0) / 16;
  console.log(dtype, 'MiB', (m.parameterBytes / 2 ** 20).toFixed(0), 'prefill ms', best.toFixed(0), 'decode ms/token', dec.toFixed(1));
  m.dispose();
}
