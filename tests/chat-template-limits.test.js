// Chat templates from a hostile checkpoint (issue 44, items 1-3): a template's text is bounded
// at load (its length, and the runs of white space the template library's reader takes
// quadratic time on), and each operation that can make far more than it was given (replace,
// join, indent, tojson, a list written out, `~`, split, a slice, a sort) is bounded before it
// runs, so that a render stops near its time limit and under its string limit whatever the
// template does. Each case names the bound that stopped it; the table of times is printed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { fixtureFiles } from './helpers/safetensors.js';
import { ggufWithString } from './helpers/gguf.js';
import { MAX_MS, MAX_CHARS, MAX_TEMPLATE_CHARS, MAX_ITEMS, SORT_WORK } from '../bindings/js/models/template_sandbox.js';

const attn = await init({ simd: 'baseline' });
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const ggufDir = fileURLToPath(new URL('./fixtures/gguf/', import.meta.url));
const FN = 'PretrainedModel.applyChatTemplate';
const chatFiles = fixtureFiles(`${root}tiny-chat`);
const chatConfig = JSON.parse(readFileSync(`${root}tiny-chat/tokenizer_config.json`, 'utf8'));
const withTemplate = (template) =>
  attn.loadModel({ ...chatFiles, 'tokenizer_config.json': { ...chatConfig, chat_template: template } });

// 100,000 distinct words (~690,000 characters) and 1.9 M letters.
const WORDS = Array.from({ length: MAX_ITEMS }, (_, i) => `w${(i * 7919) % MAX_ITEMS}`).join(' ');
const LETTERS = 'a'.repeat(1_900_000);
const messages = [
  { role: 'user', content: WORDS },
  { role: 'user', content: LETTERS },
  { role: 'user', content: LETTERS.slice(0, 400_000) },
  { role: 'user', content: 'b'.repeat(80) },
];

test('a template longer than the cap is refused at load, naming where it came from; the next load works', async () => {
  const long = '{{ 1 }}'.repeat(Math.ceil((MAX_TEMPLATE_CHARS + 1) / 7));
  await assert.rejects(
    withTemplate(long),
    (e) =>
      e instanceof RangeError &&
      e.message.startsWith(
        `loadModel: tokenizer_config.json's chat_template is ${long.length} characters long; a chat template may be at most ${MAX_TEMPLATE_CHARS}`,
      ),
  );
  await assert.rejects(
    withTemplate([
      { name: 'default', template: 'x' },
      { name: 'tool_use', template: long },
    ]),
    /tokenizer_config\.json's chat_template\[1\]\.template is \d+ characters long/,
  );
  // 64,000 newlines took the library's reader 17 s (quadratic in a run of white space).
  await assert.rejects(
    withTemplate(`{{ 1 }}${'\n'.repeat(64_000)}{{ 2 }}`),
    (e) => e instanceof RangeError && /has runs of white space too long to read in time/.test(e.message),
  );
  // Real templates' indentation is far below the bound: one run of 6,000 spaces reads.
  const spaced = await withTemplate(`{{ messages[0].content }}${' '.repeat(6000)}!`);
  assert.equal(
    spaced.applyChatTemplate([{ role: 'user', content: 'hi' }], { tokenize: false }),
    `hi${' '.repeat(6000)}!`,
  );
  spaced.dispose();
  // A GGUF file's template is named as the file's.
  const gguf = ggufWithString(
    new Uint8Array(readFileSync(`${ggufDir}tiny-llama-f32.gguf`)),
    'tokenizer.chat_template',
    long,
  );
  await assert.rejects(
    attn.loadModel(gguf),
    (e) =>
      e instanceof RangeError &&
      /^loadModel: the GGUF bytes given's tokenizer\.chat_template is \d+ characters long/.test(e.message),
  );
  await assert.rejects(
    attn.loadModel(
      ggufWithString(new Uint8Array(readFileSync(`${ggufDir}tiny-llama-f32.gguf`)), 'tokenizer.chat_template', 42),
    ),
    (e) =>
      e instanceof RangeError && /the GGUF bytes given's tokenizer\.chat_template must be a string/.test(e.message),
  );
  const fine = await withTemplate('{{ messages[0].content }}');
  assert.equal(fine.applyChatTemplate([{ role: 'user', content: 'ok' }], { tokenize: false }), 'ok');
  fine.dispose();
});

