// Whether a tokenizer.json pattern ({ "Regex": "…" }) is safe to hand @huggingface/tokenizers,
// which compiles it into a JavaScript RegExp: a backtracking engine, in which (a|aa)+$ or
// ^(\w+\s?)*$ take exponential time, and a*a*x (minutes) or even \w+x (0.2 s) polynomial
// time, on 10 KB of text. A RegExp cannot be interrupted, so the pattern is judged before it
// is compiled. Rather than hunt for every shape that backtracks, this accepts one shape, the
// one tokenizers' patterns have, whose matching time is linear in the text, and refuses the
// rest (anything it cannot parse included):
//
//   pattern := branch ('|' branch)*
//   branch  := item*
//   item    := bounded   a character or class, an assertion or lookaround, or a group or
//                        {a,b} repetition (b ≤ 16) of those: a few characters, few ways to match
//            | run       c*, c+ or c{m,} of one character or class c (greedy, m ≤ 16)
//
// and a run must be followed, in its branch, by nothing that can make a match fail once the
// run has been scanned (else every later start position scans the run again: quadratic):
//   (A) only optional items (x?, x*, (?:…)?): the branch matches as soon as the run ends;
//   (B) a lookahead the run's own characters satisfy, then (A): \s+(?!\S) gives back one
//       character at most;
//   (C) one more item (a run or a bounded item), then (A): \s*[\r\n]+ — and the next
//       branch starts the same way and takes the whole run of the same class (\s+(?!\S),
//       \s+), so a scan that fails is consumed by the match that follows.
// Within that shape a match attempt costs (the characters it consumes) + (a constant set by
// the bounded items, capped by MAX_WORK), so matching a text is linear in its length.
// GPT-2's, Llama 3's, Qwen's and o200k's patterns have this shape (tests/tokenizer-safety.test.js).
//
// The syntax is Oniguruma's as the library reads it (utils/core.ts, rewrite_oniguruma_to_js):
// (?i:…) groups, \h, \A, \z, possessive x++ (dropped: it backtracks), x{2}+ (a repetition of
// x{2}), atomic (?>…) (it backtracks too), nested classes, POSIX [:alpha:].

export const MAX_PATTERN_LENGTH = 4096;
const BOUNDED = 16; // {a,b} with b ≤ 16 is a bounded item; beyond, a run
const MAX_COUNT = 1000; // repetition counts
const MAX_DEPTH = 32; // nesting of groups and of classes
const MAX_WORK = 256; // Σ over branches of (ways through its bounded items) × (their steps + 1); o200k: 181

const BRACED = /\\([pPxu])\{([^}]*)\}/y;
const FIXED = /\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|c[A-Za-z])/y;
const QUANT_BRACE = /\{(\d+(?:,\d*)?|,\d+)\}/y;
const POSIX = /\[:\^?[A-Za-z]+:\]/y;
const GROUP = /\(\?(?:<[=!]|<[A-Za-z_][A-Za-z0-9_]*>|[:=!>]|i:)/y;
// The library's fix-up of BLOOM's pattern, applied first as the library does.
const BLOOM_CLASS = /\[\^\(\\s\|\[([^\]]+)\]\)\]/g;

class Refusal extends Error {}
const refuse = (message) => {
  throw new Refusal(message);
};
const at = (re, text, i) => {
  re.lastIndex = i;
  return re.exec(text);
};

// Pattern text → tree: alt { branches: seq[] }, seq { items }, char { base, negated }, assert,
// look { ahead, negative, body }, group { body }, quant { body, min, max, lazy }. Every node
// keeps [start, end) in the text and whether an enclosing (?i:…) folds its case.
class Parser {
  constructor(text) {
    this.text = text;
    this.i = 0;
  }

  parse() {
    const tree = this.alt(false, 0);
    if (this.i < this.text.length) refuse(`the ")" at ${this.i} closes no group`);
    return tree;
  }

  alt(fold, depth) {
    if (depth > MAX_DEPTH) refuse(`groups are nested more than ${MAX_DEPTH} deep`);
    const branches = [this.seq(fold, depth)];
    while (this.text[this.i] === '|') {
      this.i++;
      branches.push(this.seq(fold, depth));
    }
    return { type: 'alt', branches };
  }

  seq(fold, depth) {
    const items = [];
    while (this.i < this.text.length && this.text[this.i] !== '|' && this.text[this.i] !== ')') {
      const atom = this.atom(fold, depth);
      if (atom !== null) items.push(this.quantified(atom));
    }
    return { type: 'seq', items };
  }

  node(type, start, fold, fields) {
    return { type, start, end: this.i, fold, ...fields };
  }

