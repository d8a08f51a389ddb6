// Decoding with a float32, bfloat16 and float16 key/value cache (generate's kvDtype) at a long
// context: the GPT-2-small-shaped case of model-cases.js (random weights), a 512-token prompt
// and 32 greedy steps; ms per token after the first (the prefill not timed) and the cache's
// bytes. Runs interleaved, the median of each reported. Run: node bench/kv-dtype.js [runs]
import { init } from 'attention-wasm';
import { makeGpt2, ids, GPT2 } from './model-cases.js';

const PROMPT = 512,
  STEPS = 32;
const runs = Number(process.argv[2] ?? 3);
const attn = await init();
const files = makeGpt2();
const model = await attn.loadModel({ 'config.json': files.config, 'model.safetensors': files.safetensors });
const prompt = ids(PROMPT, GPT2.V, 9);

async function decode(kvDtype) {
  let t0 = 0;
  const r = await model.generate(prompt, {
    maxNewTokens: STEPS,
    stopAtEos: false,
    kvDtype,
    onToken: ({ index }) => {
      if (index === 0) t0 = performance.now();
    },
  });
  return { ms: (performance.now() - t0) / (STEPS - 1), cacheBytes: r.cacheBytes, ids: r.newIds };
}

const dtypes = ['float32', 'bfloat16', 'float16'];
const times = Object.fromEntries(dtypes.map((d) => [d, []]));
const seen = {};
for (let run = 0; run < runs; run++) {
  for (const d of dtypes) {
    const r = await decode(d);
    times[d].push(r.ms);
    seen[d] = r;
  }
}
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
console.log(`GPT-2-small shape, ${PROMPT}-token prompt + ${STEPS} steps, threads ${attn.info.threads ?? 1}`);
for (const d of dtypes) {
  const same = seen[d].ids.every((id, i) => id === seen.float32.ids[i]);
  console.log(
    `${d.padEnd(9)} ${median(times[d]).toFixed(1)} ms/token (runs ${times[d].map((t) => t.toFixed(1)).join(', ')}),` +
      ` cache ${(seen[d].cacheBytes / 2 ** 20).toFixed(1)} MiB, tokens ${same ? '=' : '≠'} float32's`,
  );
}
model.dispose();
