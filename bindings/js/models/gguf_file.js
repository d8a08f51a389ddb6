// Where a GGUF file comes from: a path to the file (Node), an http(s) or file: URL ending in
// .gguf, a File or Blob (or a list of one .gguf File, as a drop gives), or its bytes
// (Uint8Array, ArrayBuffer). Each gives { description, size, chunks(), read?(begin, end),
// close() }: chunks() streams the file front to back; read is there when the source has random
// access (then a tensor is read where it lies). Told apart from a checkpoint folder by the
// magic 'GGUF' (a path, a Blob, bytes) or the URL's name.
import { rangeError } from '../errors.js';
import { isGguf } from './gguf.js';
import { fetchFailureHint } from '../fetch_failure.js';

const CHUNK = 1 << 20;

async function nodeBuiltin(specifier) {
  const process = globalThis.process;
  if (typeof process?.getBuiltinModule === 'function') return process.getBuiltinModule(specifier);
  return import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
}

// Random access → chunks from `at` on, read lazily.
function chunksOf(read, size) {
  return (async function* () {
    for (let at = 0; at < size; at += CHUNK) yield await read(at, Math.min(size, at + CHUNK));
  })();
}

function randomAccess(description, size, read, close = () => {}) {
  return { description, size, read, chunks: () => chunksOf(read, size), close };
}

function notGguf(fn, what) {
  return rangeError(
    fn,
    `${what} does not start with 'GGUF'; a single file is read as a GGUF checkpoint (give a folder for a Hugging Face one)`,
  );
}

const isBlob = (x) => typeof Blob === 'function' && x instanceof Blob;
const blobRead = (blob) => async (begin, end) => new Uint8Array(await blob.slice(begin, end).arrayBuffer());

async function pathSource(fn, path) {
  const fs = await nodeBuiltin('node:fs/promises');
  const stat = await fs.stat(path).catch(() => null);
  if (stat === null || !stat.isFile()) return null; // a folder, or nothing: the folder reader says
  const handle = await fs.open(path, 'r');
  const read = async (begin, end) => {
    const out = new Uint8Array(end - begin);
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await handle.read(out, done, out.length - done, begin + done);
      if (bytesRead === 0) throw rangeError(fn, `${path} ended at byte ${begin + done}, before ${end} (truncated?)`);
      done += bytesRead;
    }
    return out;
  };
  const first = await read(0, Math.min(4, stat.size));
  if (!isGguf(first)) {
    await handle.close();
    // A file named .gguf must be one; any other is not ours to judge: a path that names a file
    // rather than a folder may still be a Hub id (the folder reader decides, as transformers).
    if (/\.gguf$/i.test(path)) throw notGguf(fn, path);
    return null;
  }
  return randomAccess(path, stat.size, read, () => handle.close().catch(() => {}));
}

// An http(s) URL, streamed: the header as it arrives, then each tensor as its bytes come.
function urlSource(fn, url, { onProgress, fetchOptions, signal }) {
  let body = null;
  const name = url.pathname.split('/').pop();
  return {
    description: url.href,
    size: null,
    async open() {
      const options = signal && !fetchOptions?.signal ? { ...fetchOptions, signal } : fetchOptions;
      let response;
      try {
        response = await fetch(url, options);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw rangeError(fn, `could not fetch ${url}: ${error.message}${fetchFailureHint(url)}`, { cause: error });
      }
      if (!response.ok) {
        response.body?.cancel().catch(() => {});
        throw rangeError(fn, `could not fetch ${url}: HTTP ${response.status}`);
      }
      const encoding = response.headers.get('content-encoding');
      this.size =
        (!encoding || encoding === 'identity') && Number(response.headers.get('content-length'))
          ? Number(response.headers.get('content-length'))
          : null;
      body = response.body.getReader();
    },
    chunks() {
      const size = this.size;
      return (async function* () {
        let loaded = 0;
        for (;;) {
          const { done, value } = await body.read();
          if (done) {
            if (size !== null && loaded !== size)
              throw rangeError(fn, `${url} ended after ${loaded} of its ${size} bytes`);
            return;
          }
          loaded += value.length;
          onProgress?.({ file: name, loaded, total: size });
          yield value;
        }
      })();
    },
    close() {
      body?.cancel().catch(() => {});
    },
  };
}

const bytesView = (source) =>
  source instanceof ArrayBuffer
    ? new Uint8Array(source)
    : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);

/**
 * The GGUF file `source` names, or null when it is not one (a folder, a Hub id, a map of files).
 * @param {string} fn @param {unknown} source
 * @param {{ onProgress?: Function, fetchOptions?: object, signal?: AbortSignal }} options
 */
export async function ggufFileOf(fn, source, options) {
  const node = typeof globalThis.process?.versions?.node === 'string' && typeof globalThis.window === 'undefined';
  if (source instanceof ArrayBuffer || (ArrayBuffer.isView(source) && !(source instanceof DataView))) {
    const bytes = bytesView(source);
    if (!isGguf(bytes)) throw notGguf(fn, 'the bytes given');
    return randomAccess('the GGUF bytes given', bytes.length, async (begin, end) => bytes.subarray(begin, end));
  }
  const single =
    Array.isArray(source) && source.length === 1 && isBlob(source[0]) && /\.gguf$/i.test(source[0].name ?? '');
  const blob = isBlob(source) ? source : single ? source[0] : null;
  if (blob) {
    const description = typeof blob.name === 'string' && blob.name !== '' ? blob.name : 'the Blob given';
    if (!isGguf(await blobRead(blob)(0, Math.min(4, blob.size)))) throw notGguf(fn, description);
    return randomAccess(description, blob.size, blobRead(blob));
  }
  if (typeof source !== 'string' && !(source instanceof URL)) return null;
  const text = String(source);
  const isUrl = /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text);
  if (node && !isUrl) return pathSource(fn, text);
  if (node && text.startsWith('file:')) return pathSource(fn, decodeURIComponent(new URL(text).pathname));
  if (!/\.gguf$/i.test(text.split(/[?#]/)[0])) return null;
  let url;
  try {
    url = new URL(text, globalThis.location?.href);
  } catch {
    return null; // the folder reader names the problem
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return urlSource(fn, url, options);
}
