// The long-context rows in a Chromium page (bench/long-context.html, run by
// bench/browser-long-context.js): window.runLongContext(threads, { path, prompts, steps, rounds,
// kvDtypes, wllama, log }) loads the GGUF file at `path` into both engines (as
// bench/browser-wllama-session.js does) and times, per prompt length, a prefill of that many
// ids and `steps` greedy tokens after it: ours once per kvDtype (the key/value cache's storage),
// wllama at its defaults (its own batch sizes and flash attention; a context of the prompt and
// the steps). Rounds interleaved, each turn after a full GC and 30 ms idle; medians.
//   attention-wasm: model.generate(ids, { maxNewTokens: steps, kvDtype }); prefill = the call
//     to its first token, decode = first to last token ÷ (steps − 1); cacheBytes as generate
//     reports it; heap = malloc's high-water mark of the tab after the runner's first call
//     (monotone over the session: the prompts run shortest first).
//   wllama: createCompletion, the prompt cache off; llama.cpp's own timings.
import { Wllama } from '@wllama/wllama';
import { init } from 'attention-wasm';
import { pieceOf, promptIds } from './wllama-cases.js';

const status = document.getElementById('status');
const WLLAMA_WASM = new URL('/node_modules/@wllama/wllama/esm/wasm/wllama.wasm', location.href).href;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

window.runLongContext = async (threads, options) => {
  const { path, prompts, steps, rounds, kvDtypes, wllama: withWllama = true, log = false } = options;
  const attn = await init({ threads });
  const progress = (text) => {
    status.textContent = text;
    console.log(`progress: long context, ${threads} thread${threads > 1 ? 's' : ''}: ${text}`);
  };
  progress('loading ours');
  const ours = await attn.loadModel(`/${path}`, { cache: false });
  const vocab = ours.descriptor.vocabSize;
  const rows = [];
  let libllama = null;
  for (const prompt of prompts) {
    const ids = promptIds(prompt, vocab);
    const runners = {};
    for (const kvDtype of kvDtypes)
      runners[`attention-wasm kv ${kvDtype}`] = () => oursRun(attn, ours, ids, steps, kvDtype);
    let wllama = null;
    if (withWllama) {
      progress(`${prompt} tokens: loading wllama`);
      wllama = await loadWllama(`/${path}`, threads, prompt + steps, log);
      libllama = Wllama.getLibllamaVersion?.() ?? libllama;
      const text = ids.map(pieceOf).join('');
      runners.wllama = () => wllamaRun(wllama, text, prompt, steps);
    }
    const first = {};
    for (const [label, run] of Object.entries(runners)) {
      progress(`${prompt} tokens: warm-up: ${label}`);
      first[label] = await run();
    }
    const samples = Object.fromEntries(Object.keys(runners).map((label) => [label, []]));
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? Object.keys(runners) : Object.keys(runners).reverse();
      for (const label of order) {
        progress(`${prompt} tokens: round ${r + 1}/${rounds}: ${label}`);
        globalThis.gc?.();
        await new Promise((resolve) => setTimeout(resolve, 30));
        samples[label].push(await runners[label]());
      }
    }
    if (wllama) await wllama.exit();
    for (const label of Object.keys(runners))
      rows.push({
        engine: label,
        prompt,
        steps,
        threads,
        prefillMs: median(samples[label].map((s) => s.prefillMs)),
        decodeMs: median(samples[label].map((s) => s.decodeMs)),
        cacheBytes: first[label].cacheBytes ?? null,
        heapBytes: first[label].heapBytes ?? null,
        rounds,
        tokens: first[label].tokens,
      });
  }
  ours.dispose();
  return {
    threads,
    versions: {
      'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.build} build, ${attn.info.target})`,
      ...(withWllama ? { wllama: `@wllama/wllama 3.13.0 (llama.cpp ${libllama ?? '?'})` } : {}),
    },
    rows,
  };
};

// wllama at its defaults but for the context (the prompt and the steps, rounded up to 256) and
// the threads; CPU only.
async function loadWllama(url, threads, tokens, log) {
  const blob = await (await fetch(url)).blob();
  const say = (...a) => console.log(`progress: [wllama] ${a.map(String).join(' ')}`);
  const quiet = () => {};
  const wllama = new Wllama(
    { default: WLLAMA_WASM },
    log
      ? { suppressNativeLog: false, logger: { debug: say, log: say, warn: say, error: say } }
      : { suppressNativeLog: true, logger: { debug: quiet, log: quiet, warn: console.warn, error: console.error } },
  );
  await wllama.loadModel([blob], {
    n_threads: threads,
    n_ctx: Math.ceil(tokens / 256) * 256,
    n_parallel: 1,
    n_gpu_layers: 0,
    warmup: false,
  });
  return wllama;
}

async function oursRun(attn, model, ids, steps, kvDtype) {
  const t0 = performance.now();
  let first = 0;
  const { newIds, cacheBytes } = await model.generate(ids, {
    maxNewTokens: steps,
    stopAtEos: false,
    kvDtype,
    onToken: ({ index }) => {
      if (index === 0) first = performance.now();
    },
  });
  const end = performance.now();
  const heapBytes = attn.memory().peakBytes;
  return { prefillMs: first - t0, decodeMs: (end - first) / (steps - 1), cacheBytes, heapBytes, tokens: newIds };
}

async function wllamaRun(wllama, text, prompt, steps) {
  const response = await wllama.createCompletion({
    prompt: text,
    max_tokens: steps,
    temperature: 0,
    top_k: 1,
    ignore_eos: true,
    cache_prompt: false,
    return_tokens: true,
  });
  const t = response.timings;
  if (!t || t.prompt_n !== prompt || t.cache_n !== 0 || t.predicted_n !== steps)
    throw new Error(`long-context bench: unexpected wllama timings ${JSON.stringify(t)}`);
  return { prefillMs: t.prompt_ms, decodeMs: t.predicted_ms / (t.predicted_n - 1), tokens: null };
}

status.textContent = 'ready';
document.body.dataset.ready = 'true';
