// Chat templates (issue 33 C.2): tokenizer_config.json's chat_template rendered by
// @huggingface/jinja as transformers' apply_chat_template renders it. The fixture
// tests/fixtures/hf/tiny-chat is tiny-llama's weights with two byte tokens of its tokenizer
// (ids 3 and 4) renamed into the special tokens <|im_start|> and <|im_end|>, Qwen2.5-0.5B-
// Instruct's chat template verbatim (Apache-2.0) and a Qwen-like generation_config.json.
// Pinned: the exact rendered strings (with and without a system message, tools, tool calls
// and responses), the ids (tokenized without added special tokens), generate({ messages }),
// named templates, the special tokens, raise_exception and strftime_now, the caller's
// variables, a template given at load, and hostile templates stopped by the sandbox's bounds.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { fixtureFiles } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const FN = 'PretrainedModel.applyChatTemplate';
const chatFiles = {
  ...fixtureFiles(`${root}tiny-chat`),
  'generation_config.json': readFileSync(`${root}tiny-chat/generation_config.json`),
};
const chatConfig = JSON.parse(readFileSync(`${root}tiny-chat/tokenizer_config.json`, 'utf8'));
const QWEN = chatConfig.chat_template;
const SYSTEM = 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.';
const withTemplate = (changes) =>
  attn.loadModel({ ...chatFiles, 'tokenizer_config.json': { ...chatConfig, ...changes } });
const conversation = [
  { role: 'system', content: 'You are a cat.' },
  { role: 'user', content: 'Who are you?' },
];

let model;
test.before(async () => {
  model = await attn.loadModel(`${root}tiny-chat`);
});
test.after(() => model?.dispose());

test("Qwen2.5's template renders exactly as transformers does", () => {
  assert.deepEqual(model.chatTemplates, { default: QWEN });
  assert.equal(
    model.applyChatTemplate(conversation, { tokenize: false, addGenerationPrompt: true }),
    '<|im_start|>system\nYou are a cat.<|im_end|>\n<|im_start|>user\nWho are you?<|im_end|>\n<|im_start|>assistant\n',
  );
  assert.equal(
    model.applyChatTemplate(
      [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Meow.' },
      ],
      { tokenize: false },
    ),
    `<|im_start|>system\n${SYSTEM}<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nMeow.<|im_end|>\n`,
  );
  const tools = [
    {
      type: 'function',
      function: { name: 'get_time', description: 'Now', parameters: { type: 'object', properties: {} } },
    },
  ];
  assert.equal(
    model.applyChatTemplate([{ role: 'user', content: 'Hi' }], { tokenize: false, tools }),
    `<|im_start|>system\n${SYSTEM}\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n` +
      'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
      '{"type": "function", "function": {"name": "get_time", "description": "Now", "parameters": {"type": "object", "properties": {}}}}\n</tools>\n\n' +
      'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
      '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n<|im_start|>user\nHi<|im_end|>\n',
  );
  const called = [
    { role: 'user', content: 'Time?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ type: 'function', function: { name: 'get_time', arguments: { zone: 'UTC' } } }],
    },
    { role: 'tool', content: '12:00' },
    { role: 'tool', content: 'noon' },
  ];
  assert.equal(
    model.applyChatTemplate(called, { tokenize: false, addGenerationPrompt: true }),
    `<|im_start|>system\n${SYSTEM}<|im_end|>\n<|im_start|>user\nTime?<|im_end|>\n` +
      '<|im_start|>assistant\n<tool_call>\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n</tool_call><|im_end|>\n' +
      '<|im_start|>user\n<tool_response>\n12:00\n</tool_response>\n<tool_response>\nnoon\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
  );
});

test("tokenize (the default, as in transformers): the text's ids without added special tokens", () => {
  const text = model.applyChatTemplate(conversation, { tokenize: false, addGenerationPrompt: true });
  const ids = model.applyChatTemplate(conversation, { addGenerationPrompt: true });
  assert.deepEqual(ids, model.tokenizer.encode(text, { addSpecialTokens: false }).ids);
  assert.equal(ids[0], 3, '<|im_start|> is one special token');
  assert.equal(ids.filter((id) => id === 4).length, 2, 'two <|im_end|>');
  assert.equal(
    model.tokenizer.encode(text).ids[0],
    1,
    'encoding the text itself would add <s>: the template is tokenized without it',
  );
});

