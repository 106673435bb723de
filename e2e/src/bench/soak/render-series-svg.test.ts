import { renderSeriesSvg } from './render-series-svg';

describe('renderSeriesSvg', () => {
  it('draws a line per process with its name, the faults as labelled bands, names escaped', () => {
    const svg = renderSeriesSvg(
      [
        {
          name: 'gateway-1',
          points: [
            [0, 50],
            [10, 52],
            [20, 51],
          ],
        },
        {
          name: 'nats-<1>',
          points: [
            [0, 20],
            [20, 21],
          ],
        },
      ],
      { title: 'RSS', unit: 'MiB', minutes: 20, faults: [{ label: 'nats-2 killed', from: 5, to: 6 }] },
    );
    expect(svg.match(/<polyline class="series"/g)).toHaveLength(2);
    expect(svg).toContain('>gateway-1</text>');
    expect(svg).toContain('>nats-&lt;1&gt;</text>');
    expect(svg.match(/<rect class="fault"/g)).toHaveLength(1);
    expect(svg).toContain('>nats-2 killed</text>');
    // Values from 0 to 52 on an axis from 0 to 60: the highest point sits below the top of the plot.
    expect(svg).toMatch(/>60<\/text>/);
  });
});
