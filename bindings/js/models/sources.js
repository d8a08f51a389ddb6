// Where a checkpoint's files come from: a folder path (Node), a URL prefix of a Hub-style
// folder, Files from a drop or an <input type=file>, or a map of names to bytes. Each gives
// the same small interface: has(name), size(name), read(name, begin, end) and text(name).
import { typeError, rangeError, describe } from '../errors.js';
import { fetchFailureHint } from '../fetch_failure.js';
import { checkFilePath } from './file_names.js';
import { isHubId, checkHubOptions, hubFolderUrl, hubNotFound, hubRefused } from './hub_ids.js';

const isUrlLike = (s) => /^[a-z][a-z0-9+.-]*:/i.test(s) && !/^[a-z]:[\\/]/i.test(s);

// A Node built-in module ('node:fs/promises', 'node:path'), reached without an import
// statement or a literal specifier, so that bundlers leave it alone.
async function nodeBuiltin(specifier) {
  const process = globalThis.process;
  if (typeof process?.getBuiltinModule === 'function') return process.getBuiltinModule(specifier);
  return import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
}

function join(folder, name) {
  return folder.endsWith('/') || folder.endsWith('\\') ? folder + name : `${folder}/${name}`;
}

// The largest JSON file a checkpoint may hold (config.json, tokenizer.json, the index): the
// largest real tokenizer.json we know is about 33 MB (Gemma 3's 262k pieces), and the
// safetensors library refuses headers over 100 MB; the same cap for every text file.
export const MAX_TEXT_BYTES = 100_000_000;

function textTooLarge(fn, where, bytes) {
  return rangeError(
    fn,
    `${where} is ${bytes} bytes; a checkpoint's JSON files are read whole and may be at most ${MAX_TEXT_BYTES} bytes`,
  );
}

// The real folders a file may resolve to: the folder itself and, when the folder is a
// snapshot of the Hugging Face cache (…/models--org--name/snapshots/<revision>, whose files
// are symlinks to ../../blobs/<hash>), that model's cache folder.
function allowedRoots(path, realFolder) {
  const parts = realFolder.split(/[\\/]/);
  const roots = [realFolder];
  if (parts.length >= 3 && parts.at(-2) === 'snapshots' && /^(models|datasets)--/.test(parts.at(-3))) {
    roots.push(parts.slice(0, -2).join(path.sep));
  }
  return roots;
}

/**
 * A folder on disk (Node). Files are read by range: a checkpoint never sits whole in JS memory.
 * A name is plain file names joined by '/' (file_names.js checkFilePath: '1_Pooling/config.json',
 * never '..' or an absolute path); a file must be a regular file whose real
 * path (symlinks followed) stays inside the folder (or the model's Hugging Face cache folder).
 */
async function folderSource(fn, folder, signal) {
  const fs = await nodeBuiltin('node:fs/promises');
  const path = await nodeBuiltin('node:path');
  let roots = null; // the folder's real path (and the cache folder), on first use
  const files = new Map(); // name → Promise<{ real, size } | null>
  const locate = (name) => {
    checkFilePath(fn, 'a file name', name);
    if (!files.has(name)) {
      files.set(
        name,
        (async () => {
          signal?.throwIfAborted();
          roots ??= fs.realpath(folder).then(
            (real) => allowedRoots(path, real),
            () => null,
          );
          const allowed = await roots;
          if (allowed === null) return null; // no such folder: every file is missing
          let real;
          try {
            real = await fs.realpath(join(folder, name));
          } catch {
            return null;
          }
          if (
            !allowed.some((root) => real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep))
          ) {
            throw rangeError(
              fn,
              `${join(folder, name)} is a link to ${real}, outside the checkpoint's folder; it is not read`,
            );
          }
          const stat = await fs.stat(real);
          if (!stat.isFile())
            throw rangeError(
              fn,
              `${join(folder, name)} is not a regular file (a folder, device or pipe); it is not read`,
            );
          return { real, size: stat.size };
        })(),
      );
    }
    return files.get(name);
  };
  const must = async (name) => {
    const file = await locate(name);
    if (file === null) throw rangeError(fn, `${join(folder, name)} does not exist`);
    return file;
  };
  const readRange = async (real, where, begin, end) => {
    signal?.throwIfAborted();
    const handle = await fs.open(real, 'r');
    try {
      const out = new Uint8Array(end - begin);
      let done = 0;
      while (done < out.length) {
        const { bytesRead } = await handle.read(out, done, out.length - done, begin + done);
        if (bytesRead === 0) throw rangeError(fn, `${where} ended at byte ${begin + done}, before ${end} (truncated?)`);
        done += bytesRead;
      }
      return out;
    } finally {
      await handle.close();
    }
  };
  return {
    description: folder,
    async has(name) {
      return (await locate(name)) !== null;
    },
    async size(name) {
      return (await must(name)).size;
    },
    async read(name, begin, end) {
      return readRange((await must(name)).real, join(folder, name), begin, end);
    },
    async text(name) {
      const { real, size } = await must(name);
      if (size > MAX_TEXT_BYTES) throw textTooLarge(fn, join(folder, name), size);
      return new TextDecoder().decode(await readRange(real, join(folder, name), 0, size));
    },
    close() {},
  };
}

