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

// Real chat templates take tens of steps per message (Qwen2.5's: 26,517 steps and 150 ms for
// 1,000 short messages on 2 vCPUs), so these leave room for conversations of thousands of
// turns; a prompt of MAX_CHARS characters is far past any supported model's context.
export const MAX_STEPS = 200_000;
export const MAX_MS = 2_000;
export const MAX_RANGE = 100_000;
export const MAX_CHARS = 4_000_000;
export const MAX_ITEMS = 1_000_000;

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

// The library's interpreter, counting its steps and time and checking each value it makes.
function boundedInterpreter(library) {
  if (!interpreters.has(library)) {
    interpreters.set(
      library,
      class extends library.Interpreter {
        #steps = 0;
        #deadline = performance.now() + MAX_MS;

        #step() {
          if (++this.#steps > MAX_STEPS) throw new TemplateLimit(`the template ran more than ${MAX_STEPS} steps`);
          if ((this.#steps & 255) === 0 && performance.now() > this.#deadline)
            throw new TemplateLimit(`the template ran longer than ${MAX_MS} ms`);
        }

        evaluate(statement, environment) {
          this.#step();
          const result = super.evaluate(statement, environment);
          const value = result?.value;
          if (typeof value === 'string' && value.length > MAX_CHARS)
            throw new TemplateLimit(`the template made a string of ${value.length} characters; at most ${MAX_CHARS}`);
          if (Array.isArray(value) && value.length > MAX_ITEMS)
            throw new TemplateLimit(`the template made a list of ${value.length} items; at most ${MAX_ITEMS}`);
          return result;
        }

        evaluateBlock(statements, environment) {
          // each loop iteration, even of an empty body
          this.#step();
          return super.evaluateBlock(statements, environment);
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
