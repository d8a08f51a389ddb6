// Rendering a Jinja template from a stranger (a checkpoint's chat template) with
// @huggingface/jinja, bounded as Jinja's own sandbox bounds it (transformers renders chat
// templates in jinja2's ImmutableSandboxedEnvironment):
//   - the interpreter sees only the values given (no JS objects: a template cannot reach a
//     constructor, a prototype or a global);
//   - range() makes at most 100,000 numbers (jinja2.sandbox.MAX_RANGE): `range(10**8)`
//     otherwise built a 10⁸-element array and ran Node out of memory after two minutes;
//   - at most MAX_STEPS interpreter steps (each expression, statement and loop iteration) and
//     MAX_MS milliseconds, and no string longer than MAX_CHARS or list longer than MAX_ITEMS,
//     so a loop nest or a doubling string stops with an error instead of freezing the page.
// The globals are the library's own (true/false/none, raise_exception, range, strftime_now),
// declared here so that range can be bounded; namespace() is built into its interpreter.

import {
  jsonLength,
  textLength,
  replaceCost,
  splitCount,
  indentLength,
  joinLength,
  sortWork,
} from './template_costs.js';

// Real chat templates take tens of steps per message (Qwen2.5's: 26,517 steps and 150 ms for
// 1,000 short messages on 2 vCPUs), so these leave room for conversations of thousands of
// turns; a prompt of MAX_CHARS characters is far past any supported model's context.
export const MAX_STEPS = 200_000;
export const MAX_MS = 2_000;
export const MAX_RANGE = 100_000;
export const MAX_CHARS = 4_000_000;
export const MAX_ITEMS = 100_000;
// The new strings one render's filters and methods may make in all (each a flat copy, held
// while a variable holds it): bounds the memory a loop of large replaces or joins can pin.
export const MAX_MADE = 64_000_000;
// One sort's work (template_costs.js's sortWork: comparisons, longer for long strings) may be
// at most this, ~50 ms here (a list of ~10,000 words), so that no single step runs far past
// MAX_MS (a sort of 100,000 words took 400 ms).
export const SORT_WORK = 200_000;
// A string may be sliced (s[a:b]) only up to this length: the library copies it a character
// at a time (~120 ns each here), so a slice of 500,000 characters takes ~60 ms.
export const MAX_SLICED = 500_000;
// One replace() may make at most this many replacements (~70 ms here), for the same reason.
export const MAX_REPLACEMENTS = 1_000_000;
// A chat template's text may be at most this long (real ones are tens of KB; a 35 MB one
// took 15 s and 1.5 GB to parse, the reader takes ~1.3 µs a character): longer ones are
// refused at load, and so are runs of white space whose reading work (length²/2 summed,
// chat_template.js) passes MAX_WHITESPACE_WORK (~0.12 s here).
export const MAX_TEMPLATE_CHARS = 262_144;
export const MAX_WHITESPACE_WORK = 20_000_000;

/** Raised by the template itself (raise_exception): its message is the template's own. */
export class TemplateRaised extends Error {}
/** A bound above was reached. */
export class TemplateLimit extends Error {}

