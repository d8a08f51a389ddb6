// Chat templates: a checkpoint's tokenizer_config.json `chat_template` (one template, or a list
// of { name, template }), rendered as transformers' apply_chat_template renders it: the
// template sees `messages`, `add_generation_prompt`, `tools`, `documents`, the special tokens
// (`bos_token`, `eos_token`, …, as tokenizer_config.json gives them), the caller's variables,
// and `raise_exception` / `strftime_now`; the text it makes is tokenized without adding
// special tokens (the template writes them). Rendered by @huggingface/jinja (the library
// transformers.js uses), bounded (template_sandbox.js); the library is imported when a model
// with a template loads, so that applyChatTemplate itself is synchronous.
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { importDependency } from './dependency.js';
import {
  renderBounded,
  GLOBAL_NAMES,
  TemplateRaised,
  TemplateLimit,
  MAX_TEMPLATE_CHARS,
  MAX_WHITESPACE_WORK,
} from './template_sandbox.js';

const SPECIAL_TOKENS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];
const SET_HERE = ['messages', 'add_generation_prompt', 'tools', 'documents', ...GLOBAL_NAMES];
/** applyChatTemplate's options; generate({ messages }) takes the last four too. */
export const CHAT_OPTIONS = [
  'addGenerationPrompt',
  'tokenize',
  'chatTemplate',
  'tools',
  'documents',
  'templateVariables',
];
const MAX_DEPTH = 32; // how deep a message's values may nest

let library = null; // Promise of the @huggingface/jinja module

function loadLibrary() {
  library ??= importDependency(() => import('@huggingface/jinja'), '@huggingface/jinja/dist/index.js').catch(
    (error) => {
      library = null; // a later load may try again
      throw error;
    },
  );
  return library;
}

// A special token as tokenizer_config.json writes it: a string, or { content } (an AddedToken).
function tokenText(value) {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && typeof value.content === 'string') return value.content;
  return null;
}

// The library's reader takes ~1.3 µs a character, and (a regex of its preprocessing, `(\s*){%`)
// time quadratic in each run of white space: 64,000 newlines took 17 s. Both are bounded
// before the text reaches it: its length, and the sum over runs of white space of length²/2.
function checkTemplateText(fn, text, where) {
  if (text.length > MAX_TEMPLATE_CHARS)
    throw rangeError(
      fn,
      `${where} is ${text.length} characters long; a chat template may be at most ${MAX_TEMPLATE_CHARS} (real ones are tens of KB): give one with loadModel's chatTemplate option`,
    );
  let work = 0;
  for (const [run] of text.matchAll(/\s{64,}/g)) work += (run.length * run.length) / 2;
  if (work > MAX_WHITESPACE_WORK)
    throw rangeError(
      fn,
      `${where} has runs of white space too long to read in time (${Math.round(work)} steps of the reader's work; at most ${MAX_WHITESPACE_WORK}, e.g. one run of ${Math.floor(Math.sqrt(2 * MAX_WHITESPACE_WORK))} characters)`,
    );
  return text;
}

// chat_template as the file holds it → Map name → template text ('default' for one template).
function templatesOf(fn, value, where) {
  if (typeof value === 'string') return new Map([['default', checkTemplateText(fn, value, where)]]);
  if (!Array.isArray(value))
    throw rangeError(fn, `${where} must be a string or a list of { name, template }, got ${describe(value)}`);
  const templates = new Map();
  value.forEach((entry, i) => {
    if (typeof entry?.name !== 'string' || typeof entry?.template !== 'string') {
      throw rangeError(fn, `${where}[${i}] must be { name, template } with two strings, got ${describe(entry)}`);
    }
    templates.set(entry.name, checkTemplateText(fn, entry.template, `${where}[${i}].template`));
  });
  return templates;
}

