import { init } from 'attention-wasm';
import { randomArray } from './cases.js';
const attn = await init();
const layer = new attn.MultiHeadAttention({ dModel: 512, numHeads: 8, seed: 1 });
const x = { data: randomArray(512*512, 7), shape: [512, 512] };
const q = { data: randomArray(8*512*64, 1), shape: [8, 512, 64] };
const a = { data: randomArray(512*512, 1), shape: [512,512] };
const fns = { mha: () => layer.forward(x), att: () => attn.attention(q, q, q), mm: () => attn.matmul(a, a) };
for (let round = 0; round < 2; round++) for (const [name, fn] of Object.entries(fns)) {
  const t = [];
  for (let i = 0; i < 60; i++) { const t0 = performance.now(); fn(); t.push(performance.now() - t0); }
  t.sort((x, y) => x - y);
  console.log(name, 'min', t[0].toFixed(2), 'p25', t[15].toFixed(2), 'med', t[30].toFixed(2), 'max', t[59].toFixed(2));
}