test("generate({ messages }): the template's ids with a generation prompt, generation_config.json's defaults", async () => {
  const prompt = model.applyChatTemplate(conversation, { addGenerationPrompt: true });
  assert.deepEqual(model.generationDefaults, {
    maxNewTokens: 20,
    temperature: 0.7,
    topK: 20,
    topP: 0.8,
    minP: 0,
    repetitionPenalty: 1.1,
    eosTokenId: [4, 2],
  });
  const greedy = await model.generate({ messages: conversation, maxNewTokens: 6, temperature: 0 });
  const byIds = await model.generate(prompt, {
    maxNewTokens: 6,
    temperature: 0,
    repetitionPenalty: 1.1,
    eosTokenId: [4, 2],
  });
  assert.deepEqual(greedy.ids.slice(0, prompt.length), prompt);
  assert.deepEqual(greedy.ids, byIds.ids);
  assert.equal(greedy.text, byIds.text);
  const sampled = await model.generate({ messages: conversation, maxNewTokens: 6, seed: 4 });
  assert.deepEqual(
    sampled.ids,
    (await model.generate(prompt, { maxNewTokens: 6, seed: 4 })).ids,
    "sampling with the file's settings, the same seed",
  );
  await assert.rejects(
    model.generate({ messages: conversation }, { maxNewTokens: 2 }),
    /^TypeError: PretrainedModel\.generate: with \{ messages \}, pass every option in that one object/,
  );
  await assert.rejects(
    model.generate({ messages: conversation, max_new_tokens: 2 }),
    /^TypeError: PretrainedModel\.generate: unknown option 'max_new_tokens'/,
  );
  await assert.rejects(
    model.generate({ messages: [] }),
    /^TypeError: PretrainedModel\.generate: messages must be a non-empty array/,
  );
});

test('named templates: default, tool_use with tools, one by name; the special tokens as the file gives them', async () => {
  const named = await withTemplate({
    chat_template: [
      { name: 'default', template: 'D:{% for m in messages %}{{ m.role }}={{ m.content }};{% endfor %}' },
      { name: 'tool_use', template: 'T:{{ tools | length }}' },
      {
        name: 'tokens',
        template:
          '{{ bos_token }}|{{ eos_token }}|{{ pad_token }}|{{ unk_token }}|{{ mask_token }}|{{ add_generation_prompt }}',
      },
    ],
    bos_token: { __type: 'AddedToken', content: '<s>', lstrip: false },
  });
  assert.deepEqual(Object.keys(named.chatTemplates), ['default', 'tool_use', 'tokens']);
  const messages = [
    { role: 'user', content: 'a' },
    { role: 'assistant', content: 'b' },
  ];
  assert.equal(named.applyChatTemplate(messages, { tokenize: false }), 'D:user=a;assistant=b;');
  assert.equal(named.applyChatTemplate(messages, { tokenize: false, tools: [{}, {}] }), 'T:2');
  assert.equal(
    named.applyChatTemplate(messages, { tokenize: false, chatTemplate: 'tokens', addGenerationPrompt: true }),
    '<s>|<|im_end|>|<unk>|<unk>||true',
  );
  assert.throws(
    () => named.applyChatTemplate(messages, { chatTemplate: 'chatml' }),
    (e) =>
      e instanceof RangeError &&
      e.message ===
        `${FN}: options.chatTemplate 'chatml' is not one of this checkpoint's templates (default, tool_use, tokens)`,
  );
  named.dispose();
  const noDefault = await withTemplate({
    chat_template: [
      { name: 'a', template: 'A' },
      { name: 'b', template: 'B' },
    ],
  });
  assert.throws(
    () => noDefault.applyChatTemplate(messages),
    (e) =>
      e instanceof RangeError &&
      e.message ===
        `${FN}: this checkpoint has several chat templates and none is 'default': choose one with options.chatTemplate (a, b)`,
  );
  assert.equal(noDefault.applyChatTemplate(messages, { chatTemplate: 'b', tokenize: false }), 'B');
  noDefault.dispose();
});

