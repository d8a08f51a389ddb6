import { init } from 'attention-wasm';
import { randomArray, measureInterleaved } from './cases.js';
const attn = await init();
const n = 1024, d = 64;
const q = { data: randomArray(n*d, 1), shape: [n, d] };
const a = { data: randomArray(512*512, 1), shape: [512,512] };
const layer = new attn.MultiHeadAttention({ dModel: 512, numHeads: 8, seed: 1 });
const r = await measureInterleaved({
  full: () => attn.attention(q, q, q),
  weights: () => attn.attention(q, q, q, { returnWeights: true }),
  mm: () => attn.matmul(a, a),
  mha: () => layer.forward(a),
}, { rounds: 4 });
for (const [k, v] of Object.entries(r)) console.log(k, v.ms.toFixed(2), 'ms');
