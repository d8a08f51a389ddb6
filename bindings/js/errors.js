// Typed errors whose message starts with the public function's name:
//   attention: k has 8 columns but q has 16 (dk must match)

/** @param {string} fn @param {string} message */
export function typeError(fn, message) {
  return new TypeError(`${fn}: ${message}`);
}

/** @param {string} fn @param {string} message */
export function rangeError(fn, message) {
  return new RangeError(`${fn}: ${message}`);
}

/** Describes a value for an error message: its type, or its class for objects. */
export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'Object'})`;
  return `a ${typeof value} (${String(value)})`;
}
