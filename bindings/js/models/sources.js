// Where a checkpoint's files come from: a folder path (Node), a URL prefix of a Hub-style
// folder, Files from a drop or an <input type=file>, or a map of names to bytes. Each gives
// the same small interface: has(name), size(name), read(name, begin, end) and text(name).
import { typeError, rangeError, describe } from '../errors.js';

const isUrlLike = (s) => /^[a-z][a-z0-9+.-]*:/i.test(s) && !/^[a-z]:[\\/]/i.test(s);

// Node's fs, reached without an import statement so that bundlers leave it alone.
async function nodeFs() {
  const process = globalThis.process;
  if (typeof process?.getBuiltinModule === 'function') return process.getBuiltinModule('node:fs/promises');
  const specifier = 'node:fs/promises';
  return import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
}

function join(folder, name) {
  return folder.endsWith('/') || folder.endsWith('\\') ? folder + name : `${folder}/${name}`;
}

/** A folder on disk (Node). Files are read by range: a checkpoint never sits whole in JS memory. */
async function folderSource(fn, folder) {
  const fs = await nodeFs();
  const sizes = new Map();
  return {
    description: folder,
    async has(name) {
      try {
        sizes.set(name, (await fs.stat(join(folder, name))).size);
        return true;
      } catch {
        return false;
      }
    },
    async size(name) {
      if (!sizes.has(name) && !(await this.has(name))) throw rangeError(fn, `${join(folder, name)} does not exist`);
      return sizes.get(name);
    },
    async read(name, begin, end) {
      const handle = await fs.open(join(folder, name), 'r');
      try {
        const out = new Uint8Array(end - begin);
        let done = 0;
        while (done < out.length) {
          const { bytesRead } = await handle.read(out, done, out.length - done, begin + done);
          if (bytesRead === 0) throw rangeError(fn, `${join(folder, name)} ended at byte ${begin + done}, before ${end} (truncated?)`);
          done += bytesRead;
        }
        return out;
      } finally {
        await handle.close();
      }
    },
    async text(name) {
      return new TextDecoder().decode(await fs.readFile(join(folder, name)));
    },
  };
}

// The browser's Cache API store for checkpoint files: a second visit reads them from disk.
const CACHE_NAME = 'attention-wasm-models';

async function openCache(enabled) {
  if (!enabled || typeof caches === 'undefined') return null;
  try {
    return await caches.open(CACHE_NAME);
  } catch {
    return null;  // an opaque origin, a private window that refuses storage: no cache
  }
}

/**
 * A URL prefix. Small files are read whole (text); the weights are streamed (stream(name)),
 * so a checkpoint never sits whole in JS memory: the loader packs each tensor as its bytes
 * arrive. Files are kept in the Cache API as they stream.
 */
function urlSource(fn, prefix, onProgress, fetchOptions, useCache) {
  const base = new URL(String(prefix).endsWith('/') ? String(prefix) : `${prefix}/`, globalThis.location?.href);
  const opened = new Map();  // name → Promise<{ response, cached, cache } | null>
  const texts = new Map();
  const cache = openCache(useCache);
  const open = (name) => {
    if (!opened.has(name)) opened.set(name, respond(fn, cache, new URL(name, base), fetchOptions));
    return opened.get(name);
  };
  const must = async (name) => {
    const r = await open(name);
    if (r === null) throw rangeError(fn, `${new URL(name, base)} was not found`);
    return r;
  };
  // The response's body, once: a copy goes to the cache first when it came from the network.
  const body = (name, r) => {
    if (r.used) throw rangeError(fn, `${new URL(name, base)} was read twice`);
    r.used = true;
    if (!r.cached && r.cache) r.cache.put(new URL(name, base), r.response.clone()).catch(() => {});
    return r.response;
  };
  return {
    description: base.href,
    async has(name) {
      return (await open(name)) !== null;
    },
    /** The file's size from Content-Length, or null when the server does not say. */
    async size(name) {
      return byteLength((await must(name)).response);
    },
    async text(name) {
      if (!texts.has(name)) {
        texts.set(name, must(name).then(async (r) => {
          const text = await body(name, r).text();
          const bytes = new TextEncoder().encode(text).length;
          onProgress?.({ file: name, loaded: bytes, total: bytes, ...(r.cached ? { cached: true } : {}) });
          return text;
        }));
      }
      return texts.get(name);
    },
    /** The file's bytes as they arrive (progress events on the way). */
    async *stream(name) {
      const r = await must(name);
      const total = byteLength(r.response);
      const reader = body(name, r).body.getReader();
      let loaded = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        loaded += value.length;
        onProgress?.({ file: name, loaded, total, ...(r.cached ? { cached: true } : {}) });
        yield value;
      }
    },
  };
}

