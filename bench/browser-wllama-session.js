// The wllama comparison in a Chromium page (bench/wllama.html, run by bench/browser-wllama.js):
// window.runWllama(threads, { storages, rounds, log }) loads each GGUF file of bench/wllama-model.js
// from the local server into both engines — attention-wasm by URL (loadModel(url), dtype 'auto':
// the Q8_0 / Q4_0 blocks kept as they are), wllama (llama.cpp in wasm) from the same bytes as a
// Blob — and times the same request in both: the same 128 prompt ids, then 32 greedy tokens.
// Rounds are interleaved (ours, wllama; the next round wllama first), each turn after a full GC
// and 30 ms idle as bench/cases.js's measureInterleaved does.
//   attention-wasm: one model.generate(ids, { maxNewTokens: 32 }); prefill = from the call to the
//     first token (the 128-token forward, last logits only, and its argmax), decode = the time
//     from the first token to the last ÷ 31.
//   wllama: one createCompletion({ prompt, max_tokens: 32, temperature 0, top_k 1 }), the prompt
//     cache off, the prompt the text that is exactly those ids (wllama 3 takes no ids; the file's
//     vocabulary makes each id one character, bench/wllama-cases.js); prefill = llama.cpp's own timings.prompt_ms, decode =
//     timings.predicted_ms ÷ (predicted_n − 1) (31 evaluations after the first token, as ours
//     counts); the wall clock of the whole call is kept too (the worker's messages included).
import { Wllama } from '@wllama/wllama';
import { init } from 'attention-wasm';
import { PROMPT, STEPS, STORAGES, idsOf, modelPath, pieceOf, promptIds } from './wllama-cases.js';

const status = document.getElementById('status');
const WLLAMA_WASM = new URL('/node_modules/@wllama/wllama/esm/wasm/wllama.wasm', location.href).href;

window.runWllama = async (threads, { storages = STORAGES, rounds = 5, log = false } = {}) => {
  const attn = await init({ threads });
  const progress = (text) => {
    status.textContent = text;
    console.log(`progress: wllama, ${threads} thread${threads > 1 ? 's' : ''}: ${text}`);
  };
  const prompt = promptIds(PROMPT);
  const promptText = prompt.map(pieceOf).join('');
  const rows = [];
  let wllamaInfo = null;
  for (const storage of storages) {
    const url = `/${modelPath(storage)}`;
    progress(`${storage}: loading both engines`);
    const ours = await attn.loadModel(url, { cache: false });
    const dtype = storage.slice(0, 2);
    if (ours.matrixDtype !== dtype)
      throw new Error(`wllama bench: ours holds ${storage}'s matrices as ${ours.matrixDtype}`);
    // The text wllama gets is the ids ours gets (the file's own tokenizer, read by ours, says so).
    const encoded = ours.tokenizer.encode(promptText).ids;
    if (encoded.join() !== prompt.join())
      throw new Error(`wllama bench: the prompt text encodes to ${encoded.length} other ids`);
    const wllama = await loadWllama(url, threads, log);
    wllamaInfo = {
      multithread: wllama.isMultithread(),
      threads: wllama.getNumThreads(),
      libllama: Wllama.getLibllamaVersion?.(),
    };
    const runners = {
      'attention-wasm': () => oursRun(ours, prompt),
      wllama: () => wllamaRun(wllama, promptText),
    };

    // One warm-up run each (wasm tiers up, pools start), then the rounds.
    const first = {};
    for (const [label, run] of Object.entries(runners)) first[label] = await run();
    const samples = { 'attention-wasm': [], wllama: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? Object.keys(runners) : Object.keys(runners).reverse();
      for (const label of order) {
        progress(`${storage}: round ${r + 1}/${rounds}: ${label}`);
        globalThis.gc?.();
        await new Promise((resolve) => setTimeout(resolve, 30));
        samples[label].push(await runners[label]());
      }
    }
    ours.dispose();
    await wllama.exit();

    const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const tokens = first['attention-wasm'].tokens;
    const same = first.wllama.tokens ? first.wllama.tokens.filter((t, i) => t === tokens[i]).length : null;
    progress(`${storage}: greedy tokens equal in both engines: ${same ?? '?'} of ${STEPS}`);
    for (const label of Object.keys(runners))
      rows.push({
        engine: label,
        storage,
        threads,
        prefillMs: median(samples[label].map((s) => s.prefillMs)),
        decodeMs: median(samples[label].map((s) => s.decodeMs)),
        ...(label === 'wllama' ? { wallMs: median(samples[label].map((s) => s.wallMs)) } : {}),
        rounds,
        sameTokens: same,
        tokens: first[label].tokens,
      });
  }
  return {
    threads,
    build: `${attn.info.build}, ${attn.info.threads} thread${attn.info.threads > 1 ? 's' : ''}`,
    versions: {
      'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.build} build, ${attn.info.target})`,
      wllama: `@wllama/wllama 3.13.0 (llama.cpp ${wllamaInfo?.libllama ?? '?'}, ${wllamaInfo?.multithread ? `multi-thread, ${wllamaInfo.threads} threads` : 'single-thread'})`,
    },
    rows,
  };
};

// wllama over the same file's bytes: one slot, a 256-token context, the 128-token prompt one batch,
// CPU only (the page has no GPU; WebGPU would be asked for otherwise).
async function loadWllama(url, threads, log) {
  const blob = await (await fetch(url)).blob();
  // log: llama.cpp's own lines as progress lines (WLLAMA_LOG=1); else its errors only.
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
    n_ctx: 256,
    n_batch: PROMPT,
    n_ubatch: PROMPT,
    n_parallel: 1,
    n_gpu_layers: 0,
    warmup: false,
  });
  return wllama;
}

async function oursRun(model, prompt) {
  const t0 = performance.now();
  let first = 0;
  const { newIds } = await model.generate(prompt, {
    maxNewTokens: STEPS,
    stopAtEos: false,
    onToken: ({ index }) => {
      if (index === 0) first = performance.now();
    },
  });
  const end = performance.now();
  return { prefillMs: first - t0, decodeMs: (end - first) / (STEPS - 1), tokens: newIds };
}

async function wllamaRun(wllama, prompt) {
  const t0 = performance.now();
  const response = await wllama.createCompletion({
    prompt,
    max_tokens: STEPS,
    temperature: 0,
    top_k: 1,
    ignore_eos: true,
    cache_prompt: false,
    return_tokens: true,
  });
  const wallMs = performance.now() - t0;
  const t = response.timings;
  // The prompt must have been evaluated whole (no cache reuse) and 32 tokens generated.
  if (!t || t.prompt_n !== PROMPT || t.cache_n !== 0 || t.predicted_n !== STEPS)
    throw new Error(`wllama bench: unexpected timings ${JSON.stringify(t)}`);
  return {
    prefillMs: t.prompt_ms,
    decodeMs: t.predicted_ms / (t.predicted_n - 1),
    wallMs,
    tokens: tokensOf(response),
  };
}

// The generated ids: the response's tokens when llama.cpp returns them, else read from the text
// (null when a generated token is not a plain piece).
function tokensOf(response) {
  const choice = response.choices?.[0];
  if (Array.isArray(choice?.tokens)) return choice.tokens;
  if (Array.isArray(response.tokens)) return response.tokens;
  const ids = idsOf(choice?.text ?? '');
  return ids?.length === STEPS ? ids : null;
}

status.textContent = 'ready';
document.body.dataset.ready = 'true';
