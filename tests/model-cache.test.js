// The elements' counted model cache (web/elements/model-cache.js) on stand-in models: one load
// per key however many acquire it, disposed GRACE_MS after the last release and not before,
// renewed within the grace, a failed load or a model disposed elsewhere not handed out again,
// a load nobody wants any more aborted.
import test from 'node:test';
import assert from 'node:assert/strict';
import { acquire, wasDisposed, GRACE_MS } from '../web/elements/model-cache.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A stand-in for a PretrainedModel: dispose() counts, tokenize throws once disposed.
function fakeModel(name) {
  return {
    name,
    disposals: 0,
    dispose() {
      this.disposals++;
    },
    tokenize() {
      if (this.disposals) throw new Error('PretrainedModel.tokenize: this model was disposed; load it again');
      return [];
    },
  };
}

// A loader that counts its calls, resolving after `ms`.
function loader(name, ms = 0) {
  const calls = [];
  const load = async (signal, onProgress) => {
    calls.push(signal);
    onProgress({ file: 'config.json', loaded: 1, total: 1 });
    await sleep(ms);
    if (signal.aborted) throw new Error('aborted');
    return fakeModel(name);
  };
  return { load, calls };
}

const isDisposed = (model) => wasDisposed(model, (m) => m.tokenize(''));

test('one load per key; progress reaches every waiter; disposed GRACE_MS after the last release, not before', async () => {
  const { load, calls } = loader('a', 20);
  const seen = [[], []];
  const one = acquire('k1', load, { onProgress: (p) => seen[0].push(p.file) });
  const two = acquire('k1', load, { onProgress: (p) => seen[1].push(p.file) });
  const [m1, m2] = await Promise.all([one.promise, two.promise]);
  assert.equal(m1, m2);
  assert.equal(calls.length, 1);
  assert.deepEqual(seen, [['config.json'], ['config.json']]);
  one.release();
  one.release(); // idempotent: the second does not count
  await sleep(GRACE_MS + 100);
  assert.equal(m1.disposals, 0, 'still held by the second lease');
  two.release();
  await sleep(GRACE_MS / 2);
  assert.equal(m1.disposals, 0, 'within the grace');
  await sleep(GRACE_MS / 2 + 100);
  assert.equal(m1.disposals, 1, 'disposed after the grace');
  const again = acquire('k1', load);
  assert.notEqual(await again.promise, m1, 'a new load after it was freed');
  assert.equal(calls.length, 2);
  again.release();
});

test('acquired again or renewed within the grace: the same model, never disposed; renew after the grace says false', async () => {
  const { load, calls } = loader('b');
  const lease = acquire('k2', load);
  const model = await lease.promise;
  lease.release();
  await sleep(GRACE_MS / 2);
  const flip = acquire('k2', load); // A → B → A
  assert.equal(await flip.promise, model);
  flip.release();
  assert.equal(lease.renew(), true, 'a moved element holds its model again');
  await sleep(GRACE_MS + 100);
  assert.equal(model.disposals, 0);
  assert.equal(calls.length, 1);
  lease.release();
  await sleep(GRACE_MS + 100);
  assert.equal(model.disposals, 1);
  assert.equal(lease.renew(), false, 'freed: the element must load again');
});

test('a failed load is not cached; a model disposed elsewhere is not handed out again; a null key is never shared', async () => {
  let fail = true;
  const flaky = async () => {
    if (fail) throw new Error('HTTP 503');
    return fakeModel('c');
  };
  const first = acquire('k3', flaky);
  await assert.rejects(first.promise, /HTTP 503/);
  first.release();
  fail = false;
  const second = acquire('k3', flaky);
  const model = await second.promise;
  assert.equal(model.name, 'c', 'the next acquire tried again');
  model.dispose(); // page code
  const third = acquire('k3', flaky, { isDisposed });
  const fresh = await third.promise;
  assert.notEqual(fresh, model);
  assert.equal(isDisposed(fresh), false);
  second.release();
  third.release();
  const { load, calls } = loader('d');
  const own = [acquire(null, load), acquire(null, load)];
  const [x, y] = await Promise.all(own.map((l) => l.promise));
  assert.notEqual(x, y);
  assert.equal(calls.length, 2);
  own.forEach((l) => l.release());
  await sleep(GRACE_MS + 100);
  assert.deepEqual([fresh.disposals, x.disposals, y.disposals], [1, 1, 1]);
});

test('a load released before it arrives: aborted after the grace (its signal), or disposed when it arrives', async () => {
  const slow = loader('e', GRACE_MS + 500);
  const lease = acquire('k4', slow.load);
  lease.release();
  await sleep(GRACE_MS + 100);
  assert.equal(slow.calls[0].aborted, true, 'nobody wants it: its downloads stop');
  await assert.rejects(lease.promise, /aborted/);
  // A loader that ignores the signal: the model is disposed as soon as it arrives.
  let arrived = null;
  const stubborn = acquire('k5', async () => {
    await sleep(GRACE_MS + 300);
    arrived = fakeModel('f');
    return arrived;
  });
  stubborn.release();
  await sleep(GRACE_MS + 500);
  assert.equal(arrived?.disposals, 1);
});

test('wasDisposed: a disposed getter where there is one, else the probe\'s "was disposed" error', () => {
  assert.equal(
    wasDisposed({ disposed: true }, () => {}),
    true,
  );
  assert.equal(
    wasDisposed({ disposed: false }, () => {
      throw new Error('x was disposed');
    }),
    false,
  );
  const model = fakeModel('g');
  assert.equal(isDisposed(model), false);
  model.dispose();
  assert.equal(isDisposed(model), true);
  assert.equal(
    wasDisposed({}, () => {
      throw new RangeError('no tokenizer.json');
    }),
    false,
    'another error: not disposed',
  );
});
