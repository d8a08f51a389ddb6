// npm run bench's whole-model session (a child process of bench/run.js per thread count, as
// onnxruntime-web fixes its thread count when it starts):
//   node --expose-gc bench/models.js <threads>   prints { threads, versions, rows, bandwidth } as JSON
// The cases are bench/model-cases.js; here attention-wasm loads the checkpoint from memory
// (attn.loadModel with a map of file names to bytes) and onnxruntime-web the graphs' bytes.
import * as ort from 'onnxruntime-web';
import { init } from 'attention-wasm';
import { makeBert, makeGpt2, bertRow, gpt2Rows, copyBandwidth } from './model-cases.js';

const threads = Number(process.argv[2] ?? 1);
const progress = (text) => process.stderr.write(`models, ${threads} thread${threads > 1 ? 's' : ''}: ${text}\n`);
const attn = await init({ threads });
ort.env.wasm.numThreads = threads;
ort.env.logLevel = 'error';
const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };

const bandwidth = copyBandwidth();
progress('BERT: making weights');
const rows = [
  await bertRow({
    ort,
    progress,
    load: async () => {
      const files = makeBert();
      return {
        model: await attn.loadModel({ 'config.json': files.config, 'model.safetensors': files.safetensors }),
        session: await ort.InferenceSession.create(files.onnx, options),
      };
    },
  }),
];
progress('GPT-2: making weights');
rows.push(
  ...(await gpt2Rows({
    ort,
    progress,
    load: async () => {
      const files = makeGpt2();
      return {
        model: await attn.loadModel({ 'config.json': files.config, 'model.safetensors': files.safetensors }),
        prefill: await ort.InferenceSession.create(files.prefill, options),
        decode: await ort.InferenceSession.create(files.decode, options),
      };
    },
  })),
);
progress('GPT-2, bfloat16 checkpoint: making weights');
rows.push(
  ...(await gpt2Rows({
    ort,
    progress,
    bf16: true,
    load: async () => {
      const files = makeGpt2({ bf16: true });
      return {
        model: await attn.loadModel({ 'config.json': files.config, 'model.safetensors': files.safetensors }),
        prefill: await ort.InferenceSession.create(files.prefill, options),
        decode: await ort.InferenceSession.create(files.decode, options),
      };
    },
  })),
);
const versions = {
  'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.build} build)`,
  'onnxruntime-web': `onnxruntime-web ${ort.env.versions?.web ?? ''}`.trim(),
};
process.stdout.write(JSON.stringify({ threads, versions, rows, bandwidth }));
process.exit(0);
