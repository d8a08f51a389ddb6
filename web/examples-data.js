// The course's worked examples live with the elements (web/elements/course-examples.js),
// which ship in the package; the page imports them from there.
export { WEIGHTS, EXAMPLES, SLIDE_NOTES } from './elements/course-examples.js';