/**
 * A checkpoint's chat templates, or null when it has none. `override` (loadModel's
 * chatTemplate option, one template's text) replaces the checkpoint's; `where` names the
 * checkpoint's in messages.
 * @param {string} fn @param {object} tokenizerConfig @param {string} [override] @param {string} [where]
 */
export async function loadChatTemplates(
  fn,
  tokenizerConfig,
  override,
  where = "tokenizer_config.json's chat_template",
) {
  const value = override ?? tokenizerConfig.chat_template;
  if (value === undefined || value === null) return null;
  const templates = templatesOf(fn, value, override === undefined ? where : 'options.chatTemplate');
  const special = {};
  for (const key of SPECIAL_TOKENS) {
    const text = tokenText(tokenizerConfig[key]);
    if (text !== null) special[key] = text;
  }
  let jinja = null;
  let failure = null; // a page that cannot import the library still loads the model
  try {
    jinja = await loadLibrary();
  } catch (error) {
    failure = error;
  }
  return new ChatTemplates(templates, special, jinja, failure);
}

// A JSON-like copy of a caller's value (strings, finite numbers, booleans, null, arrays and
// plain objects; each getter read once), or a TypeError naming where it is not.
function plainCopy(fn, where, value, depth = 0) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (depth >= MAX_DEPTH) throw typeError(fn, `${where} nests more than ${MAX_DEPTH} levels deep`);
  if (Array.isArray(value)) return value.map((item, i) => plainCopy(fn, `${where}[${i}]`, item, depth + 1));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, plainCopy(fn, `${where}.${key}`, item, depth + 1)]),
    );
  }
  throw typeError(
    fn,
    `${where} must hold JSON-like values (strings, finite numbers, booleans, null, arrays, plain objects), got ${describe(value)}`,
  );
}

function checkMessages(fn, messages) {
  if (!Array.isArray(messages) || messages.length === 0)
    throw typeError(fn, `messages must be a non-empty array of { role, content }, got ${describe(messages)}`);
  return messages.map((message, i) => {
    if (message === null || typeof message !== 'object' || Array.isArray(message))
      throw typeError(fn, `messages[${i}] must be an object { role, content }, got ${describe(message)}`);
    const copy = plainCopy(fn, `messages[${i}]`, message);
    if (typeof copy.role !== 'string')
      throw typeError(
        fn,
        `messages[${i}].role must be a string ('system', 'user', 'assistant', …), got ${describe(copy.role)}`,
      );
    return copy;
  });
}

export class ChatTemplates {
  #templates;
  #special;
  #jinja;
  #failure;
  #parsed = new Map(); // name → the parsed template

  /** Use loadChatTemplates(). */
  constructor(templates, special, jinja, failure) {
    this.#templates = templates;
    this.#special = special;
    this.#jinja = jinja;
    this.#failure = failure;
  }

