// The whole-model rows of npm run bench:browser (called by bench/browser.js): writes the
// cases' files once into build/bench/models/ (a Hugging Face checkpoint and ONNX graphs per
// model), then one Chromium page per thread count loads them from the local server
// (bench/models.html) and runs bench/model-cases.js there.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { makeBert, makeGpt2 } from './model-cases.js';

const root = new URL('..', import.meta.url);

function writeModels(progress) {
  const dir = new URL('build/bench/models/', root);
  const bert = new URL('bert/', dir),
    gpt2 = new URL('gpt2/', dir),
    gpt2Bf16 = new URL('gpt2-bf16/', dir);
  if (!existsSync(new URL('model.onnx', bert))) {
    progress('writing the BERT-base-shaped checkpoint and graph');
    mkdirSync(bert, { recursive: true });
    const files = makeBert();
    writeFileSync(new URL('config.json', bert), JSON.stringify(files.config));
    writeFileSync(new URL('model.safetensors', bert), files.safetensors);
    writeFileSync(new URL('model.onnx', bert), files.onnx);
  }
  // decode-q8.onnx last: a folder written before the q8 graphs existed gets them too.
  if (!existsSync(new URL('decode-q8.onnx', gpt2))) {
    progress('writing the GPT-2-small-shaped checkpoint and graphs (float32 and q8)');
    mkdirSync(gpt2, { recursive: true });
    const files = makeGpt2({ q8: true });
    writeFileSync(new URL('config.json', gpt2), JSON.stringify(files.config));
    writeFileSync(new URL('model.safetensors', gpt2), files.safetensors);
    writeFileSync(new URL('prefill.onnx', gpt2), files.prefill);
    writeFileSync(new URL('decode.onnx', gpt2), files.decode);
    writeFileSync(new URL('prefill-q8.onnx', gpt2), files.prefillQ8);
    writeFileSync(new URL('decode-q8.onnx', gpt2), files.decodeQ8);
  }
  if (!existsSync(new URL('decode.onnx', gpt2Bf16))) {
    progress('writing the GPT-2-small-shaped bfloat16 checkpoint and graphs');
    mkdirSync(gpt2Bf16, { recursive: true });
    const files = makeGpt2({ bf16: true });
    writeFileSync(new URL('config.json', gpt2Bf16), JSON.stringify(files.config));
    writeFileSync(new URL('model.safetensors', gpt2Bf16), files.safetensors);
    writeFileSync(new URL('prefill.onnx', gpt2Bf16), files.prefill);
    writeFileSync(new URL('decode.onnx', gpt2Bf16), files.decode);
  }
}

/**
 * Opens a benchmark page, waits for it, runs `window[run](threads, options)` there and resolves to its
 * session; the page's progress lines go to `progress`, its errors (but `ignore`) fail the run.
 */
export async function runPage({ browser, url, path, run, threads, progress, ignore = null, options = {} }) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (message) => {
    const text = message.text();
    if (text.startsWith('progress: ')) progress(text.slice(10));
    else if (message.type() === 'error' && !(ignore && ignore.test(text))) errors.push(text);
  });
  await page.goto(`${url}${path}`);
  await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  const session = await page.evaluate(([name, n, o]) => window[name](n, o), [run, threads, options]);
  if (errors.length) throw new Error(`the benchmark page ${path} reported errors: ${errors.join('; ')}`);
  await page.close();
  return session;
}

/**
 * Runs the pages; resolves to one session per thread count. options: { only: 'quantized' (those
 * rows alone), quick: true (one short round each; not a measurement) }.
 */
export async function browserModelSessions({ browser, url, progress, options = {} }) {
  writeModels(progress);
  const sessions = [];
  // The loader asks for the optional files (tokenizer.json, …) these checkpoints lack: 404s.
  for (const threads of [1, 2])
    sessions.push(
      await runPage({
        browser,
        url,
        path: 'bench/models.html',
        run: 'runModels',
        threads,
        progress,
        ignore: /status of 404/,
        options,
      }),
    );
  return sessions;
}
