// Prints, as JSON, the sha256 of every result of the determinism suite for one build:
//   node --experimental-wasm-relaxed-simd tests/helpers/print-digests.js relaxed
// (a child process, so the relaxed build can run in Node with the flag it needs).
import { init } from 'attention-wasm';
import { determinismSuite } from './determinism-suite.js';
import { digests } from './digests.js';

const simd = process.argv[2] ?? 'baseline';
const attn = await init({ simd });
process.stdout.write(JSON.stringify({ build: attn.info.build, digests: digests(determinismSuite(attn)) }));
