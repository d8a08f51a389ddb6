// Typed errors whose message starts with the public function's name:
//   attention: k has 8 columns but q has 16 (dk must match)

/** @param {string} fn @param {string} message */
export function typeError(fn, message) {
  return new TypeError(`${fn}: ${message}`);
}

/** @param {string} fn @param {string} message @param {ErrorOptions} [options] */
export function rangeError(fn, message, options) {
  return new RangeError(`${fn}: ${message}`, options);
}

/** Describes a value for an error message: its type, or its class for objects. */
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) {
    const kind = Object.prototype.toString.call(value).slice(8, -1);
    return `${/^[AEIO]/.test(kind) ? 'an' : 'a'} ${kind}`;  // an Int32Array, a Uint8Array
  }
  if (typeof value === 'object') return `an object (${className(value)})`;
  if (typeof value === 'function') return 'a function';
  const text = String(value);
  return `a ${typeof value} (${text.length > 40 ? `${text.slice(0, 40)}…` : text})`;
}

// The constructor's name, without running a caller's getters or proxy traps.
function className(value) {
  try {
    return Object.prototype.toString.call(value).slice(8, -1);
  } catch {
    return 'Object';
  }
}

/** A value as it reads in a message: numbers and strings as they are, anything else described. */
export function show(value) {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  return describe(value);
}
