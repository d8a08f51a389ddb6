// One Node benchmark session (a child process of bench/run.js, so that onnxruntime-web's
// thread count, fixed once its wasm starts, is this session's own):
//   node bench/node-session.js <threads>
// Prints { threads, build, versions, rows } as JSON on stdout; progress on stderr.
import { init } from 'attention-wasm';
import { runSession } from './session.js';
import * as onnxruntime from './peers/onnxruntime.js';
import * as tfjs from './peers/tfjs.js';

const threads = Number(process.argv[2] ?? 1);
const attn = await init({ threads });
if (attn.info.threads !== threads)
  throw new Error(`asked for ${threads} threads, got ${attn.info.threads}: ${attn.info.threadsReason}`);
// tfjs-backend-wasm runs one thread in Node: it joins the one-thread session only.
const peers = threads === 1 ? [tfjs, onnxruntime] : [onnxruntime];
const versions = {
  'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.build} build, ${attn.info.target})`,
};
for (const peer of peers) versions[peer.name] = await peer.setup(threads);
const progress = (text) => process.stderr.write(`${threads} thread${threads > 1 ? 's' : ''}: ${text}\n`);
const rows = await runSession({ attn, peers, plain: threads === 1, progress });
process.stdout.write(JSON.stringify({ threads, build: attn.info.build, target: attn.info.target, versions, rows }));
