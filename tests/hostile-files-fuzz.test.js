// Fuzzing the shapes of issue 44: block-scale bit patterns (NaN, ±infinity, subnormal, huge and
// ordinary fp16 values) in Q8_0 and Q4_0 files and in Q4_K and Q6_K blocks; chat templates
// built at random from the costly operations (sorts, replaces, joins, tojson with an indent,
// writes of lists, splits, slices, case changes, loops) over inputs of random sizes; and
// corrupted GGUF files streamed with no length and an endless body. Every outcome is a model,
// a result within the bounds, or a named error of the public function, fast; the module
// works afterwards. FUZZ_ROUNDS (default 40) and FUZZ_SEED repeat a run.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { fixtureFiles } from './helpers/safetensors.js';
import { parseGguf, StreamReader } from '../bindings/js/models/gguf.js';
import { checkFinite } from '../bindings/js/models/gguf_finite.js';
import { dequantize, GGML_TYPES } from '../bindings/js/models/gguf_quants.js';
import { MAX_MS, MAX_CHARS } from '../bindings/js/models/template_sandbox.js';

const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? 44);
const attn = await init({ simd: 'baseline' });
const ggufDir = fileURLToPath(new URL('./fixtures/gguf/', import.meta.url));
const hfDir = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));

function rng(seed) {
  let s = seed >>> 0;
  const random = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return { random, int: (n) => Math.floor(random() * n), pick: (list) => list[Math.floor(random() * list.length)] };
}

// fp16 bit patterns: NaNs (quiet, signalling, negative), ±infinity, subnormals, the largest
// finite, zero, and ordinary values.
function halfPattern(r) {
  const kind = r.int(6);
  if (kind === 0) return 0x7c00 | (1 + r.int(0x3ff)) | (r.int(2) << 15); // NaN
  if (kind === 1) return 0x7c00 | (r.int(2) << 15); // ±infinity
  if (kind === 2) return (1 + r.int(0x3ff)) | (r.int(2) << 15); // subnormal
  if (kind === 3) return r.pick([0x7bff, 0xfbff, 0x0000, 0x8000]);
  return r.int(0x7c00) | (r.int(2) << 15); // finite
}
const isNonFiniteHalf = (h) => (h & 0x7c00) === 0x7c00;

async function tensorsOf(bytes, name) {
  const reader = new StreamReader(
    (async function* () {
      yield bytes;
    })(),
  );
  return (await parseGguf('test', name, reader, bytes.length)).tensors;
}

