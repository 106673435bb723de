import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { renderTimelineSvg, type TimelineRow } from './render-timeline-svg';

interface Element {
  [key: string]: unknown;
}

/** Every element named `name` anywhere under `node`, attributes as `@_x` keys. */
function elementsNamed(node: unknown, name: string): Element[] {
  if (Array.isArray(node)) return node.flatMap((child) => elementsNamed(child, name));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => [
    ...(key === name ? (Array.isArray(value) ? value : [value]).filter((v) => typeof v === 'object') : []),
    ...elementsNamed(value, name),
  ]) as Element[];
}

const parse = (svg: string): unknown =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
  }).parse(svg);

const rectsOfClass = (svg: string, className: string): Element[] =>
  elementsNamed(parse(svg), 'rect').filter((rect) => rect['@_class'] === className);

// Ten seconds at 40 requests each; the fault at 3.5 s costs errors in seconds 3 and 4 and a slow p99.
const timeline: TimelineRow[] = Array.from({ length: 10 }, (_, second) => ({
  second,
  requests: 40,
  errors: second === 3 ? 6 : second === 4 ? 2 : 0,
  p99: second === 3 ? 2400 : 20 + second,
}));

describe('renderTimelineSvg', () => {
  it('draws well-formed SVG with one request bar per second and a red bar for each second that had errors', () => {
    const svg = renderTimelineSvg(timeline, { title: 'NATS leader killed', faultAt: 3500 });
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(rectsOfClass(svg, 'requests')).toHaveLength(10);
    const errorBars = rectsOfClass(svg, 'errors');
    expect(errorBars).toHaveLength(2);
    // An error bar stands on the same slot as its second's request bar and is shorter in proportion.
    const requestBars = rectsOfClass(svg, 'requests');
    expect(errorBars[0]['@_x']).toBe(requestBars[3]['@_x']);
    expect(Number(errorBars[0]['@_height'])).toBeCloseTo((Number(requestBars[3]['@_height']) * 6) / 40, 0);
  });

  it('puts the fault marker where the fault happened on the seconds axis', () => {
    const svg = renderTimelineSvg(timeline, { title: 't', faultAt: 3500 });
    const bars = rectsOfClass(svg, 'requests');
    const marker = elementsNamed(parse(svg), 'line').find((line) => line['@_class'] === 'fault');
    expect(marker).toBeDefined();
    expect(marker!['@_x1']).toBe(marker!['@_x2']);
    // Second 3's bar is centred on its slot, 3.0 s to 4.0 s: 3.5 s is the bar's centre.
    const centreOfSecondThree = Number(bars[3]['@_x']) + Number(bars[3]['@_width']) / 2;
    expect(Number(marker!['@_x1'])).toBeCloseTo(centreOfSecondThree, 0);
  });

  it('draws the p99 line through one point per second, on its own axis', () => {
    const svg = renderTimelineSvg(timeline, { title: 't', faultAt: 3500 });
    const line = elementsNamed(parse(svg), 'polyline').find((candidate) => candidate['@_class'] === 'p99');
    const points = String(line?.['@_points']).trim().split(/\s+/);
    expect(points).toHaveLength(10);
    // The slowest second reaches highest: the smallest y.
    const ys = points.map((point) => Number(point.split(',')[1]));
    expect(Math.min(...ys)).toBe(ys[3]);
    expect(svg).toContain('p99 ms');
  });

  it('writes no NaN or Infinity for an empty timeline, an all-zero one, or no fault', () => {
    const quiet: TimelineRow[] = [0, 1, 2].map((second) => ({ second, requests: 0, errors: 0, p99: 0 }));
    for (const svg of [
      renderTimelineSvg([], { title: 'empty' }),
      renderTimelineSvg(quiet, { title: 'zeros' }),
      renderTimelineSvg(timeline, { title: 'no fault' }),
    ]) {
      expect(XMLValidator.validate(svg)).toBe(true);
      expect(svg).not.toMatch(/NaN|Infinity|undefined/);
    }
    expect(renderTimelineSvg(timeline, { title: 'no fault' })).not.toContain('class="fault"');
  });

  it('escapes the title', () => {
    const svg = renderTimelineSvg(timeline, { title: 'reads & writes <40/s>' });
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).toContain('reads &amp; writes &lt;40/s&gt;');
  });
});