  atom(fold, depth) {
    const start = this.i;
    const c = this.text[start];
    if (c === '(') return this.group(fold, depth);
    if (c === '\\') return this.escape(fold);
    if (c === '[') {
      const negated = this.text[start + 1] === '^';
      this.klass(1);
      const base = negated ? `[${this.text.slice(start + 2, this.i)}` : this.text.slice(start, this.i);
      return this.node('char', start, fold, { base, negated });
    }
    if (c === '*' || c === '+' || c === '?') refuse(`the "${c}" at ${start} has nothing to repeat`);
    this.i += String.fromCodePoint(this.text.codePointAt(start)).length;
    if (c === '^' || c === '$') return this.node('assert', start, fold);
    return this.node('char', start, fold, { base: this.text.slice(start, this.i), negated: false }); // also . { } ]
  }

  escape(fold) {
    const start = this.i;
    const braced = at(BRACED, this.text, start) ?? at(FIXED, this.text, start);
    if (braced) {
      this.i += braced[0].length;
      const negated = braced[1] === 'P';
      return this.node('char', start, fold, { base: negated ? `\\p{${braced[2]}}` : braced[0], negated });
    }
    if (start + 1 >= this.text.length) refuse('the pattern ends in a lone backslash');
    const next = String.fromCodePoint(this.text.codePointAt(start + 1));
    this.i = start + 1 + next.length;
    if (next === 'G') return null; // the library drops \G
    if ('AzZbB'.includes(next)) return this.node('assert', start, fold);
    if ('wWdDsShH'.includes(next))
      return this.node('char', start, fold, { base: `\\${next.toLowerCase()}`, negated: next !== next.toLowerCase() });
    if (/[0-9kg]/.test(next))
      refuse(`the backreference "\\${next}" at ${start} (backreferences can take exponential time)`);
    if (/[A-Za-z]/.test(next) && !'aenrtfv'.includes(next))
      refuse(`the escape "\\${next}" at ${start} is not supported`);
    return this.node('char', start, fold, { base: this.text.slice(start, this.i), negated: false });
  }

  // Skips a class, nested classes and POSIX brackets included: it matches one character.
  klass(depth) {
    if (depth > MAX_DEPTH) refuse(`character classes are nested more than ${MAX_DEPTH} deep`);
    const start = this.i;
    this.i++;
    if (this.text[this.i] === '^') this.i++;
    if (this.text[this.i] === ']') this.i++; // a ] first is a literal
    while (this.i < this.text.length) {
      const c = this.text[this.i];
      if (c === ']') {
        this.i++;
        return;
      }
      if (c === '\\') {
        const braced = at(BRACED, this.text, this.i) ?? at(FIXED, this.text, this.i);
        this.i += braced ? braced[0].length : 1 + String.fromCodePoint(this.text.codePointAt(this.i + 1) ?? 0).length;
      } else if (c === '[') {
        const posix = at(POSIX, this.text, this.i);
        if (posix) this.i += posix[0].length;
        else this.klass(depth + 1);
      } else {
        this.i += String.fromCodePoint(this.text.codePointAt(this.i)).length;
      }
    }
    refuse(`the character class at ${start} is not closed`);
  }

  group(fold, depth) {
    const start = this.i;
    const prefix = at(GROUP, this.text, start)?.[0] ?? '(';
    if (prefix === '(' && this.text[start + 1] === '?')
      refuse(`the group "(?${this.text[start + 2] ?? ''}" at ${start} is not supported`);
    this.i += prefix.length;
    const body = this.alt(fold || prefix === '(?i:', depth + 1);
    if (this.text[this.i] !== ')') refuse(`the group at ${start} is not closed`);
    this.i++;
    if (['(?=', '(?!', '(?<=', '(?<!'].includes(prefix)) {
      return this.node('look', start, fold, { ahead: !prefix.startsWith('(?<'), negative: prefix.endsWith('!'), body });
    }
    return this.node('group', start, fold, { body });
  }

  // One quantifier, with the suffixes the library keeps: lazy ?, possessive + (dropped), and
  // Oniguruma's x{n}+ / x{n}* (a repetition of x{n}). Anything more is refused.
  quantified(atom) {
    const q = this.quantifier();
    if (q === null) return atom;
    if (atom.type === 'assert' || atom.type === 'look') refuse(`the assertion at ${atom.start} is quantified`);
    let node = this.node('quant', atom.start, atom.fold, { body: atom, min: q.min, max: q.max, lazy: false });
    if (q.brace && (this.text[this.i] === '+' || this.text[this.i] === '*')) {
      const min = this.text[this.i++] === '+' ? 1 : 0;
      node = this.node('quant', atom.start, atom.fold, { body: node, min, max: Infinity, lazy: false });
    }
    if (this.text[this.i] === '?') node.lazy = true;
    if (this.text[this.i] === '?' || this.text[this.i] === '+') this.i++;
    if ('*+?'.includes(this.text[this.i] ?? '-') || at(QUANT_BRACE, this.text, this.i))
      refuse(`the quantifiers at ${atom.start} are stacked`);
    node.end = this.i;
    return node;
  }