test("raise_exception, strftime_now and the caller's variables, as templates use them", async () => {
  const mistral =
    "{% if messages[0]['role'] != 'user' %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}ok";
  const llama =
    "Cutting Knowledge Date: December 2023\nToday Date: {{ strftime_now('%d %b %Y') }} ({{ strftime_now('%A, %B %-d %Y-%m-%d %H%%') }})";
  const qwen3 =
    '{{ messages[0].content }}{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}';
  const m = await withTemplate({
    chat_template: [
      { name: 'default', template: mistral },
      { name: 'llama', template: llama },
      { name: 'qwen3', template: qwen3 },
    ],
  });
  assert.equal(m.applyChatTemplate([{ role: 'user', content: 'x' }], { tokenize: false }), 'ok');
  assert.throws(
    () => m.applyChatTemplate([{ role: 'assistant', content: 'x' }]),
    (e) =>
      e instanceof RangeError &&
      e.message ===
        `${FN}: the chat template 'default' raised an exception: Conversation roles must alternate user/assistant/user/assistant/...`,
  );
  // Python's strftime in the C locale, local time (%-d is not one of its codes and stays).
  const expected = (d) => {
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const long = [
      'January',
      'February',
      'March',
      'April',
      'May',
      'June',
      'July',
      'August',
      'September',
      'October',
      'November',
      'December',
    ];
    const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    const p = (n) => String(n).padStart(2, '0');
    return (
      `Cutting Knowledge Date: December 2023\nToday Date: ${p(d.getDate())} ${months[d.getMonth()]} ${d.getFullYear()} ` +
      `(${days[d.getDay()]}, ${long[d.getMonth()]} %-d ${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}%)`
    );
  };
  const before = expected(new Date());
  const rendered = m.applyChatTemplate([{ role: 'user', content: 'x' }], { tokenize: false, chatTemplate: 'llama' });
  assert.ok([before, expected(new Date())].includes(rendered), rendered);
  const thinking = (templateVariables) =>
    m.applyChatTemplate([{ role: 'user', content: 'Q' }], {
      tokenize: false,
      chatTemplate: 'qwen3',
      templateVariables,
    });
  assert.equal(thinking({ enable_thinking: false }), 'Q<think>\n\n</think>\n\n');
  assert.equal(thinking({ enable_thinking: true }), 'Q');
  assert.equal(thinking(undefined), 'Q');
  assert.equal(thinking({ bos_token: '[B]' }), 'Q', 'a special token may be set by the caller');
  assert.throws(
    () => thinking({ messages: [] }),
    /^TypeError: PretrainedModel\.applyChatTemplate: options\.templateVariables\.messages is set by applyChatTemplate itself/,
  );
  assert.throws(() => thinking({ range: 1 }), /options\.templateVariables\.range is set by applyChatTemplate itself/);
  m.dispose();
});

test("loadModel's chatTemplate: a template for a checkpoint without one (or instead of its own)", async () => {
  const llama = fixtureFiles(`${root}tiny-llama`);
  const plain = await attn.loadModel(llama);
  assert.equal(plain.chatTemplates, null);
  assert.throws(
    () => plain.applyChatTemplate(conversation),
    (e) =>
      e instanceof RangeError &&
      e.message ===
        `${FN}: this checkpoint has no chat template (no chat_template in tokenizer_config.json, or tokenizer.chat_template in a GGUF file); give one with loadModel's chatTemplate option`,
  );
  plain.dispose();
  const given = await attn.loadModel(llama, {
    chatTemplate: '{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}',
  });
  assert.equal(
    given.applyChatTemplate(conversation, { tokenize: false }),
    '[system] You are a cat.\n[user] Who are you?\n',
  );
  given.dispose();
  const replaced = await attn.loadModel(`${root}tiny-chat`, { chatTemplate: 'X' });
  assert.deepEqual(replaced.chatTemplates, { default: 'X' });
  replaced.dispose();
  await assert.rejects(
    attn.loadModel(llama, { chatTemplate: 5 }),
    /^TypeError: loadModel: options\.chatTemplate must be a chat template's text \(a non-empty string\), got a number \(5\)$/,
  );
  await assert.rejects(
    attn.loadModel(llama, { chatTemplate: '' }),
    /^TypeError: loadModel: options\.chatTemplate must be/,
  );
  await assert.rejects(
    attn.loadModel(fixtureFiles(`${root}tiny-bert`), { chatTemplate: 'X' }),
    /^RangeError: loadModel: options\.chatTemplate is for a causal language model with a tokenizer\.json$/,
  );
});

test('a chat_template that is not one: refused at load; one that does not parse: named when used, the model still runs', async () => {
  await assert.rejects(
    withTemplate({ chat_template: 42 }),
    (e) =>
      e instanceof RangeError &&
      e.message ===
        "loadModel: tokenizer_config.json's chat_template must be a string or a list of { name, template }, got a number (42)",
  );
  await assert.rejects(
    withTemplate({ chat_template: [{ name: 'default', template: 'x' }, { name: 1 }] }),
    (e) =>
      e instanceof RangeError &&
      /^loadModel: tokenizer_config\.json's chat_template\[1\] must be \{ name, template \} with two strings/.test(
        e.message,
      ),
  );
  const broken = await withTemplate({ chat_template: '{% if %}' });
  assert.throws(
    () => broken.applyChatTemplate(conversation),
    /^RangeError: PretrainedModel\.applyChatTemplate: the chat template 'default' could not be read: /,
  );
  assert.equal(broken.forward('The cat').logits.shape[2], 349);
  broken.dispose();
});