const MONTHS = [
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
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Python's datetime.now().strftime(format) in the C locale (English names), local time. */
export function strftimeNow(format, date = new Date()) {
  const pad = (n, width = 2) => String(n).padStart(width, '0');
  const dayOfYear =
    Math.round(
      (new Date(date.getFullYear(), date.getMonth(), date.getDate()) - new Date(date.getFullYear(), 0, 1)) / 86_400_000,
    ) + 1;
  const codes = {
    Y: () => String(date.getFullYear()),
    y: () => pad(date.getFullYear() % 100),
    m: () => pad(date.getMonth() + 1),
    d: () => pad(date.getDate()),
    H: () => pad(date.getHours()),
    I: () => pad(date.getHours() % 12 || 12),
    M: () => pad(date.getMinutes()),
    S: () => pad(date.getSeconds()),
    p: () => (date.getHours() < 12 ? 'AM' : 'PM'),
    b: () => MONTHS[date.getMonth()].slice(0, 3),
    B: () => MONTHS[date.getMonth()],
    a: () => DAYS[date.getDay()].slice(0, 3),
    A: () => DAYS[date.getDay()],
    j: () => pad(dayOfYear, 3),
    '%': () => '%',
  };
  return String(format).replace(/%(.)/g, (whole, code) => (codes[code] ? codes[code]() : whole));
}

// range(stop) / range(start, stop[, step]) as Python's, refused past MAX_RANGE numbers.
function boundedRange(start, stop, step = 1) {
  if (stop === undefined) [start, stop] = [0, start];
  if (![start, stop, step].every(Number.isInteger)) throw new TemplateLimit('range() takes integers');
  if (step === 0) throw new TemplateLimit('range() step must not be zero');
  const count = Math.max(0, Math.ceil((stop - start) / step));
  if (count > MAX_RANGE)
    throw new TemplateLimit(
      `range() of ${count} numbers; a template may make at most ${MAX_RANGE} (Jinja's sandbox limit)`,
    );
  return Array.from({ length: count }, (_, i) => start + i * step);
}

const GLOBALS = {
  true: true,
  false: false,
  none: null,
  True: true,
  False: false,
  None: null,
  raise_exception: (message) => {
    throw new TemplateRaised(String(message));
  },
  range: boundedRange,
  strftime_now: strftimeNow,
};

/** The names render() declares itself; a caller's variables may not take them. */
export const GLOBAL_NAMES = Object.keys(GLOBALS);

const interpreters = new WeakMap(); // the library → its bounded interpreter class

// A node that stands for a value already evaluated: an operation whose cost is checked first
// gets its operands evaluated once, checked, then handed to the library as these.
const VALUE = Symbol('an evaluated value');
const valueNode = (value) => ({ type: VALUE, value });
// Arguments evaluated (positional values, keyword Map) → argument nodes the library reads back.
const argumentNodes = (args, kwargs) => [
  ...args.map(valueNode),
  ...[...kwargs].map(([key, value]) => ({
    type: 'KeywordArgumentExpression',
    key: { value: key },
    value: valueNode(value),
  })),
];
// Filters and string methods whose result can be much larger, or much slower to make, than
// their operands: each is checked before it runs (template_costs.js).
const CHECKED_FILTERS = new Set([
  'tojson',
  'string',
  'join',
  'indent',
  'replace',
  'sort',
  'upper',
  'title',
  'capitalize',
]);
const CASE_FILTERS = new Set(['upper', 'title', 'capitalize']); // a character may upper-case to three
const CHECKED_METHODS = new Set(['replace', 'split', ...CASE_FILTERS]);
const value = (x) => x?.value;

// The library's interpreter, counting its steps and time and checking each value it makes.
function boundedInterpreter(library) {
  if (!interpreters.has(library)) {
    interpreters.set(
      library,
      class extends library.Interpreter {
        #steps = 0;
        #deadline = performance.now() + MAX_MS;
        #made = 0; // characters of the new strings filters and methods made

        // Every step reads the clock: one step may cost up to a sort's budget (SORT_WORK), so
        // a run ends within that of MAX_MS.
        #step() {
          if (++this.#steps > MAX_STEPS) throw new TemplateLimit(`the template ran more than ${MAX_STEPS} steps`);
          if (performance.now() > this.#deadline) throw new TemplateLimit(`the template ran longer than ${MAX_MS} ms`);
        }

        // An operation's result, bounded before it is made.
        #fits(length, what) {
          if (length > MAX_CHARS)
            throw new TemplateLimit(
              `${what} would make a string of ${Number.isFinite(length) ? `up to ${Math.ceil(length)}` : 'unbounded'} characters; at most ${MAX_CHARS}`,
            );
        }

        #check(result) {
          const v = result?.value;
          if (typeof v === 'string' && v.length > MAX_CHARS)
            throw new TemplateLimit(`the template made a string of ${v.length} characters; at most ${MAX_CHARS}`);
          if (Array.isArray(v) && v.length > MAX_ITEMS)
            throw new TemplateLimit(`the template made a list of ${v.length} items; at most ${MAX_ITEMS}`);
          return result;
        }

        // New strings held at once are bounded by what filters and methods made in all.
        #madeNew(result) {
          if (typeof result?.value === 'string' && (this.#made += result.value.length) > MAX_MADE)
            throw new TemplateLimit(`the template's filters made more than ${MAX_MADE} characters in all`);
          return result;
        }

        evaluate(statement, environment) {
          if (statement?.type === VALUE) return statement.value;
          this.#step();
          return this.#check(super.evaluate(statement, environment));
        }

        // Each value's text is bounded before it is written (a list is written as JSON).
        evaluateBlock(statements, environment) {
          this.#step();
          let text = '';
          for (const statement of statements) {
            const v = this.evaluate(statement, environment);
            if (v.type === 'NullValue' || v.type === 'UndefinedValue') continue;
            this.#fits(text.length + textLength(v, MAX_CHARS - text.length), 'writing the output');
            text += v.toString();
          }
          // The library's StringValue, made as it makes one (its classes are not exported).
          return this.#check(super.evaluate({ type: 'StringLiteral', value: text }, environment));
        }

        // The library copies a sliced string character by character (Array.from): bounded.
        evaluateSliceExpression(object, expr, environment) {
          if (object.type === 'StringValue' && object.value.length > MAX_SLICED)
            throw new TemplateLimit(
              `slicing a string of ${object.value.length} characters; at most ${MAX_SLICED} (each is copied one by one)`,
            );
          return super.evaluateSliceExpression(object, expr, environment);
        }

        // `~` and `+` with a string write both sides out: bounded first.
        evaluateBinaryExpression(node, environment) {
          const op = node.operator.value;
          if (op !== '~' && op !== '+') return super.evaluateBinaryExpression(node, environment);
          const left = this.evaluate(node.left, environment);
          const right = this.evaluate(node.right, environment);
          if (op === '~' || left.type === 'StringValue' || right.type === 'StringValue') {
            const written = (v) => (v.type === 'StringValue' ? v.value.length : textLength(v, MAX_CHARS) + 1);
            this.#fits(written(left) + written(right), `'${op}'`);
          }
          return super.evaluateBinaryExpression(
            { ...node, left: valueNode(left), right: valueNode(right) },
            environment,
          );
        }

        // s.replace(…), s.split(…), s.upper(), …: the string and the arguments evaluated once,
        // the result bounded, then the library's method on them.
        evaluateCallExpression(expr, environment) {
          const callee = expr.callee;
          if (callee.type !== 'MemberExpression' || callee.computed || !CHECKED_METHODS.has(callee.property.value))
            return super.evaluateCallExpression(expr, environment);
          const [args, kwargs] = this.evaluateArguments(expr.args, environment);
          const object = this.evaluate(callee.object, environment);
          if (object.type === 'StringValue') this.#checkString(callee.property.value, object.value, args, kwargs);
          const call = { ...expr, callee: { ...callee, object: valueNode(object) }, args: argumentNodes(args, kwargs) };
          return this.#madeNew(super.evaluateCallExpression(call, environment));
        }

        applyFilter(operand, filterNode, environment) {
          const call = filterNode.type === 'CallExpression';
          const name = call ? filterNode.callee?.value : filterNode.value;
          if (!CHECKED_FILTERS.has(name)) return super.applyFilter(operand, filterNode, environment);
          const [args, kwargs] = call ? this.evaluateArguments(filterNode.args, environment) : [[], new Map()];
          this.#checkFilter(name, operand, args, kwargs);
          const node = call ? { ...filterNode, args: argumentNodes(args, kwargs) } : filterNode;
          return this.#madeNew(super.applyFilter(operand, node, environment));
        }

        #checkString(name, text, args, kwargs) {
          if (name === 'replace') {
            const [old, replacement, limit] = [args[0], args[1], args[2] ?? kwargs.get('count')].map(value);
            if (typeof old === 'string' && typeof replacement === 'string') {
              const cost = replaceCost(text, old, replacement, Number.isInteger(limit) ? limit : null);
              if (cost.replacements > MAX_REPLACEMENTS)
                throw new TemplateLimit(
                  `replace() would make ${cost.replacements} replacements; at most ${MAX_REPLACEMENTS} in one call`,
                );
              this.#fits(cost.length, 'replace()');
            }
          } else if (name === 'split') {
            const separator = value(args[0] ?? kwargs.get('sep'));
            const items = splitCount(text, typeof separator === 'string' ? separator : null);
            if (items > MAX_ITEMS)
              throw new TemplateLimit(`split() would make a list of ${items} items; at most ${MAX_ITEMS}`);
          } else this.#fits(3 * text.length, `${name}()`);
        }

        #checkFilter(name, operand, args, kwargs) {
          const text = operand.type === 'StringValue' ? operand.value : null;
          const arg = (i, key) => value(args[i] ?? kwargs.get(key));
          if (name === 'tojson' || (name === 'string' && text === null)) {
            const indent = name === 'tojson' ? value(kwargs.get('indent')) : null;
            const options = {
              indent: Number.isInteger(indent) ? indent : null,
              ensureAscii: value(kwargs.get('ensure_ascii')) === true,
              separators: value(kwargs.get('separators'))?.map(value) ?? null,
            };
            this.#fits(jsonLength(operand, options, MAX_CHARS), name);
          } else if (name === 'join' && (text !== null || Array.isArray(operand.value))) {
            const separator = arg(0, 'separator');
            this.#fits(joinLength(operand, typeof separator === 'string' ? separator.length : 0, MAX_CHARS), 'join');
          } else if (name === 'indent' && text !== null) {
            const width = arg(0, 'width');
            this.#fits(indentLength(text, Number.isInteger(width) ? width : 4), 'indent');
          } else if (name === 'replace' && text !== null) {
            this.#checkString('replace', text, args, kwargs);
          } else if (name === 'sort' && Array.isArray(operand.value)) {
            const work = sortWork(operand.value);
            if (work > SORT_WORK)
              throw new TemplateLimit(
                `sort of ${operand.value.length} items would take too long (${Math.round(work)} steps of work; at most ${SORT_WORK})`,
              );
          } else if (text !== null && CASE_FILTERS.has(name)) this.#fits(3 * text.length, name);
        }
      },
    );
  }
  return interpreters.get(library);
}

/**
 * Renders a parsed template (library.Template's `parsed`) with `variables` (JSON-like values;
 * none named as a global), bounded as above; returns the text.
 * @param {object} library the @huggingface/jinja module @param {object} parsed
 * @param {Record<string, unknown>} variables
 */
export function renderBounded(library, parsed, variables) {
  const env = new library.Environment();
  for (const [name, value] of Object.entries({ ...GLOBALS, ...variables })) env.set(name, value);
  const Interpreter = boundedInterpreter(library);
  return new Interpreter(env).run(parsed).value;
}
