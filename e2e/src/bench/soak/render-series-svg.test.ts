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
    expect(svg).toContain('>gateway-1  max 52</text>');
    expect(svg).toContain('>nats-&lt;1&gt;  max 21</text>');
    expect(svg.match(/<rect class="fault"/g)).toHaveLength(1);
    expect(svg).toContain('>nats-2 killed</text>');
    // Values from 0 to 52 on an axis from 0 to 60: the highest point sits below the top of the plot.
    expect(svg).toMatch(/>60<\/text>/);
  });
});

describe('renderSeriesSvg on a long run', () => {
  it('breaks a line where a process was not sampled (a node killed) instead of drawing across the gap', () => {
    const svg = renderSeriesSvg(
      [
        {
          name: 'nats-2',
          points: [
            [0, 20],
            [0.25, 20],
            [0.5, 20],
            // down from 0.5 to 1.25
            [1.25, 12],
            [1.5, 13],
          ],
        },
      ],
      { title: 'RSS', unit: 'MiB', minutes: 2, gapMinutes: 0.5 },
    );
    expect(svg.match(/<polyline class="series"/g)).toHaveLength(2);
  });

  it('names in the legend the highest value of each line, so that lines lying on each other are still told', () => {
    const flat: Array<[number, number]> = [
      [0, 0],
      [1, 0],
    ];
    const svg = renderSeriesSvg(
      [
        { name: 'nats-1', points: flat },
        { name: 'nats-2', points: flat },
        {
          name: 'nats-3',
          points: [
            [0, 0],
            [1, 12.5],
          ],
        },
      ],
      { title: 'lag', unit: 'operations', minutes: 1 },
    );
    expect(svg).toContain('>nats-1  max 0</text>');
    expect(svg).toContain('>nats-3  max 12.5</text>');
  });

  it('numbers every fault band above the plot and writes its label up the band where it has room', () => {
    const faults = Array.from({ length: 20 }, (_, index) => ({
      label: `rolling restart ${index + 1}`,
      from: 1 + index * 1.5,
      to: 1.8 + index * 1.5,
    }));
    const svg = renderSeriesSvg([], { title: 'RSS', unit: 'MiB', minutes: 32, faults });
    expect(svg.match(/<rect class="fault"/g)).toHaveLength(20);
    expect(svg.match(/<text class="fault-number"[^>]*>\d+<\/text>/g)).toHaveLength(20);
    expect(svg).toMatch(/<text class="fault-label" transform="[^"]*rotate\(-90\)"[^>]*>rolling restart 20<\/text>/);
    // A band a few pixels wide has no room for a line of text.
    const narrow = renderSeriesSvg([], {
      title: 'RSS',
      unit: 'MiB',
      minutes: 30,
      faults: [{ label: 'nats-1 killed', from: 5, to: 5.1 }],
    });
    expect(narrow).not.toContain('>nats-1 killed</text>');
    expect(narrow).toMatch(/<text class="fault-number"[^>]*>1<\/text>/);
  });
});

describe('renderSeriesSvg legend and bands', () => {
  it('makes the picture wide enough for the longest legend entry', () => {
    const name = 'person-service 5YIKE';
    const svg = renderSeriesSvg(
      [
        {
          name,
          points: [
            [0, 100.25],
            [1, 105.25],
          ],
        },
      ],
      { title: 'RSS', unit: 'MiB', minutes: 1 },
    );
    const width = Number(/<svg [^>]*width="(\d+)"/.exec(svg)![1]);
    const legendX = Number(/<text x="([\d.]+)"[^>]*>person-service 5YIKE {2}max 105.3<\/text>/.exec(svg)![1]);
    // 11-pixel sans-serif: under 7 pixels a character.
    expect(width).toBeGreaterThanOrEqual(legendX + `${name}  max 105.3`.length * 7);
  });

  it('draws the start of each fault band as a line, so that windows back to back stay apart', () => {
    const svg = renderSeriesSvg([], {
      title: 'RSS',
      unit: 'MiB',
      minutes: 4,
      faults: [
        { label: 'rolling restart 1', from: 0.5, to: 1 },
        { label: 'rolling restart 2', from: 1, to: 1.6 },
      ],
    });
    expect(svg.match(/<line class="fault-start"/g)).toHaveLength(2);
  });
});
