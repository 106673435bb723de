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
  /** Points further apart than this are not joined: the process was not sampled in between (a node down). */
  gapMinutes?: number;
}

const MIN_WIDTH = 900;
const HEIGHT = 460;
const PLOT = { left: 70, right: 710, top: 50, bottom: HEIGHT - 50 };
// The legend's text at 11 px: a sans-serif character is narrower than this.
const LEGEND_CHAR_WIDTH = 7;
const LEGEND_TEXT_X = PLOT.right + 34;
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

/** The stretches of a line between the gaps in its samples; a lone point is drawn as a dot-long line. */
function splitAtGaps(points: ReadonlyArray<[number, number]>, gapMinutes: number): Array<Array<[number, number]>> {
  const runs: Array<Array<[number, number]>> = [];
  for (const point of points) {
    const run = runs[runs.length - 1];
    if (run && point[0] - run[run.length - 1][0] <= gapMinutes) run.push(point);
    else runs.push([point]);
  }
  return runs.map((run) => (run.length === 1 ? [run[0], run[0]] : run));
}

/**
 * A stand-alone SVG of values over a run's minutes: a line per process, named in a legend on the right, the
 * faults as grey bands with their label. The axis starts at 0, so that growth is seen at its true size.
 */
export function renderSeriesSvg(series: readonly Series[], options: SeriesChartOptions): string {
  const minutes = Math.max(1, options.minutes);
  const top = axisTop(Math.max(0, ...series.flatMap((line) => line.points.map(([, value]) => value))));
  const x = (minute: number): number => PLOT.left + (minute / minutes) * (PLOT.right - PLOT.left);
  const y = (value: number): number => PLOT.bottom - (value / top) * (PLOT.bottom - PLOT.top);
  const legends = series.map((line) =>
    line.points.length ? `${line.name}  max ${num(Math.max(...line.points.map(([, value]) => value)))}` : line.name,
  );
  const WIDTH = Math.max(
    MIN_WIDTH,
    Math.ceil(LEGEND_TEXT_X + Math.max(0, ...legends.map((text) => text.length)) * LEGEND_CHAR_WIDTH + 10),
  );
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];
  (options.faults ?? []).forEach((fault, index) => {
    const from = x(Math.max(0, fault.from));
    const to = x(Math.min(minutes, fault.to));
    const width = Math.max(1, to - from);
    parts.push(
      `<rect class="fault" x="${num(from)}" y="${PLOT.top}" width="${num(width)}" height="${PLOT.bottom - PLOT.top}" fill="#eeeeee"/>`,
      `<line class="fault-start" x1="${num(from)}" y1="${PLOT.top}" x2="${num(from)}" y2="${PLOT.bottom}" stroke="#c8c8c8"/>`,
      `<text class="fault-number" x="${num(from + width / 2)}" y="${PLOT.top - 4}" text-anchor="middle" font-size="9" fill="#555">${index + 1}</text>`,
    );
    // Up the band, so that many faults side by side keep their labels apart; only where a line of text fits.
    if (width >= 11)
      parts.push(
        `<text class="fault-label" transform="translate(${num(from + width / 2 + 3)} ${PLOT.top + 6}) rotate(-90)" text-anchor="end" font-size="9" fill="#777">${escapeXml(fault.label)}</text>`,
      );
  });
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
  const gap = options.gapMinutes ?? Infinity;
  series.forEach((line, index) => {
    const colour = COLOURS[index % COLOURS.length];
    for (const run of splitAtGaps(line.points, gap)) {
      const points = run.map(([minute, value]) => `${num(x(minute))},${num(y(value))}`).join(' ');
      parts.push(`<polyline class="series" points="${points}" fill="none" stroke="${colour}" stroke-width="1.5"/>`);
    }
    const legendY = PLOT.top + index * 18;
    parts.push(
      `<line x1="${PLOT.right + 12}" y1="${legendY + 6}" x2="${PLOT.right + 30}" y2="${legendY + 6}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${LEGEND_TEXT_X}" y="${legendY + 10}" font-size="11">${escapeXml(legends[index])}</text>`,
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
