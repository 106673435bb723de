import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWrk, type LoadResult } from '@restbus/infra/testing';

/** The two calls the stacks are compared on. */
export interface PersonCallResults {
  /** `GET /persons` with `persons` stored: one page holds them all. */
  list: LoadResult;
  /** `PUT /persons/{id}` replacing one of them, picked at random. */
  put: LoadResult;
}

export interface PersonCallOptions {
  persons: number;
  connections: number;
  seconds: number;
}

async function storePersons(baseUrl: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const person = { id: `p${i}`, familyName: `Family ${i}`, givenName: `Given ${i}` };
    const response = await fetch(`${baseUrl}/persons/${person.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(person),
    });
    if (!response.ok) throw new Error(`storing ${person.id} at ${baseUrl} answered ${response.status}`);
  }
}

// Replaces, never adds: the list keeps its size while the PUTs run.
const putScript = (count: number): string =>
  [
    'wrk.method = "PUT"',
    'wrk.headers["Content-Type"] = "application/json"',
    'request = function()',
    `  local id = "p" .. math.random(0, ${count - 1})`,
    `  return wrk.format(nil, "/persons/" .. id, nil, '{"id":"' .. id .. '","familyName":"Bench","givenName":"Put"}')`,
    'end',
    '',
  ].join('\n');

/**
 * Stores `persons` persons behind `baseUrl`, then loads `GET /persons` and `PUT /persons/{id}` with wrk, each after a
 * one-second warm-up (JIT, connections, HAProxy's pools) that is not counted.
 */
export async function measurePersonCalls(baseUrl: string, options: PersonCallOptions): Promise<PersonCallResults> {
  await storePersons(baseUrl, options.persons);
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-cluster-'));
  try {
    const script = join(dir, 'put.lua');
    await writeFile(script, putScript(options.persons));
    const listUrl = `${baseUrl}/persons`;
    await runWrk(listUrl, options.connections, 1);
    const list = await runWrk(listUrl, options.connections, options.seconds);
    await runWrk(baseUrl, options.connections, 1, script);
    const put = await runWrk(baseUrl, options.connections, options.seconds, script);
    return { list, put };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
