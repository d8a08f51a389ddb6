// The browser benchmark page's session (bench/browser.html, run by bench/browser.js in
// headless Chromium): window.runBenchmark(threads) runs every case with this library and
// onnxruntime-web at that thread count, in this page, and resolves to the session.
// onnxruntime-web fixes its thread count when its wasm starts: one page per thread count.
import { init } from 'attention-wasm';
import { runSession } from './session.js';
import * as onnxruntime from './peers/onnxruntime.js';

const status = document.getElementById('status');

window.runBenchmark = async (threads) => {
  const attn = await init({ threads });
  if (attn.info.threads !== threads)
    throw new Error(`asked for ${threads} threads, got ${attn.info.threads}: ${attn.info.threadsReason}`);
  const versions = {
    'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.build} build, ${attn.info.target})`,
    'onnxruntime-web': await onnxruntime.setup(threads),
  };
  const progress = (text) => {
    status.textContent = text;
    console.log(`progress: ${threads} thread${threads > 1 ? 's' : ''}: ${text}`);
  };
  const rows = await runSession({ attn, peers: [onnxruntime], progress });
  return {
    threads,
    build: attn.info.build,
    target: attn.info.target,
    versions,
    rows,
    userAgent: navigator.userAgent,
    crossOriginIsolated,
  };
};
status.textContent = 'ready';
document.body.dataset.ready = 'true';
