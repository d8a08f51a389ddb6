// The models a page's elements load, counted. Elements showing the same source share one load
// and one copy of its weights in wasm memory (GPT-2 small is 622 MiB of a 2 GiB heap); each
// holds a lease, and the model is disposed once no lease has been held for GRACE_MS. The grace
// is for moves: an element removed and added back (a keyed reorder in React or Vue, reveal's
// print view) or a source flipped A → B → A finds its model still there.
//
//   const lease = acquire(src, (signal, onProgress) => attn.loadModel(src, { onProgress, signal }));
//   const model = await lease.promise;  // …
//   lease.release();                     // freed GRACE_MS later, unless acquired again
//   lease.renew();                       // true: held again (within the grace); false: freed
//
// A load that fails is forgotten (the next acquire tries again). A model that page code
// disposed is dropped when it is next asked for, and loaded anew. A load nobody wants any
// more is aborted (its downloads stop) and disposed if it arrives all the same.

/** How long a model no element holds stays loaded, in milliseconds. */
export const GRACE_MS = 2000;

const records = new Map(); // key → { key, refs, timer, model, promise, listeners, abort, freed }

/**
 * A lease on the model for `key`: the load under way or done for it, else a new one,
 * `load(signal, onProgress)` (a Promise of the model). A null key is never shared: the lease
 * owns its own load (a model loaded from Files, say), freed the same way.
 * @param {string | null} key
 * @param {(signal: AbortSignal, onProgress: (p: object) => void) => Promise<{ dispose(): void }>} load
 * @param {{ onProgress?: (p: object) => void, isDisposed?: (model: object) => boolean }} [options]
 * @returns {{ promise: Promise<object>, release(): void, renew(): boolean }} release lets go
 *   (idempotent); renew holds a released lease again if its model is not freed yet (an
 *   element back on the page within the grace) and says whether it could
 */
export function acquire(key, load, { onProgress, isDisposed = () => false } = {}) {
  let record = key === null ? undefined : records.get(key);
  if (record?.model && isDisposed(record.model)) {
    forget(record); // its holders keep what they have; the next ones get a new model
    record = undefined;
  }
  record ??= start(key, load);
  record.refs++;
  clearTimeout(record.timer);
  if (onProgress) record.listeners.add(onProgress);
  let held = true;
  const stopListening = () => record.listeners.delete(onProgress);
  record.promise.then(stopListening, stopListening);
  return {
    promise: record.promise,
    release() {
      if (!held) return;
      held = false;
      stopListening();
      if (--record.refs === 0)
        record.timer = setTimeout(() => {
          if (record.refs === 0) free(record);
        }, GRACE_MS);
    },
    renew() {
      if (held) return true;
      if (record.freed) return false;
      held = true;
      record.refs++;
      clearTimeout(record.timer);
      if (onProgress && !record.model) record.listeners.add(onProgress); // still loading
      return true;
    },
  };
}

function start(key, load) {
  const record = {
    key,
    refs: 0,
    timer: 0,
    model: null,
    listeners: new Set(),
    abort: new AbortController(),
    freed: false,
  };
  const fanOut = (p) => record.listeners.forEach((listener) => listener(p));
  record.promise = Promise.resolve().then(() => load(record.abort.signal, fanOut));
  record.promise.then(
    (model) => {
      record.model = model;
    },
    () => forget(record),
  );
  if (key !== null) records.set(key, record);
  return record;
}

// No lease for GRACE_MS: stop the load if it is still under way, dispose the model.
function free(record) {
  record.freed = true;
  forget(record);
  record.abort.abort();
  record.promise.then(
    (model) => model.dispose(),
    () => {},
  );
}

function forget(record) {
  if (records.get(record.key) === record) records.delete(record.key);
}

/**
 * Whether page code disposed `model`: its `disposed` getter where it has one, else whether
 * `probe(model)` (a cheap call that checks the model first) throws the "was disposed" Error.
 */
export function wasDisposed(model, probe) {
  if (typeof model.disposed === 'boolean') return model.disposed;
  try {
    probe(model);
    return false;
  } catch (error) {
    return /was disposed/.test(String(error?.message));
  }
}
