import { init } from 'attention-wasm';
import { randomArray, measure, mhaFlops, MHA_CASE as c } from './cases.js';
const attn = await init();
const layer = new attn.MultiHeadAttention({ dModel: 512, numHeads: 8, seed: 1 });
const x = { data: randomArray(512*512, 7), shape: [512, 512] };
const r = await measure(() => layer.forward(x), { minMs: 2000 });
console.log(r.ms.toFixed(2), 'ms', (mhaFlops(c)/r.ms/1e6).toFixed(1), 'GFLOP/s');
