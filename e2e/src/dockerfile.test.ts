import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Each stage's ENTRYPOINT (exec form), by stage name. */
function readEntrypoints(): Map<string, string[]> {
  const text = readFileSync(resolve(__dirname, '../../infra/docker/Dockerfile'), 'utf8');
  const entrypoints = new Map<string, string[]>();
  let stage = '';
  for (const line of text.split('\n')) {
    const from = /^FROM\s+\S+\s+AS\s+(\S+)/i.exec(line);
    if (from) stage = from[1];
    const entrypoint = /^ENTRYPOINT\s+(\[.*\])\s*$/.exec(line);
    if (entrypoint) entrypoints.set(stage, JSON.parse(entrypoint[1]) as string[]);
  }
  return entrypoints;
}

const flagOf = (argv: string[], name: string): number | undefined => {
  const flag = argv.find((arg) => arg.startsWith(`--${name}=`));
  return flag === undefined ? undefined : Number(flag.slice(name.length + 3));
};

describe('the service images', () => {
  const entrypoints = readEntrypoints();

  // The 30-minute soak saw person-service's resident memory step up by a quarter to a third at NATS node losses,
  // its heap in use flat: V8 had grown the young generation with the allocation rate of the burst.
  it.each(['gateway', 'person-service', 'systems-service'])(
    'runs %s with a young generation of one size, so that its resident memory does not step with the load',
    (stage) => {
      const argv = entrypoints.get(stage) ?? [];
      expect(argv[0]).toBe('node');
      const min = flagOf(argv, 'min-semi-space-size');
      expect({ min, max: flagOf(argv, 'max-semi-space-size') }).toEqual({ min: expect.any(Number), max: min });
      // Node's flags come before the program, or they would be the program's arguments.
      expect(argv.findIndex((arg) => arg.endsWith('.js'))).toBeGreaterThan(
        argv.indexOf(`--min-semi-space-size=${min}`),
      );
    },
  );
});
