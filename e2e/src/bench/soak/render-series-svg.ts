import { axisTop, escapeXml, num, TICKS } from '../svg-parts';
import type { FaultWindow } from './summarise-soak';

export interface Series {
  name: string;
  /** [minute, value] in time order. */
  points: Array<[number, number]>;
}

export interface SeriesChartOptions {
  title: string;
  /** The y axis' label, e.g. `MiB`. */
  unit: string;
  /** The fault windows, drawn as grey bands behind the lines. */
  faults?: readonly FaultWindow[];
  /** The run's length in minutes (the x axis' end). */
  minutes: number;
}

const WIDTH = 900;
const HEIGHT = 460;
const PLOT = { left: 70, right: WIDTH - 190, top: 50, bottom: HEIGHT - 50 };
const COLOURS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
  '#393b79',
];

/**
 * A stand-alone SVG of values over a run's minutes: a line per process, named in a legend on the right, the
 * faults as grey bands with their label. The axis starts at 0, so that growth is seen at its true size.
 */
export function renderSeriesSvg(series: readonly Series[], options: SeriesChartOptions): string {
  const minutes = Math.max(1, options.minutes);
  const top = axisTop(Math.max(0, ...series.flatMap((line) => line.points.map(([, value]) => value))));
  const x = (minute: number): number => PLOT.left + (minute / minutes) * (PLOT.right - PLOT.left);
  const y = (value: number): number => PLOT.bottom - (value / top) * (PLOT.bottom - PLOT.top);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${(PLOT.left + PLOT.right) / 2}" y="28" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];
  for (const fault of options.faults ?? []) {
    const from = x(Math.max(0, fault.from));
    const to = x(Math.min(minutes, fault.to));
    parts.push(
      `<rect class="fault" x="${num(from)}" y="${PLOT.top}" width="${num(Math.max(1, to - from))}" height="${PLOT.bottom - PLOT.top}" fill="#eeeeee"/>`,
      `<text x="${num(from + 3)}" y="${PLOT.top + 12}" font-size="10" fill="#555">${escapeXml(fault.label)}</text>`,
    );
  }
  for (let tick = 0; tick <= TICKS; tick++) {
    const value = (top / TICKS) * tick;
    parts.push(
      `<line x1="${PLOT.left}" y1="${num(y(value))}" x2="${PLOT.right}" y2="${num(y(value))}" stroke="#e0e0e0"/>`,
      `<text x="${PLOT.left - 8}" y="${num(y(value))}" text-anchor="end" dominant-baseline="middle">${num(value)}</text>`,
    );
  }
  const step = [1, 2, 5, 10, 15, 30, 60].find((candidate) => minutes / candidate <= 12) ?? 60;
  for (let minute = 0; minute <= minutes; minute += step) {
    parts.push(
      `<line x1="${num(x(minute))}" y1="${PLOT.bottom}" x2="${num(x(minute))}" y2="${PLOT.bottom + 5}" stroke="black"/>`,
      `<text x="${num(x(minute))}" y="${PLOT.bottom + 18}" text-anchor="middle">${minute}</text>`,
    );
  }
  series.forEach((line, index) => {
    const colour = COLOURS[index % COLOURS.length];
    if (line.points.length > 0) {
      const points = line.points.map(([minute, value]) => `${num(x(minute))},${num(y(value))}`).join(' ');
      parts.push(`<polyline class="series" points="${points}" fill="none" stroke="${colour}" stroke-width="1.5"/>`);
    }
    const legendY = PLOT.top + index * 18;
    parts.push(
      `<line x1="${PLOT.right + 16}" y1="${legendY + 6}" x2="${PLOT.right + 36}" y2="${legendY + 6}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${PLOT.right + 42}" y="${legendY + 10}">${escapeXml(line.name)}</text>`,
    );
  });
  parts.push(
    `<line x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}" stroke="black"/>`,
    `<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}" stroke="black"/>`,
    `<text x="${(PLOT.left + PLOT.right) / 2}" y="${HEIGHT - 14}" text-anchor="middle">minute of the soak</text>`,
    `<text transform="translate(20 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.unit)}</text>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}