/** Every chunk of a stream of bytes, in one array. */
export async function gather(stream) {
  const chunks = [];
  let length = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    length += chunk.length;
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

// The browser's Cache API store for checkpoint files: a second visit reads them from disk.
const CACHE_NAME = 'attention-wasm-models';

async function openCache(enabled) {
  if (!enabled || typeof caches === 'undefined') return null;
  try {
    return await caches.open(CACHE_NAME);
  } catch {
    return null; // an opaque origin, a private window that refuses storage: no cache
  }
}

/**
 * A URL prefix. Small files are read whole (text); the weights are streamed (stream(name)),
 * so a checkpoint never sits whole in JS memory: the loader packs each tensor as its bytes
 * arrive. A name is plain file names joined by '/' (file_names.js checkFilePath), so every
 * request stays under the prefix.
 *
 * The Cache API keeps only complete files: a copy is written as the bytes arrive and closed
 * when the last byte came and the length is the one the server announced; a file not read to
 * its end, or a load that fails or is aborted (close()), errors the copy, so the cache
 * stores nothing, and cancels every body still downloading.
 */
function urlSource(fn, base, { onProgress, fetchOptions, cache: useCache, signal, missing, refused }) {
  const opened = new Map(); // name → Promise<{ response, cached, cache } | null>
  const texts = new Map();
  const cleanups = new Set(); // what close() must stop: bodies still downloading, cache copies
  const cache = openCache(useCache);
  const urlOf = (name) => new URL(checkFilePath(fn, 'a file name', name), base);
  const requestOptions = signal && !fetchOptions?.signal ? { ...fetchOptions, signal } : fetchOptions;
  const open = (name) => {
    const url = urlOf(name);
    if (!opened.has(name)) {
      opened.set(
        name,
        respond(fn, cache, url, requestOptions, signal, refused).then((r) => {
          if (r !== null) {
            // Until its body is taken, a response is closed by cancelling its body.
            r.cancel = () => r.response.body?.cancel().catch(() => {});
            cleanups.add(r.cancel);
          }
          return r;
        }),
      );
    }
    return opened.get(name);
  };
  const must = async (name) => {
    const r = await open(name);
    if (r === null) throw rangeError(fn, `${urlOf(name)} was not found`);
    return r;
  };
  const take = (name, r) => {
    if (r.used) throw rangeError(fn, `${urlOf(name)} was read twice`);
    r.used = true;
    cleanups.delete(r.cancel);
    return r;
  };
  return {
    description: base.href,
    async has(name) {
      const found = (await open(name)) !== null;
      const message = found ? null : missing?.(name, urlOf(name));
      if (message) throw rangeError(fn, message);
      return found;
    },
    /** The file's size from Content-Length, or null when the server does not say. */
    async size(name) {
      return byteLength((await must(name)).response);
    },
    async text(name) {
      if (!texts.has(name)) {
        texts.set(
          name,
          must(name).then(async (r) => {
            const total = byteLength(r.response);
            if (total !== null && total > MAX_TEXT_BYTES) {
              r.cancel();
              throw textTooLarge(fn, urlOf(name).href, total);
            }
            return new TextDecoder().decode(await gather(this.stream(name, MAX_TEXT_BYTES)));
          }),
        );
      }
      return texts.get(name);
    },
    /**
     * The file's bytes as they arrive (progress events on the way); more than `limit` bytes
     * is a RangeError. Stopping early (return()) or close() cancels the download.
     */
    async *stream(name, limit = Infinity) {
      const r = take(name, await must(name));
      const total = byteLength(r.response);
      const reader = r.response.body.getReader();
      const copy = !r.cached && r.cache ? cacheCopy(r.cache, urlOf(name), r.response) : null;
      let finished = false;
      const stop = () => {
        if (finished) return;
        finished = true;
        reader.cancel().catch(() => {});
        copy?.abort();
      };
      cleanups.add(stop);
      let loaded = 0;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            // Complete: the copy is kept when the length is the announced one.
            if (total !== null && loaded !== total)
              throw rangeError(fn, `${urlOf(name)} ended after ${loaded} of its ${total} bytes`);
            finished = true;
            await copy?.close();
            return;
          }
          loaded += value.length;
          if (loaded > limit) throw textTooLarge(fn, urlOf(name).href, `more than ${limit}`);
          await copy?.write(value);
          onProgress?.({ file: name, loaded, total, ...(r.cached ? { cached: true } : {}) });
          yield value;
        }
      } finally {
        stop();
        cleanups.delete(stop);
      }
    },
    /** Whether the files read are kept in the Cache API (then they are read to their end). */
    async keepsCopies() {
      return (await cache) !== null;
    },
    /** Stops every download still running and drops every partial cache copy. */
    close() {
      for (const cleanup of [...cleanups]) cleanup();
      cleanups.clear();
    },
  };
}

