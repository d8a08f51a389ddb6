// A checkpoint's safetensors files as the loader reads them: every header first (so the
// model is planned and checked before anything is allocated), then the tensors the model
// needs. Sources with random access (a folder, bytes, Files) read each tensor where it lies;
// a URL source streams each file once, front to back, and hands over each tensor as its
// bytes arrive, so a checkpoint never sits whole in JS memory.
import { rangeError } from '../errors.js';
import { headerLength, parseHeader } from './safetensors.js';
import { checkFileName } from './file_names.js';

// The largest public checkpoints come in a few hundred shards (Llama 3.1 405B: 191).
const MAX_SHARDS = 1024;

/**
 * The weight files: model.safetensors, or the shards model.safetensors.index.json names. Each
 * shard must be one plain file name in the same folder or URL prefix (file_names.js),
 * checked before any file is opened or requested.
 */
async function weightFileNames(fn, src, readJson) {
  if (await src.has('model.safetensors')) return ['model.safetensors'];
  const index = await readJson(src, 'model.safetensors.index.json', false);
  if (index === null)
    throw rangeError(
      fn,
      `${src.description} has neither model.safetensors nor model.safetensors.index.json (only safetensors weights are read)`,
    );
  const map = index?.weight_map;
  if (map === null || typeof map !== 'object' || Array.isArray(map))
    throw rangeError(fn, 'model.safetensors.index.json has no weight_map object');
  const files = new Set();
  for (const [tensor, file] of Object.entries(map)) {
    files.add(
      checkFileName(fn, `model.safetensors.index.json's weight_map[${JSON.stringify(tensor.slice(0, 80))}]`, file),
    );
  }
  if (files.size > MAX_SHARDS)
    throw rangeError(
      fn,
      `model.safetensors.index.json names ${files.size} weight files; at most ${MAX_SHARDS} are read (the largest public checkpoints have a few hundred)`,
    );
  if (files.size === 0) throw rangeError(fn, "model.safetensors.index.json's weight_map names no file");
  return [...files];
}

// Bytes of a stream, read in order: fill(count) waits for count bytes past the position,
// read(begin, end) returns [begin, end) of the file (begin at or after the position).
export class StreamReader {
  constructor(chunks) {
    this.iterator = chunks[Symbol.asyncIterator]();
    this.chunks = [];
    this.available = 0;
    this.position = 0; // file offset of the first byte not taken
  }

  async fill(count) {
    while (this.available < count) {
      const { value, done } = await this.iterator.next();
      if (done) return false;
      this.chunks.push(value);
      this.available += value.length;
    }
    return true;
  }

  // Puts bytes taken too early back in front (the GGUF header reader reads ahead).
  giveBack(bytes) {
    if (bytes.length === 0) return;
    this.chunks.unshift(bytes);
    this.available += bytes.length;
    this.position -= bytes.length;
  }

  // Takes `count` bytes (copied when they span chunks); keep = false drops them.
  take(count, keep = true) {
    const out = keep ? new Uint8Array(count) : null;
    let done = 0;
    while (done < count) {
      const chunk = this.chunks[0];
      const n = Math.min(chunk.length, count - done);
      if (keep) out.set(chunk.subarray(0, n), done);
      if (n === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(n);
      done += n;
    }
    this.available -= count;
    this.position += count;
    return out;
  }

  // Done with the file: read it to its end when its copy is kept (the cache stores only
  // complete files), else stop the download.
  async finish(readToEnd) {
    if (!readToEnd) {
      await this.iterator.return?.();
      return;
    }
    this.chunks = [];
    this.available = 0;
    for (;;) {
      const { done } = await this.iterator.next();
      if (done) return;
    }
  }

  async read(begin, end) {
    while (this.position < begin) {
      const step = Math.min(begin - this.position, 1 << 24);
      if (!(await this.fill(step))) return null;
      this.take(step, false);
    }
    if (!(await this.fill(end - begin))) return null;
    return this.take(end - begin);
  }
}

/**
 * Opens the weight files and parses every header.
 * @returns {Promise<{ tensors: Map<string, object>, forEach: (names: Set<string>, visit: (name, bytes) => Promise|void) => Promise<void> }>}
 *   tensors: name → { file, dtype, shape, begin, end }; forEach visits the named tensors with
 *   their bytes (file order when streaming)
 */
export async function openWeights(fn, src, readJson) {
  const files = await weightFileNames(fn, src, readJson);
  const tensors = new Map();
  const streams = new Map();
  const sizes = new Map();
  for (const file of files) {
    let first8, headerBytes, size;
    if (src.stream) {
      size = (await src.size(file)) ?? Infinity;
      const reader = new StreamReader(src.stream(file));
      const have = await reader.fill(8);
      first8 = have ? reader.take(8) : reader.take(reader.available);
      const n = headerLength(first8, fn, file, have ? size : first8.length);
      headerBytes = await reader.read(8, 8 + n);
      if (headerBytes === null) throw rangeError(fn, `${file} ended inside its ${n}-byte header (truncated?)`);
      streams.set(file, reader);
    } else {
      size = await src.size(file);
      const n = headerLength(await src.read(file, 0, Math.min(8, size)), fn, file, size);
      headerBytes = await src.read(file, 8, 8 + n);
    }
    sizes.set(file, size);
    const header = parseHeader(headerBytes, fn, file, size);
    for (const [name, entry] of header.tensors) {
      if (tensors.has(name)) throw rangeError(fn, `tensor '${name}' is in both ${tensors.get(name).file} and ${file}`);
      tensors.set(name, { file, ...entry });
    }
  }
  async function forEach(names, visit) {
    const wanted = [...names].map((name) => [name, tensors.get(name)]);
    if (!src.stream) {
      for (const [name, t] of wanted) await visit(name, await src.read(t.file, t.begin, t.end));
      return;
    }
    for (const file of files) {
      const reader = streams.get(file);
      const inFile = wanted.filter(([, t]) => t.file === file).sort((a, b) => a[1].begin - b[1].begin);
      for (const [name, t] of inFile) {
        const bytes = await reader.read(t.begin, t.end);
        if (bytes === null)
          throw rangeError(
            fn,
            `${file} ended at byte ${reader.position + reader.available}, before tensor '${name}' (bytes ${t.begin}..${t.end}; truncated?)`,
          );
        await visit(name, bytes);
      }
      await reader.finish(await src.keepsCopies());
    }
  }
  return { tensors, forEach };
}