  /** The templates by name ('default' for a single template). */
  toObject() {
    return Object.freeze(Object.fromEntries(this.#templates));
  }

  /**
   * messages → the template's text.
   * @param {string} fn @param {unknown} messages
   * @param {{ addGenerationPrompt: boolean, chatTemplate?: string, tools?: unknown[], documents?: unknown[], templateVariables?: object }} options
   */
  render(fn, messages, { addGenerationPrompt, chatTemplate, tools, documents, templateVariables }) {
    const checked = checkMessages(fn, messages);
    const variables = {
      ...this.#special,
      ...this.#callerVariables(fn, templateVariables),
      messages: checked,
      add_generation_prompt: addGenerationPrompt,
      tools: tools === undefined ? null : plainCopy(fn, 'options.tools', tools),
      documents: documents === undefined ? null : plainCopy(fn, 'options.documents', documents),
    };
    const name = this.#choose(fn, chatTemplate, tools !== undefined);
    const parsed = this.#parse(fn, name);
    try {
      return renderBounded(this.#jinja, parsed, variables);
    } catch (error) {
      if (error instanceof TemplateRaised)
        throw rangeError(fn, `the chat template '${name}' raised an exception: ${error.message}`);
      if (error instanceof TemplateLimit)
        throw rangeError(fn, `the chat template '${name}' was stopped: ${error.message}`);
      throw rangeError(fn, `the chat template '${name}' failed: ${error.message}`, { cause: error });
    }
  }

  #callerVariables(fn, templateVariables) {
    if (templateVariables === undefined) return {};
    if (templateVariables === null || typeof templateVariables !== 'object' || Array.isArray(templateVariables)) {
      throw typeError(
        fn,
        `options.templateVariables must be an object of the template's variables, got ${describe(templateVariables)}`,
      );
    }
    const copy = plainCopy(fn, 'options.templateVariables', templateVariables);
    const taken = Object.keys(copy).find((key) => SET_HERE.includes(key));
    if (taken)
      throw typeError(
        fn,
        `options.templateVariables.${taken} is set by applyChatTemplate itself (${SET_HERE.slice(0, 4).join(', ')} and the template's globals)`,
      );
    return copy;
  }

  // transformers' choice: the name given; else 'tool_use' when there are tools and such a
  // template; else 'default'.
  #choose(fn, chatTemplate, withTools) {
    if (chatTemplate !== undefined) {
      if (typeof chatTemplate !== 'string')
        throw typeError(fn, `options.chatTemplate must be a template's name, got ${describe(chatTemplate)}`);
      if (!this.#templates.has(chatTemplate))
        throw rangeError(
          fn,
          `options.chatTemplate '${chatTemplate}' is not one of this checkpoint's templates (${[...this.#templates.keys()].join(', ')})`,
        );
      return chatTemplate;
    }
    if (withTools && this.#templates.has('tool_use')) return 'tool_use';
    if (this.#templates.has('default')) return 'default';
    throw rangeError(
      fn,
      `this checkpoint has several chat templates and none is 'default': choose one with options.chatTemplate (${[...this.#templates.keys()].join(', ')})`,
    );
  }

  #parse(fn, name) {
    if (this.#jinja === null) {
      throw typeError(
        fn,
        `could not import the chat template library @huggingface/jinja (${this.#failure.message}); a page without a bundler maps it with an import map (see docs/models.md)`,
      );
    }
    if (!this.#parsed.has(name)) {
      try {
        this.#parsed.set(name, new this.#jinja.Template(this.#templates.get(name)).parsed);
      } catch (error) {
        throw rangeError(fn, `the chat template '${name}' could not be read: ${error.message}`, { cause: error });
      }
    }
    return this.#parsed.get(name);
  }
}

/**
 * PretrainedModel.applyChatTemplate: messages → the template's text, or (tokenize, the
 * default as in transformers) its token ids.
 */
export function applyChatTemplate(fn, chat, tokenizer, messages, options = {}) {
  checkKeys(fn, 'option', options, CHAT_OPTIONS);
  const { addGenerationPrompt = false, tokenize = true, chatTemplate, tools, documents, templateVariables } = options;
  for (const [key, value] of Object.entries({ addGenerationPrompt, tokenize })) {
    if (typeof value !== 'boolean') throw typeError(fn, `options.${key} must be a boolean, got ${describe(value)}`);
  }
  for (const [key, value] of Object.entries({ tools, documents })) {
    if (value !== undefined && !Array.isArray(value))
      throw typeError(fn, `options.${key} must be an array, got ${describe(value)}`);
  }
  if (chat === null)
    throw rangeError(
      fn,
      "this checkpoint has no chat template (no chat_template in tokenizer_config.json, or tokenizer.chat_template in a GGUF file); give one with loadModel's chatTemplate option",
    );
  const text = chat.render(fn, messages, { addGenerationPrompt, chatTemplate, tools, documents, templateVariables });
  return tokenize ? tokenizer.encode(text, { addSpecialTokens: false }).ids : text;
}
