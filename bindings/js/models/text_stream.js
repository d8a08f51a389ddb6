// The text generate reports as tokens arrive, and its stop strings. Each step the whole new
// text is decoded again (so a character whose bytes span several tokens comes out whole), and
// the part not yet reported is handed to onToken, except what may still change or vanish:
// an unfinished character at the end (U+FFFD until its last byte comes) and an end that may
// be the start of a stop string. A stop string anywhere in the text stops the generation;
// the text ends where the stop string begins (it and what followed it in its token are not
// returned), as a chat UI wants it.
//   stops ['\n\n']:  'Hi' → report 'Hi';  'Hi\n' → report '' (held);  'Hi\n\nBye' → stop at 2
export class TextStream {
  #stops;
  #reported = '';

  /** @param {string[]} stops */
  constructor(stops) {
    this.#stops = stops;
  }

  /**
   * The new text so far → { piece, stopAt }: the text to report now, and where the first stop
   * string begins in `text` (-1: none yet). `last`: no token follows (report everything).
   */
  next(text, last) {
    const stopAt = this.#firstStop(text);
    const end = stopAt >= 0 ? stopAt : last ? text.length : text.length - this.#heldBack(text);
    // Decoding again may rewrite what was reported (rare): then the rest is reported whole.
    const from = text.startsWith(this.#reported) ? this.#reported.length : 0;
    const piece = end > from ? text.slice(from, end) : '';
    if (end > from) this.#reported = text.slice(0, end);
    return { piece, stopAt };
  }

  #firstStop(text) {
    let first = -1;
    for (const stop of this.#stops) {
      const at = text.indexOf(stop);
      if (at >= 0 && (first < 0 || at < first)) first = at;
    }
    return first;
  }

  // Characters at the end that may still change: an unfinished character, or the longest end
  // that is the start of a stop string.
  #heldBack(text) {
    let held = 0;
    while (held < text.length && text[text.length - 1 - held] === '\ufffd') held++;
    for (const stop of this.#stops) {
      for (let n = Math.min(stop.length - 1, text.length); n > held; n--) {
        if (text.endsWith(stop.slice(0, n))) {
          held = n;
          break;
        }
      }
    }
    return held;
  }
}