// The bytes a response's body will give: Content-Length, unless the body was compressed on
// the way (Content-Encoding: gzip, br, …: the length is the compressed one, and fetch hands
// over the decompressed bytes); null when unknown.
function byteLength(response) {
  const encoding = response.headers.get('content-encoding');
  if (encoding && encoding !== 'identity') return null;
  return Number(response.headers.get('content-length')) || null;
}

// A file's response: from the cache, else the network (null for a 404).
async function respond(fn, cachePromise, url, fetchOptions) {
  const cache = await cachePromise;
  const hit = await cache?.match(url).catch(() => undefined);
  if (hit) return { response: hit, cached: true, cache: null };
  let response;
  try {
    response = await fetch(url, fetchOptions);
  } catch (error) {
    throw rangeError(fn, `could not fetch ${url}: ${error.message}`, { cause: error });
  }
  if (response.status === 404) return null;
  if (!response.ok) throw rangeError(fn, `could not fetch ${url}: HTTP ${response.status}`);
  return { response, cached: false, cache };
}

/** Names → ArrayBuffer, typed array, Blob/File, string (JSON text) or a parsed JSON object. */
function mapSource(fn, entries) {
  const bytesOf = async (name) => {
    const value = entries.get(name);
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
    if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    if (typeof Blob === 'function' && value instanceof Blob) return value;
    if (typeof value === 'string') return new TextEncoder().encode(value);
    if (value !== null && typeof value === 'object' && name.endsWith('.json')) return new TextEncoder().encode(JSON.stringify(value));
    throw typeError(fn, `the file '${name}' must be an ArrayBuffer, a typed array, a Blob or File, or (for .json) a string or object, got ${describe(value)}`);
  };
  return {
    description: 'the files given',
    async has(name) {
      return entries.has(name);
    },
    async size(name) {
      if (!entries.has(name)) throw rangeError(fn, `the files given have no '${name}'`);
      const bytes = await bytesOf(name);
      return bytes instanceof Uint8Array ? bytes.length : bytes.size;
    },
    async read(name, begin, end) {
      const bytes = await bytesOf(name);
      if (bytes instanceof Uint8Array) return bytes.subarray(begin, end);
      return new Uint8Array(await bytes.slice(begin, end).arrayBuffer());
    },
    async text(name) {
      const bytes = await bytesOf(name);
      return bytes instanceof Uint8Array ? new TextDecoder().decode(bytes) : bytes.text();
    },
  };
}

/**
 * The source for loadModel's first argument.
 * @param {string} fn @param {unknown} source @param {{ onProgress?: Function, fetchOptions?: object, cache?: boolean }} options
 */
export async function sourceOf(fn, source, { onProgress, fetchOptions, cache = true } = {}) {
  if (typeof source === 'string' || source instanceof URL) {
    if (source === '') throw typeError(fn, 'source is an empty string; give a folder path, a URL, Files or a map of file names to bytes');
    const text = String(source);
    const node = typeof globalThis.process?.versions?.node === 'string' && typeof globalThis.window === 'undefined';
    if (node && !isUrlLike(text)) return folderSource(fn, text);
    if (node && text.startsWith('file:')) return folderSource(fn, decodeURIComponent(new URL(text).pathname));
    return urlSource(fn, text, onProgress, fetchOptions, cache);
  }
  const isFileList = typeof FileList === 'function' && source instanceof FileList;
  if (Array.isArray(source) || isFileList) {
    const entries = new Map();
    for (const file of source) {
      if (typeof Blob !== 'function' || !(file instanceof Blob) || typeof file.name !== 'string') {
        throw typeError(fn, `source: a list must hold Files (from a drop or <input type=file>), got ${describe(file)}`);
      }
      entries.set(file.name.split(/[\\/]/).pop(), file);
    }
    return mapSource(fn, entries);
  }
  if (source instanceof Map) return mapSource(fn, new Map([...source].map(([k, v]) => [String(k), v])));
  if (source !== null && typeof source === 'object' && Object.getPrototypeOf(source) === Object.prototype) {
    return mapSource(fn, new Map(Object.entries(source)));
  }
  throw typeError(fn, `source must be a folder path or URL (string or URL), Files, a Map or a plain object of file names to bytes, got ${describe(source)}`);
}
