// WCAG contrast ratio of two computed colours ('rgb(r, g, b)' or 'rgba(r, g, b, a)' over
// `under`), for the tests that check a colour stands out from the page.
export function contrast(colour, under) {
  const rgb = (c) => c.match(/[\d.]+/g).map(Number);
  const [r, g, b, a = 1] = rgb(colour);
  const base = rgb(under);
  const mixed = [r, g, b].map((c, k) => a * c + (1 - a) * base[k]);
  const luminance = (c) => {
    const lin = (x) => ((x /= 255) <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  };
  const [hi, lo] = [luminance(mixed), luminance(base)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