// A copy of a file into the Cache API, written as its bytes arrive: close() keeps it,
// abort() errors the body, so Cache.put stores nothing. The copy is a side effect: when the
// cache refuses it (over its quota: a 2.4 GB checkpoint in a headless tab, whose Cache.put
// cancels the body with no reason, so writer.ready rejects with undefined), the copy stops
// and the load goes on.
function cacheCopy(cache, url, response) {
  const { readable, writable } = new TransformStream();
  const writer = writable.getWriter();
  const headers = {};
  for (const key of ['content-type', 'content-length', 'etag', 'last-modified']) {
    const value = response.headers.get(key);
    if (value !== null && !(key === 'content-length' && response.headers.get('content-encoding'))) headers[key] = value;
  }
  let failed = false;
  const stored = cache.put(url, new Response(readable, { status: 200, headers })).catch(() => {
    failed = true;
  });
  return {
    async write(chunk) {
      if (failed) return;
      await writer.ready.catch(() => {
        failed = true;
      });
      if (failed) return;
      writer.write(chunk).catch(() => {
        failed = true;
      });
    },
    async close() {
      if (failed) return;
      await writer.close().catch(() => {});
      await stored;
    },
    abort() {
      failed = true;
      writer.abort(new Error('the load stopped before the file was complete')).catch(() => {});
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

// A file's response: from the cache, else the network (null for a 404). `refused(status)`
// explains a 401 or 403 (a Hub id's source says how to pass a token).
async function respond(fn, cachePromise, url, fetchOptions, signal, refused) {
  signal?.throwIfAborted();
  const cache = await cachePromise;
  const hit = await cache?.match(url).catch(() => undefined);
  if (hit) return { response: hit, cached: true, cache: null };
  let response;
  try {
    response = await fetch(url, fetchOptions);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw rangeError(fn, `could not fetch ${url}: ${error.message}${fetchFailureHint(url)}`, { cause: error });
  }
  if (response.status === 404) {
    response.body?.cancel().catch(() => {});
    return null;
  }
  if (!response.ok) {
    response.body?.cancel().catch(() => {});
    const why = (response.status === 401 || response.status === 403) && refused ? `; ${refused(response.status)}` : '';
    throw rangeError(fn, `could not fetch ${url}: HTTP ${response.status}${why}`);
  }
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
    if (value !== null && typeof value === 'object' && name.endsWith('.json'))
      return new TextEncoder().encode(JSON.stringify(value));
    throw typeError(
      fn,
      `the file '${name}' must be an ArrayBuffer, a typed array, a Blob or File, or (for .json) a string or object, got ${describe(value)}`,
    );
  };
  return {
    description: 'the files given',
    async has(name) {
      return entries.has(checkFilePath(fn, 'a file name', name));
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
      const size = bytes instanceof Uint8Array ? bytes.length : bytes.size;
      if (size > MAX_TEXT_BYTES) throw textTooLarge(fn, `'${name}'`, size);
      return bytes instanceof Uint8Array ? new TextDecoder().decode(bytes) : bytes.text();
    },
    close() {},
  };
}

// Whether `path` is a folder that exists (Node).
async function isFolder(path) {
  const fs = await nodeBuiltin('node:fs/promises');
  return fs.stat(path).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}

/**
 * A Hub id's folder: a URL prefix whose missing config.json (HTTP 404) is named as the id
 * not found, and whose 401s and 403s say how to pass a token.
 */
function hubSource(fn, id, hub, options) {
  const base = hubFolderUrl(id, hub);
  return urlSource(fn, base, {
    ...options,
    missing: (name, url) => (name === 'config.json' ? hubNotFound(id, hub.revision, url) : null),
    refused: hubRefused,
  });
}

// A File's name in the checkpoint. A File from a folder picked whole (<input webkitdirectory>)
// carries its path under that folder: 'all-MiniLM-L6-v2/1_Pooling/config.json' is
// '1_Pooling/config.json', so that a module's config.json does not take the root's place.
function pathInFolder(file) {
  const names = String(file.webkitRelativePath ?? '')
    .split(/[\\/]/)
    .filter((name) => name !== '');
  return names.length >= 2 ? names.slice(1).join('/') : file.name.split(/[\\/]/).pop();
}

/**
 * The source for loadModel's first argument. Every source has has(name), size(name),
 * read(name, begin, end) or stream(name), text(name) and close() (stops what is still
 * downloading; call it when a load fails or is aborted). A string is told apart as
 * hub_ids.js says: a URL, a folder that exists (Node), a Hub id, else a folder or relative URL.
 * @param {string} fn @param {unknown} source
 * @param {{ onProgress?: Function, fetchOptions?: object, cache?: boolean, signal?: AbortSignal, hub?: object }} options
 *   hub: checkHubOptions' result (revision, hubUrl, revisionGiven)
 */
export async function sourceOf(
  fn,
  source,
  { onProgress, fetchOptions, cache = true, signal, hub = checkHubOptions(fn, {}) } = {},
) {
  const node = typeof globalThis.process?.versions?.node === 'string' && typeof globalThis.window === 'undefined';
  if (typeof source === 'string' && isHubId(source) && !(node && (await isFolder(source)))) {
    return hubSource(fn, source, hub, { onProgress, fetchOptions, cache, signal });
  }
  if (hub.revisionGiven) {
    const what =
      typeof source === 'string' && isHubId(source)
        ? `'${source}' is a folder here (a folder that exists wins over a Hub id; give the Hub's URL, ${hubFolderUrl(source, hub)}, to load from the Hub)`
        : `the source is not a Hub id ('owner/name')`;
    throw typeError(fn, `options.revision is for a Hub id, but ${what}`);
  }
  if (typeof source === 'string' || source instanceof URL) {
    if (source === '')
      throw typeError(
        fn,
        'source is an empty string; give a folder path, a URL, a Hub id, Files or a map of file names to bytes',
      );
    const text = String(source);
    if (node && !isUrlLike(text)) return folderSource(fn, text, signal);
    if (node && text.startsWith('file:')) return folderSource(fn, decodeURIComponent(new URL(text).pathname), signal);
    let base;
    try {
      base = new URL(text.endsWith('/') ? text : `${text}/`, globalThis.location?.href);
    } catch {
      throw typeError(fn, `source ${JSON.stringify(text.slice(0, 200))} is neither a URL nor a folder path`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw typeError(
        fn,
        `source is a ${base.protocol} URL; a checkpoint comes from an http(s) URL${node ? ', a file: URL or a folder path' : ''}, Files, or a map of file names to bytes`,
      );
    }
    return urlSource(fn, base, { onProgress, fetchOptions, cache, signal });
  }
  const isFileList = typeof FileList === 'function' && source instanceof FileList;
  if (Array.isArray(source) || isFileList) {
    const entries = new Map();
    for (const file of source) {
      if (typeof Blob !== 'function' || !(file instanceof Blob) || typeof file.name !== 'string') {
        throw typeError(fn, `source: a list must hold Files (from a drop or <input type=file>), got ${describe(file)}`);
      }
      entries.set(pathInFolder(file), file);
    }
    return mapSource(fn, entries);
  }
  if (source instanceof Map) return mapSource(fn, new Map([...source].map(([k, v]) => [String(k), v])));
  if (source !== null && typeof source === 'object' && Object.getPrototypeOf(source) === Object.prototype) {
    return mapSource(fn, new Map(Object.entries(source)));
  }
  throw typeError(
    fn,
    `source must be a folder path or URL (string or URL) or a Hub id ('owner/name'), Files, a Map or a plain object of file names to bytes, got ${describe(source)}`,
  );
}
