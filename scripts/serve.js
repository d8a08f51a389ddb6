// npm start: serves the page on http://127.0.0.1:8080 (PORT overrides).
import { startServer } from './server.js';

const port = Number(process.env.PORT ?? 8080);
const { url } = await startServer({ port });
console.log(`attention-wasm: serving the worked examples at ${url}web/  (Ctrl+C stops)`);
