// One model of bench/real-shape-models.js in a Chromium tab (bench/real-shapes.html, run by
// bench/browser-real-shapes.js): window.runRealShape(threads, { name, dtype, fileBytes, file })
// loads the checkpoint (the folder, or its `file`, a GGUF one) from the local server as a page would (loadModel(url): each tensor
// packed as its bytes arrive, the file never whole in JS memory), then measures what
// bench/real-shapes.js measures in Node, and the tab's own memory.
import { init } from 'attention-wasm';
import { measureRealShape } from './real-shape-models.js';

const status = document.getElementById('status');

window.runRealShape = async (threads, { name, dtype, fileBytes, file = '' }) => {
  const attn = await init({ threads });
  status.textContent = `${name}: loading`;
  console.log(`progress: ${name}, dtype ${dtype}, ${attn.info.threads} thread(s): loading from the server`);
  const url = new URL(`/build/bench/models/real-shapes/${name}/${file}`, location.href).href;
  const row = await measureRealShape(attn, name, url, dtype, fileBytes);
  const memory = attn.memory();
  return {
    ...row,
    'wasm memory (MiB)': (memory.heapBytes / 2 ** 20).toFixed(0),
    build: `${attn.info.build}, ${attn.info.threads} thread${attn.info.threads > 1 ? 's' : ''}`,
  };
};

status.textContent = 'ready';
document.body.dataset.ready = 'true';