  quantifier() {
    const c = this.text[this.i];
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      return { min: c === '+' ? 1 : 0, max: c === '?' ? 1 : Infinity, brace: false };
    }
    const brace = at(QUANT_BRACE, this.text, this.i);
    if (!brace) return null;
    this.i += brace[0].length;
    const [low, high] = brace[1].split(',');
    const min = Number(low || 0);
    const max = high === undefined ? min : high === '' ? Infinity : Number(high);
    if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT))
      refuse(`the repetition "${brace[0]}" counts beyond ${MAX_COUNT}`);
    if (min > max) refuse(`the repetition "${brace[0]}" is out of order`);
    return { min, max, brace: true };
  }
}

// ---- The tree's measures ----

const children = (n) => (n.type === 'alt' ? n.branches : n.type === 'seq' ? n.items : n.body ? [n.body] : []);
const contains = (n, test) => test(n) || children(n).some((c) => contains(c, test));
const isRun = (n) => n.type === 'quant' && n.max > BOUNDED;
const optional = (n) => n.type === 'quant' && n.min === 0;
const cap = (x) => Math.min(x, 1e12);

// The one character a node matches (a char, or a group holding only one), else null.
function singleChar(n) {
  if (n.type === 'char') return n;
  if (n.type === 'group' && n.body.branches.length === 1 && n.body.branches[0].items.length === 1)
    return singleChar(n.body.branches[0].items[0]);
  return null;
}
const sameClass = (a, b) => a.base === b.base && a.fold === b.fold && a.negated === b.negated;
const complementClass = (a, b) => a.base === b.base && a.fold === b.fold && a.negated !== b.negated;

// How many ways a bounded node can match (an upper bound on the paths backtracking tries).
function ways(n) {
  switch (n.type) {
    case 'alt':
      return cap(n.branches.reduce((s, b) => s + ways(b), 0));
    case 'seq':
      return cap(n.items.reduce((p, i) => p * ways(i), 1));
    case 'group':
    case 'look':
      return ways(n.body);
    case 'assert':
      return 2; // the library writes ^ $ \b \B as two alternatives
    case 'quant': {
      if (isRun(n)) return 1;
      const w = ways(n.body);
      let total = 0;
      for (let k = n.min; k <= n.max; k++) total = cap(total + w ** k);
      return total;
    }
    default:
      return 1;
  }
}

// The fewest characters a node matches.
function minLength(n) {
  switch (n.type) {
    case 'alt':
      return Math.min(...n.branches.map(minLength));
    case 'seq':
      return n.items.reduce((s, i) => s + minLength(i), 0);
    case 'group':
      return minLength(n.body);
    case 'quant':
      return n.min * minLength(n.body);
    case 'char':
      return 1;
    default:
      return 0;
  }
}

// The most steps one path through a bounded node takes: characters, assertions, lookarounds.
function steps(n) {
  switch (n.type) {
    case 'alt':
      return Math.max(...n.branches.map(steps));
    case 'seq':
      return n.items.reduce((s, i) => s + steps(i), 0);
    case 'group':
      return steps(n.body);
    case 'look':
      return 1 + steps(n.body);
    case 'quant':
      return n.max * steps(n.body);
    default:
      return 1;
  }
}

// A branch's items, with its one-branch groups opened: (?:\s+)(?!\S) is \s+ then (?!\S).
const flatten = (items) =>
  items.flatMap((n) => (n.type === 'group' && n.body.branches.length === 1 ? flatten(n.body.branches[0].items) : [n]));

// A pattern that is one group, (a|b), is that group's alternatives.
function alternatives(tree) {
  const only = tree.branches.length === 1 ? flatten(tree.branches[0].items) : [];
  return only.length === 1 && only[0].type === 'group' ? alternatives(only[0].body) : tree.branches;
}

// ---- The checks ----

