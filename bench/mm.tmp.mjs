import { init } from 'attention-wasm';
import { randomArray, measure } from './cases.js';
const attn = await init();
for (const [m,k,n] of [[512,512,512],[64,64,64],[2048,512,512]]) {
  const a = { data: randomArray(m*k, 1), shape: [m,k] }, b = { data: randomArray(k*n, 2), shape: [k,n] };
  const r = await measure(() => attn.matmul(a, b), { minMs: 1000 });
  console.log(m,k,n, r.ms.toFixed(3), 'ms', (2*m*k*n/r.ms/1e6).toFixed(1), 'GFLOP/s');
}
