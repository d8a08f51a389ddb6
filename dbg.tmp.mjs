import { init } from 'attention-wasm';
const attn = await init();
const m = await attn.loadModel('tests/fixtures/hf/tiny-llama/', { dtype: 'q8' });
m.dispose();