function checkNesting(n, text, inLook = false) {
  const src = () => text.slice(n.start, n.end);
  if (n.type === 'quant') {
    if (n.max > 1 && !singleChar(n.body)) {
      if (contains(n.body, (c) => c.type === 'quant'))
        refuse(`nested quantifiers: "${src()}" repeats a group that holds a quantifier`);
      if (contains(n.body, (c) => c.type === 'alt' && c.branches.length > 1))
        refuse(`"${src()}" repeats a group with alternatives`);
      if (n.max > BOUNDED) refuse(`"${src()}" repeats a group without bound`);
    }
    if (n.max > BOUNDED) {
      if (inLook) refuse(`the lookaround around "${src()}" holds an unbounded quantifier`);
      if (n.lazy) refuse(`"${src()}" is a lazy unbounded quantifier`);
      if (n.min > BOUNDED) refuse(`"${src()}" repeats at least ${n.min} times (at most ${BOUNDED} allowed)`);
    }
  }
  for (const c of children(n)) checkNesting(c, text, inLook || n.type === 'look');
}

// (B): a lookahead that the run's characters satisfy: c+(?!C) with C the complement of c, or c+(?=c).
function givesBackOne(run, look) {
  if (
    look?.type !== 'look' ||
    !look.ahead ||
    look.body.branches.length !== 1 ||
    look.body.branches[0].items.length !== 1
  )
    return false;
  const c = singleChar(look.body.branches[0].items[0]);
  const r = singleChar(run.body);
  return c !== null && (look.negative ? complementClass(r, c) : sameClass(r, c));
}
const endsMatch = (rest) => rest.every(optional); // (A)
const settles = (run, rest) => endsMatch(rest) || (givesBackOne(run, rest[0]) && endsMatch(rest.slice(1)));

// (C): the next branch starts as this one does (nothing, or one optional character), then
// takes the same class's run with nothing after it that can fail.
function coveredByNext(items, i, next, key) {
  const prefix = items.slice(0, i);
  if (
    prefix.length > 1 ||
    (prefix.length === 1 && !(optional(prefix[0]) && prefix[0].max === 1 && singleChar(prefix[0].body)))
  )
    return false;
  if (!next || next.length <= i || prefix.some((p, k) => key(p) !== key(next[k]))) return false;
  const cover = next[i];
  return (
    isRun(cover) &&
    cover.min <= 1 &&
    sameClass(singleChar(cover.body), singleChar(items[i].body)) &&
    settles(cover, next.slice(i + 1))
  );
}

function checkBranches(tree, text) {
  const key = (n) => `${n.fold ? 'i' : '-'}${text.slice(n.start, n.end)}`;
  const src = (n) => text.slice(n.start, n.end);
  const branches = alternatives(tree).map((b) => flatten(b.items));
  let work = 0;
  branches.forEach((items, b) => {
    const bounded = items.filter((n) => !isRun(n));
    const inner = bounded.find((n) => contains(n, isRun));
    if (inner)
      refuse(`the unbounded quantifier in "${src(inner)}" sits inside an optional group or a group with alternatives`);
    work += ways({ type: 'seq', items: bounded }) * (1 + bounded.reduce((s, n) => s + steps(n), 0));
    items.forEach((run, i) => {
      if (!isRun(run)) return;
      const rest = items.slice(i + 1);
      if (settles(run, rest)) return;
      if (endsMatch(rest.slice(1)) && coveredByNext(items, i, branches[b + 1], key)) return;
      const after = rest.map(src).join('');
      refuse(
        `"${src(run)}" is followed by "${after}", which can fail after the run is scanned, so each later position scans it again (quadratic or worse)`,
      );
    });
  });
  if (work > MAX_WORK)
    refuse(
      `its alternatives and bounded repetitions can match in too many ways (${work > 1e11 ? 'more than 10¹¹' : work} > ${MAX_WORK})`,
    );
  return work;
}

/**
 * Judges a tokenizer.json { "Regex": pattern }.
 * @param {string} pattern
 * @returns {{ problem: string | null, minLength: number, work: number }} problem: why it is
 *   refused, or null; minLength: the fewest characters a match takes (0: it can match the
 *   empty string); work: the bound on steps tried per text position (at most MAX_WORK)
 */
export function analyzePattern(pattern) {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return {
      problem: `it is ${pattern.length} characters long (at most ${MAX_PATTERN_LENGTH})`,
      minLength: 0,
      work: Infinity,
    };
  const text = pattern.replace(BLOOM_CLASS, '[^()|\\s$1]');
  try {
    const tree = new Parser(text).parse();
    checkNesting(tree, text);
    const work = checkBranches(tree, text);
    return { problem: null, minLength: minLength(tree), work };
  } catch (error) {
    if (error instanceof Refusal) return { problem: error.message, minLength: 0, work: Infinity };
    throw error;
  }
}
