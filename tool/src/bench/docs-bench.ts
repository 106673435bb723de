// npm run bench:docs — times `docs --update` on a generated 1,000-service project (target: under 5 s).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDocs } from '../docs';
import { writeSampleProject } from './write-sample-project';

const SERVICES = Number(process.env.BENCH_SERVICES ?? 1000);
const RUNS = 3;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'rest-tool-docs-bench-'));
  try {
    await writeSampleProject(dir, SERVICES);
    const fresh: number[] = [];
    const again: number[] = [];
    let written = 0;
    for (let run = 0; run < RUNS; run++) {
      // A fresh docs/ each time, then an update over it (replacing every generated file).
      await rm(join(dir, 'docs'), { recursive: true, force: true });
      let started = performance.now();
      written = (await generateDocs({ projectDir: dir })).written;
      fresh.push((performance.now() - started) / 1000);
      started = performance.now();
      await generateDocs({ projectDir: dir });
      again.push((performance.now() - started) / 1000);
    }
    const line = (label: string, times: number[]): string =>
      `${label}: median ${median(times).toFixed(2)} s (runs: ${times.map((t) => t.toFixed(2)).join(', ')})`;
    process.stdout.write(
      [
        `docs --update, ${SERVICES} services, ${written} files`,
        line('into an empty docs/', fresh),
        line('over existing docs/', again),
        `target: under 5 s — ${median([...fresh, ...again]) < 5 ? 'met' : 'MISSED'}`,
      ].join('\n') + '\n',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`docs-bench: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
