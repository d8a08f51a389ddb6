// The heads' colours in the all-heads views: a categorical palette a red-green colour-blind
// reader can tell apart (Okabe–Ito's hues, "Color Universal Design", 2008), each colour named
// so that a legend can say "head 0 (blue)", with a light and a dark variant (light-dark: the
// element's colour scheme) that each stand out from a white or a near-black page at 3:1 or more
// (WCAG's ratio for graphics). Simulated deuteranopia (Machado et al. 2009) keeps every pair of
// a scheme's six at CIE76 ΔE ≥ 16 (tests/element-reader-gaps-model.test.js checks both).

/** The six named colours, in the order heads take them: { name, light, dark }. */
export const HEAD_PALETTE = Object.freeze([
  Object.freeze({ name: 'blue', light: '#00508a', dark: '#4fa3e0' }),
  Object.freeze({ name: 'orange', light: '#b06a00', dark: '#e69f00' }),
  Object.freeze({ name: 'green', light: '#00785a', dark: '#3cc9a4' }),
  Object.freeze({ name: 'purple', light: '#9a3d8a', dark: '#c77cc0' }),
  Object.freeze({ name: 'sky blue', light: '#4197d6', dark: '#b8e2fa' }),
  Object.freeze({ name: 'olive', light: '#6e6200', dark: '#d8cc50' }),
]);

/**
 * Head n's colour of `count` (a CSS colour): the palette's for up to six heads; more heads
 * than six cannot all be told apart by name or by a colour-blind reader, so they take hues
 * spread around the wheel (unnamed), dark enough on a light page and light enough on a dark
 * one for 3:1 (hsl 30 % lightness against white, 65 % against #111, for every hue).
 */
export function headColour(n, count) {
  if (count <= HEAD_PALETTE.length) {
    const { light, dark } = HEAD_PALETTE[n];
    return `light-dark(${light}, ${dark})`;
  }
  const hue = Math.round((360 * n) / count);
  return `light-dark(hsl(${hue} 80% 30%), hsl(${hue} 75% 65%))`;
}

/** Head n's colour's name of `count` ('blue'), or null when the heads take unnamed hues. */
export function headColourName(n, count) {
  return count <= HEAD_PALETTE.length ? HEAD_PALETTE[n].name : null;
}

/** A head as a legend names it: 'head 0 (blue)', or 'head 7' among unnamed hues. */
export function headLabel(n, count) {
  const name = headColourName(n, count);
  return name ? `head ${n} (${name})` : `head ${n}`;
}