test(`block scales at random (${ROUNDS} rounds, seed ${SEED}): refused exactly when not finite, else a finite model or a named error`, async () => {
  const r = rng(SEED);
  const files = [
    ['tiny-llama-q8_0.gguf', 8],
    ['tiny-llama-q4_0.gguf', 2],
  ];
  const outcomes = { refused: 0, loaded: 0, nonFiniteOutput: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const [file, type] = r.pick(files);
    const bytes = new Uint8Array(readFileSync(`${ggufDir}${file}`));
    const quantized = [...(await tensorsOf(bytes, file))].filter(([, t]) => t.type === type);
    const [name, t] = r.pick(quantized);
    const blockBytes = GGML_TYPES[type].bytes;
    const block = r.int((t.end - t.begin) / blockBytes);
    const bits = halfPattern(r);
    bytes[t.begin + block * blockBytes] = bits & 0xff;
    bytes[t.begin + block * blockBytes + 1] = bits >> 8;
    const inUse = attn.memory().inUseBytes;
    try {
      const model = await attn.loadModel(bytes);
      assert.ok(!isNonFiniteHalf(bits), `round ${round}: ${name} block ${block} bits ${bits.toString(16)} loaded`);
      try {
        assert.ok(model.forward('The cat').logits.data.every(Number.isFinite));
        outcomes.loaded++;
      } catch (error) {
        // A huge finite scale may overflow the activations: then a named Error, never garbage.
        assert.match(error.message, /^PretrainedModel\.forward: the model computed /, `round ${round}`);
        outcomes.nonFiniteOutput++;
      }
      model.dispose();
    } catch (error) {
      if (error.code === 'ERR_ASSERTION') throw error;
      assert.ok(isNonFiniteHalf(bits), `round ${round}: bits ${bits.toString(16)}: ${error.message}`);
      assert.match(
        error.message,
        new RegExp(
          `tensor '${name.replace(/\./g, '\\.')}' \\([A-Z0-9_]+\\) has a (NaN|-?infinity) scale in block ${block} `,
        ),
      );
      outcomes.refused++;
    }
    assert.equal(attn.memory().inUseBytes, inUse, `round ${round}: wasm memory left allocated`);
  }
  console.log(`# ${JSON.stringify(outcomes)}`);
  // K-quant blocks: the check refuses exactly the blocks whose dequantized values are not all finite.
  for (let round = 0; round < ROUNDS * 4; round++) {
    const type = r.pick([12, 14]);
    const { bytes: blockBytes } = GGML_TYPES[type];
    const blocks = 1 + r.int(3);
    const bytes = new Uint8Array(blocks * blockBytes).map(() => r.int(256));
    // Every scale finite, then (most rounds) a few patterns written over scales or quants.
    for (let b = 0; b < blocks; b++)
      for (const at of type === 12 ? [0, 2] : [208]) bytes[b * blockBytes + at + 1] &= 0x3b;
    for (let k = r.int(3); k > 0; k--) {
      const at = r.int(blocks) * blockBytes + r.pick(type === 12 ? [0, 2, 4 + r.int(138)] : [208, r.int(206)]);
      const bits = halfPattern(r);
      bytes[at] = bits & 0xff;
      bytes[at + 1] = bits >> 8;
    }
    const values = dequantize(type, bytes, new Float32Array(blocks * 256));
    let refused = false;
    try {
      checkFinite('loadModel', 'f', 't', type, bytes);
    } catch (error) {
      assert.ok(error instanceof RangeError);
      refused = true;
    }
    assert.equal(refused, !values.every(Number.isFinite), `${GGML_TYPES[type].name} round ${round}`);
  }
});

// A template from the costly operations, nested at random.
function randomTemplate(r, depth = 0) {
  const list = () =>
    r.pick(['messages', 'ns.l', 'messages[0].content.split(" ")', '(messages|map(attribute="content")|list)']);
  const text = () => r.pick(['messages[0].content', 'messages[1].content', 'ns.s', '(ns.s ~ messages[0].content)']);
  const expr = () =>
    r.pick([
      `${list()}|sort`,
      `${list()}|unique|list`,
      `${list()}|join(${JSON.stringify('x'.repeat(r.int(40)))})`,
      `${list()}|tojson(indent=${r.pick([0, 2, 1000, 10 ** 7])})`,
      `${text()}.replace(${JSON.stringify(r.pick(['', 'a', ' ', 'ab']))}, ${JSON.stringify('y'.repeat(r.int(100)))})`,
      `${text()}|replace("a", ${text()})`,
      `${text()}|indent(${r.pick([4, 100, 10 ** 6])})`,
      `${text()}.split(${JSON.stringify(r.pick([' ', 'a', 'aa']))})`,
      `${text()}[::${r.pick([-1, 2])}]`,
      `${text()}|upper`,
      `${text()} ~ ${text()}`,
      `${list()} + ${list()}`,
    ]);
  const body =
    depth < 2 && r.random() < 0.5
      ? randomTemplate(r, depth + 1)
      : `{% set ns.s = ${expr()} %}{% set ns.l = ${list()} + [ns.s] %}{{ ${expr()} }}`;
  return `{% for i in range(${r.pick([1, 10, 1000, 100000])}) %}${body}{% endfor %}`;
}

