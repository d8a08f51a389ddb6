// The whole-model benchmark in a Chromium page (bench/models.html, run by
// bench/browser-models.js): window.runModels(threads) first times loading the GPT-2-small-
// shaped checkpoint from the local server the way a page would (attn.loadModel(url), the
// download included, the Cache API off) and reads the memory it takes, then runs the cases of
// bench/model-cases.js with both engines loading their files from the server.
import * as ort from 'onnxruntime-web';
import { init } from 'attention-wasm';
import { bertRow, gpt2Rows, copyBandwidth } from './model-cases.js';

const status = document.getElementById('status');
const MODELS = '/build/bench/models';

window.runModels = async (threads) => {
  const attn = await init({ threads });
  ort.env.wasm.numThreads = threads;
  ort.env.logLevel = 'error';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const progress = (text) => {
    status.textContent = text;
    console.log(`progress: models, ${threads} thread${threads > 1 ? 's' : ''}: ${text}`);
  };
  // 1. GPT-2 small from the server into the tab: time and memory.
  progress('GPT-2: loading the checkpoint from the server');
  const before = { heap: attn.memory().heapBytes, js: performance.memory?.usedJSHeapSize ?? 0 };
  const t0 = performance.now();
  const model = await attn.loadModel(`${MODELS}/gpt2/`, { cache: false });
  const loadMs = performance.now() - t0;
  const load = {
    ms: loadMs,
    wasmHeapBytes: attn.memory().heapBytes,
    parameterBytes: model.parameterBytes,
    jsHeapBytes: (performance.memory?.usedJSHeapSize ?? 0) - before.js,
    firstForwardMs: 0,
  };
  const t1 = performance.now();
  model.forward(Array.from({ length: 128 }, (_, i) => (i * 7919) % 50257));
  load.firstForwardMs = performance.now() - t1;
  load.wasmHeapAfterForwardBytes = attn.memory().heapBytes;
  model.dispose();
  // 2. The cases, both engines reading their files from the server.
  const bandwidth = copyBandwidth();
  const rows = [
    await bertRow({
      ort,
      progress,
      load: async () => ({
        model: await attn.loadModel(`${MODELS}/bert/`, { cache: false }),
        session: await ort.InferenceSession.create(`${MODELS}/bert/model.onnx`, options),
      }),
    }),
  ];
  rows.push(
    ...(await gpt2Rows({
      ort,
      progress,
      load: async () => ({
        model: await attn.loadModel(`${MODELS}/gpt2/`, { cache: false }),
        prefill: await ort.InferenceSession.create(`${MODELS}/gpt2/prefill.onnx`, options),
        decode: await ort.InferenceSession.create(`${MODELS}/gpt2/decode.onnx`, options),
      }),
    })),
  );
  rows.push(
    ...(await gpt2Rows({
      ort,
      progress,
      bf16: true,
      load: async () => ({
        model: await attn.loadModel(`${MODELS}/gpt2-bf16/`, { cache: false }),
        prefill: await ort.InferenceSession.create(`${MODELS}/gpt2-bf16/prefill.onnx`, options),
        decode: await ort.InferenceSession.create(`${MODELS}/gpt2-bf16/decode.onnx`, options),
      }),
    })),
  );
  const versions = {
    'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.build} build, ${attn.info.target})`,
    'onnxruntime-web': `onnxruntime-web ${ort.env.versions?.web ?? ''}`.trim(),
  };
  return { threads, versions, rows, bandwidth, load };
};
status.textContent = 'ready';
document.body.dataset.ready = 'true';
