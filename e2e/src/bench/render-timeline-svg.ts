import type { toTimeline } from '../cluster-load';
import { axisTop, escapeXml, num, TICKS } from './svg-parts';

export type TimelineRow = ReturnType<typeof toTimeline>[number];

export interface TimelineChartOptions {
  title: string;
  /** When the fault was injected, ms into the run: drawn as a vertical marker. */
  faultAt?: number;
  faultLabel?: string;
}

const WIDTH = 900;
const HEIGHT = 500;
const PLOT = { left: 70, right: WIDTH - 80, top: 60, bottom: HEIGHT - 60 };
const BAR_SHARE = 0.7;

/** The smallest 1, 2 or 5 × 10^k at least `value`: steps a reader can add up in their head. */
function niceStep(value: number): number {
  if (!(value > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((factor) => factor * magnitude).find((step) => step >= value)!;
}

/**
 * Draws a load run's per-second timeline as a stand-alone SVG: a bar per second for the requests sent in it, a red
 * bar over it for those that failed, the second's p99 as a line on the right-hand axis, and the fault as a dashed
 * vertical line. Hand-written rather than a charting library: one chart, and no browser needed to make it.
 */
export function renderTimelineSvg(timeline: readonly TimelineRow[], options: TimelineChartOptions): string {
  const faultSecond = options.faultAt === undefined ? undefined : options.faultAt / 1000;
  const seconds = Math.max(1, ...timeline.map((row) => row.second + 1), Math.ceil(faultSecond ?? 0));
  const slot = (PLOT.right - PLOT.left) / seconds;
  const plotHeight = PLOT.bottom - PLOT.top;
  const requestsTop = axisTop(Math.max(0, ...timeline.map((row) => row.requests)));
  const p99Top = axisTop(Math.max(0, ...timeline.map((row) => row.p99).filter(Number.isFinite)));
  const x = (second: number): number => PLOT.left + second * slot;
  const yRequests = (value: number): number => PLOT.bottom - (value / requestsTop) * plotHeight;
  const yP99 = (value: number): number => PLOT.bottom - (value / p99Top) * plotHeight;
  const barWidth = slot * BAR_SHARE;
  const barX = (second: number): number => x(second) + (slot - barWidth) / 2;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="28" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];

  // Grid and tick labels: requests on the left, p99 on the right, at the same heights.
  for (let tick = 0; tick <= TICKS; tick++) {
    const requests = (requestsTop / TICKS) * tick;
    const y = num(yRequests(requests));
    parts.push(
      `<line x1="${PLOT.left}" y1="${y}" x2="${PLOT.right}" y2="${y}" stroke="#e5e5e5"/>`,
      `<text x="${PLOT.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${num(requests)}</text>`,
      `<text x="${PLOT.right + 8}" y="${y}" dominant-baseline="middle" fill="#c05600">${num((p99Top / TICKS) * tick)}</text>`,
    );
  }
  const secondStep = niceStep(seconds / 12);
  for (let second = 0; second <= seconds; second += secondStep) {
    parts.push(
      `<line x1="${num(x(second))}" y1="${PLOT.bottom}" x2="${num(x(second))}" y2="${PLOT.bottom + 5}" stroke="black"/>`,
      `<text x="${num(x(second))}" y="${PLOT.bottom + 18}" text-anchor="middle">${second}</text>`,
    );
  }

  for (const row of timeline) {
    const top = yRequests(row.requests);
    parts.push(
      `<rect class="requests" x="${num(barX(row.second))}" y="${num(top)}" width="${num(barWidth)}" height="${num(PLOT.bottom - top)}" fill="#8fb3d9"/>`,
    );
    if (row.errors > 0) {
      const errorTop = yRequests(row.errors);
      parts.push(
        `<rect class="errors" x="${num(barX(row.second))}" y="${num(errorTop)}" width="${num(barWidth)}" height="${num(PLOT.bottom - errorTop)}" fill="#d62728"/>`,
      );
    }
  }

  const points = timeline
    .filter((row) => Number.isFinite(row.p99))
    .map((row) => `${num(x(row.second + 0.5))},${num(yP99(row.p99))}`);
  if (points.length > 0)
    parts.push(
      `<polyline class="p99" points="${points.join(' ')}" fill="none" stroke="#c05600" stroke-width="2" stroke-linejoin="round"/>`,
    );

  if (faultSecond !== undefined) {
    const faultX = num(x(faultSecond));
    parts.push(
      `<line class="fault" x1="${faultX}" y1="${PLOT.top}" x2="${faultX}" y2="${PLOT.bottom}" stroke="black" stroke-width="1.5" stroke-dasharray="6 4"/>`,
      `<text x="${num(x(faultSecond) + 5)}" y="${PLOT.top + 12}">${escapeXml(options.faultLabel ?? 'fault')}</text>`,
    );
  }

  // Axes last, over the bars.
  parts.push(
    `<line x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}" stroke="black"/>`,
    `<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}" stroke="black"/>`,
    `<line x1="${PLOT.right}" y1="${PLOT.top}" x2="${PLOT.right}" y2="${PLOT.bottom}" stroke="#c05600"/>`,
    `<text x="${(PLOT.left + PLOT.right) / 2}" y="${HEIGHT - 18}" text-anchor="middle">second of the run (requests counted by the second they were sent)</text>`,
    `<text transform="translate(20 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle">requests per second</text>`,
    `<text transform="translate(${WIDTH - 20} ${(PLOT.top + PLOT.bottom) / 2}) rotate(90)" text-anchor="middle" fill="#c05600">p99 ms</text>`,
  );

  // Legend, between the title and the plot.
  const legend = [
    `<rect x="0" y="0" width="12" height="12" fill="#8fb3d9"/><text x="18" y="10">requests</text>`,
    `<rect x="90" y="0" width="12" height="12" fill="#d62728"/><text x="108" y="10">errors</text>`,
    `<line x1="165" y1="6" x2="185" y2="6" stroke="#c05600" stroke-width="2"/><text x="191" y="10">p99 latency</text>`,
  ];
  parts.push(`<g transform="translate(${PLOT.left} ${PLOT.top - 22})">${legend.join('')}</g>`, '</svg>');
  return `${parts.join('\n')}\n`;
}