test(`chat templates from costly operations at random (${ROUNDS} rounds, seed ${SEED}): bounded text or a named stop, near the time limit`, async () => {
  const r = rng(SEED + 1);
  const files = fixtureFiles(`${hfDir}tiny-chat`);
  const config = JSON.parse(readFileSync(`${hfDir}tiny-chat/tokenizer_config.json`, 'utf8'));
  const templates = Array.from({ length: ROUNDS }, (_, i) => ({
    name: `t${i}`,
    template: `{% set ns = namespace(s="a", l=[]) %}${randomTemplate(r)}`,
  }));
  const model = await attn.loadModel({
    ...files,
    'tokenizer_config.json': { ...config, chat_template: [{ name: 'default', template: 'ok' }, ...templates] },
  });
  let slowest = 0;
  const outcomes = { rendered: 0, stopped: 0 };
  for (const { name } of templates) {
    const size = r.pick([10, 1000, 100_000, 1_000_000]);
    const messages = [
      { role: 'user', content: 'a b '.repeat(size / 4) },
      { role: 'assistant', content: 'ab'.repeat(size / 2) },
    ];
    const started = performance.now();
    try {
      const text = model.applyChatTemplate(messages, { chatTemplate: name, tokenize: false });
      assert.ok(text.length <= MAX_CHARS, `${name}: ${text.length} characters`);
      outcomes.rendered++;
    } catch (error) {
      assert.ok(error instanceof RangeError, `${name}: ${error.stack}`);
      assert.match(
        error.message,
        new RegExp(`^PretrainedModel\\.applyChatTemplate: the chat template '${name}' (was stopped|failed): `),
      );
      outcomes.stopped++;
    }
    const ms = performance.now() - started;
    slowest = Math.max(slowest, ms);
    assert.ok(ms < MAX_MS * 2, `${name}: ${ms.toFixed(0)} ms\n${templates.find((t) => t.name === name).template}`);
  }
  console.log(`# ${JSON.stringify(outcomes)}, slowest ${slowest.toFixed(0)} ms`);
  assert.equal(model.applyChatTemplate([{ role: 'user', content: 'hi' }], { tokenize: false }), 'ok');
  model.dispose();
});

test(`corrupted GGUF headers streamed with no length and an endless body (${Math.ceil(ROUNDS / 2)} rounds, seed ${SEED}): a model or a named error, the connection closed`, async () => {
  const r = rng(SEED + 2);
  const good = new Uint8Array(readFileSync(`${ggufDir}tiny-llama-q8_0.gguf`));
  const { dataStart } = await parseGguf(
    'test',
    'q8',
    new StreamReader(
      (async function* () {
        yield good;
      })(),
    ),
    good.length,
  );
  let current = good;
  const open = new Set();
  const server = createServer((req, res) => {
    const bytes = current;
    res.writeHead(200, {});
    open.add(res);
    res.on('close', () => open.delete(res));
    const junk = new Uint8Array(1 << 16).map(() => r.int(256));
    let at = 0;
    const next = () => {
      if (res.destroyed || at > 64 << 20) return res.end();
      const piece = at < bytes.length ? bytes.subarray(at, at + 8192) : junk;
      at += piece.length;
      res.write(piece, next);
    };
    next();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const outcomes = { loaded: 0, refused: 0 };
  try {
    for (let round = 0; round < Math.ceil(ROUNDS / 2); round++) {
      current = good.slice();
      for (let k = 0; k < 1 + r.int(3); k++) {
        const at = r.int(dataStart);
        current[at] = r.random() < 0.5 ? r.int(256) : current[at] ^ (1 << r.int(8));
      }
      const started = performance.now();
      try {
        const model = await attn.loadModel(`http://127.0.0.1:${server.address().port}/r${round}.gguf`);
        model.dispose();
        outcomes.loaded++;
      } catch (error) {
        assert.ok(error instanceof RangeError || error instanceof TypeError, `round ${round}: ${error.stack}`);
        assert.match(error.message, /^loadModel: /, `round ${round}`);
        outcomes.refused++;
      }
      assert.ok(performance.now() - started < 2000, `round ${round}: ${(performance.now() - started).toFixed(0)} ms`);
      // The cancel reaches the server a few tens of ms after the load returns.
      for (let waited = 0; open.size > 0 && waited < 2000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(open.size, 0, `round ${round}: the connection was left open`);
    }
  } finally {
    server.close();
  }
  console.log(`# ${JSON.stringify(outcomes)}`);
  assert.ok(outcomes.refused > 0);
});