// Each hostile operation repeated 240 times: without a bound before it runs, one step took up
// to 70-400 ms (the clock read every 256 steps let a run go 8× past its limit) or made a
// string of 149 M characters.
const loop = (body) => `{% for i in range(240) %}${body}{% endfor %}`;
const HOSTILE = [
  [
    'sort',
    loop('{% set x = messages[0].content.split(" ")|sort %}'),
    new RegExp(`sort of 100000 items would take too long .*at most ${SORT_WORK}\\)$`),
  ],
  [
    'reverse sort',
    loop('{% set x = messages[0].content.split(" ")|sort(reverse=true) %}'),
    /sort of 100000 items would take too long/,
  ],
  ['unique', loop('{% set x = messages[0].content.split(" ")|unique|list %}'), /ran longer than 2000 ms$/],
  [
    'replace',
    loop('{% set x = messages[1].content.replace("a", "bb") %}'),
    /replace\(\) would make 1900000 replacements; at most 1000000 in one call$/,
  ],
  [
    'replace filter',
    loop('{% set x = messages[2].content|replace("a", messages[3].content) %}'),
    /replace\(\) would make a string of up to 32000000 characters; at most 4000000$/,
  ],
  [
    'tojson indent',
    '{{ messages|tojson(indent=100000000) }}',
    /tojson would make a string of up to \d+ characters; at most 4000000$/,
  ],
  ['indent width', '{{ messages[0].content|indent(100) }}', null],
  [
    'indent huge',
    '{{ (messages[2].content ~ "\n")|indent(100000000) }}',
    /indent would make a string of up to \d+ characters/,
  ],
  [
    'join',
    '{% set ns = namespace(l=[]) %}{% for i in range(1000) %}{% set ns.l = ns.l + [messages[1].content] %}{% endfor %}{{ ns.l|join(",") }}',
    /join would make a string of up to \d+ characters/,
  ],
  [
    'list written',
    '{% set ns = namespace(l=[]) %}{% for i in range(1000) %}{% set ns.l = ns.l + [messages[1].content] %}{% endfor %}{{ ns.l }}',
    /writing the output would make a string of up to \d+ characters/,
  ],
  [
    'concatenation',
    '{% set ns = namespace(l=[]) %}{% for i in range(1000) %}{% set ns.l = ns.l + [messages[1].content] %}{% endfor %}{{ "a" ~ ns.l }}',
    /'~' would make a string of up to \d+ characters/,
  ],
  [
    'split',
    '{{ (messages[1].content ~ messages[1].content).split("a")|length }}',
    /split\(\) would make a list of 3800001 items; at most 100000$/,
  ],
  ['slice', loop('{% set x = messages[1].content[::-1] %}'), /slicing a string of 1900000 characters; at most 500000/],
  [
    'upper',
    loop('{% set x = (messages[1].content ~ messages[1].content)|upper %}'),
    /upper would make a string of up to 11400000 characters/,
  ],
  [
    'upper loop',
    '{% set ns = namespace(l=[]) %}' + loop('{% set ns.l = ns.l + [(messages[2].content ~ i)|upper] %}'),
    /the template's filters made more than 64000000 characters in all$/,
  ],
  [
    'nested loops',
    '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}',
    /ran (more than 200000 steps|longer than 2000 ms)$/,
  ],
];

test('hostile operations are bounded before they run: a render ends near its time limit, under its string limit', async () => {
  const m = await withTemplate(
    HOSTILE.map(([name, template]) => ({ name, template })).concat({
      name: 'default',
      template: '{{ messages[0].role }}',
    }),
  );
  const rows = [];
  for (const [name, , pattern] of HOSTILE) {
    const started = performance.now();
    let outcome = null;
    try {
      outcome = m.applyChatTemplate(messages, { chatTemplate: name, tokenize: false });
    } catch (e) {
      outcome = e;
    }
    const ms = performance.now() - started;
    rows.push({
      template: name,
      ms: Math.round(ms),
      outcome:
        outcome instanceof Error ? outcome.message.replace(/^.*was stopped: /, '') : `${outcome.length} characters`,
    });
    if (pattern === null) {
      // Within the bounds, the library's own answer.
      assert.equal(typeof outcome, 'string', `${name}: ${outcome?.message}`);
      assert.equal(outcome.length, WORDS.length);
      continue;
    }
    assert.ok(outcome instanceof RangeError, `${name}: ${outcome?.message ?? 'no error'}`);
    assert.match(outcome.message, new RegExp(`^${FN}: the chat template '${name}' was stopped: `), name);
    assert.match(outcome.message, pattern, name);
    // The limit is MAX_MS and one step costs at most ~70 ms on a quiet machine (within 10%:
    // the table); the slack here covers a machine busy with other work (4 jobs on 2 cores
    // made one step of `unique` take 1.4 s), where every step is slower.
    assert.ok(ms < MAX_MS * 2, `${name}: stopped after ${ms.toFixed(0)} ms`);
  }
  console.table(rows);
  assert.equal(m.applyChatTemplate(messages, { tokenize: false }), 'user', 'the model still renders');
  assert.equal(m.forward('The cat').logits.shape[2], 349, 'and still runs');
  m.dispose();
  assert.ok(MAX_CHARS >= (4 * LETTERS.length) / 2, 'the cases stay within the string limit until the hostile step');
});