test("hostile templates: no reach into JS, and loops, ranges and growing strings stopped by the sandbox's bounds", async () => {
  const escapes =
    "{{ messages.constructor }}{{ ''.constructor }}{{ messages['__proto__'] }}{{ messages[0].__proto__ }}{{ range.constructor }}{{ self }}{{ cycler }}";
  const hostile = [
    [
      'range',
      '{{ range(10**8) | length }}',
      /was stopped: range\(\) of 100000000 numbers; a template may make at most 100000 \(Jinja's sandbox limit\)$/,
    ],
    [
      'loops',
      '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}',
      /was stopped: the template ran (more than 200000 steps|longer than 2000 ms)$/,
    ],
    [
      'doubling',
      "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}",
      /was stopped: '\+' would make a string of up to 4194304 characters; at most 4000000$/,
    ],
    [
      'list',
      '{% set ns = namespace(a=[1]) %}{% for i in range(64) %}{% set ns.a = ns.a + ns.a %}{% endfor %}',
      /was stopped: the template made a list of 131072 items; at most 100000$/,
    ],
    [
      'call',
      "{{ ''.constructor.constructor('return process')() }}",
      /^PretrainedModel\.applyChatTemplate: the chat template 'call' failed: /,
    ],
  ];
  const m = await withTemplate({
    chat_template: [{ name: 'default', template: escapes }, ...hostile.map(([name, template]) => ({ name, template }))],
  });
  assert.equal(
    m.applyChatTemplate(conversation, { tokenize: false }),
    '',
    'a template sees no constructor, prototype or global',
  );
  for (const [name, , pattern] of hostile) {
    const started = performance.now();
    assert.throws(
      () => m.applyChatTemplate(conversation, { chatTemplate: name }),
      (e) => e instanceof RangeError && pattern.test(e.message),
      name,
    );
    const ms = performance.now() - started;
    assert.ok(ms < 5000, `${name}: stopped after ${ms.toFixed(0)} ms`);
  }
  assert.equal(m.applyChatTemplate(conversation, { tokenize: false }), '', 'the model still renders');
  m.dispose();
});

test('messages and options: typed errors naming the function and the option; each value read once', () => {
  const bad = [
    [
      'x',
      TypeError,
      /^PretrainedModel\.applyChatTemplate: messages must be a non-empty array of \{ role, content \}, got a string \(x\)$/,
    ],
    [[], TypeError, /messages must be a non-empty array/],
    [
      [null],
      TypeError,
      /^PretrainedModel\.applyChatTemplate: messages\[0\] must be an object \{ role, content \}, got null$/,
    ],
    [
      [{ content: 'x' }],
      TypeError,
      /^PretrainedModel\.applyChatTemplate: messages\[0\]\.role must be a string \('system', 'user', 'assistant', …\), got undefined$/,
    ],
    [
      [{ role: 'user', content: new Date(0) }],
      TypeError,
      /^PretrainedModel\.applyChatTemplate: messages\[0\]\.content must hold JSON-like values \(strings, finite numbers, booleans, null, arrays, plain objects\), got an object \(Date\)$/,
    ],
    [
      [{ role: 'user', content: [{ type: 'text', n: 10n }] }],
      TypeError,
      /messages\[0\]\.content\[0\]\.n must hold JSON-like values/,
    ],
    [[{ role: 'user', content: NaN }], TypeError, /messages\[0\]\.content must hold JSON-like values/],
  ];
  const cyclic = { role: 'user', content: 'x' };
  cyclic.self = cyclic;
  bad.push([[cyclic], TypeError, /messages\[0\](\.self)+ nests more than 32 levels deep/]);
  for (const [messages, type, pattern] of bad)
    assert.throws(
      () => model.applyChatTemplate(messages),
      (e) => e instanceof type && pattern.test(e.message),
      String(pattern),
    );
  const options = [
    [
      { addGenerationPrompt: 'yes' },
      TypeError,
      /^PretrainedModel\.applyChatTemplate: options\.addGenerationPrompt must be a boolean, got a string \(yes\)$/,
    ],
    [{ tokenize: 1 }, TypeError, /options\.tokenize must be a boolean/],
    [{ tools: {} }, TypeError, /options\.tools must be an array/],
    [{ chatTemplate: 3 }, TypeError, /options\.chatTemplate must be a template's name/],
    [{ templateVariables: [] }, TypeError, /options\.templateVariables must be an object/],
    [
      { add_generation_prompt: true },
      TypeError,
      /unknown option 'add_generation_prompt' \(did you mean 'addGenerationPrompt'\?/,
    ],
  ];
  for (const [o, type, pattern] of options)
    assert.throws(
      () => model.applyChatTemplate(conversation, o),
      (e) => e instanceof type && pattern.test(e.message),
      JSON.stringify(o),
    );
  let reads = 0;
  const message = {
    role: 'user',
    get content() {
      reads++;
      return `read ${reads}`;
    },
  };
  assert.equal(
    model.applyChatTemplate([message], { tokenize: false }),
    `<|im_start|>system\n${SYSTEM}<|im_end|>\n<|im_start|>user\nread 1<|im_end|>\n`,
  );
  assert.equal(reads, 1);
});
