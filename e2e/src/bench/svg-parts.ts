// What the bench's hand-written SVG charts share: escaping, rounding and the scale of an axis from 0.

export const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One decimal keeps the file small; the charts cannot show more. */
export const num = (value: number): string => String(Math.round(value * 10) / 10);

/** Grid lines of an axis: its top is cut in this many steps. */
export const TICKS = 5;

/**
 * A round top for an axis from 0 that holds `max` with room above it (for a label), each fifth of it still a round
 * number.
 */
export function axisTop(max: number): number {
  const wanted = max * 1.1;
  if (!(wanted > 0)) return TICKS;
  const magnitude = 10 ** Math.floor(Math.log10(wanted));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((factor) => factor * magnitude).find((top) => top >= wanted)!;
}
