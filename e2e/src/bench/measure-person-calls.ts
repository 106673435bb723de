import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWrk, storePersons, writePutScript, type LoadResult } from '@restbus/infra/testing';

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

/**
 * Stores `persons` persons behind `baseUrl`, then loads `GET /persons` and `PUT /persons/{id}` with wrk, each after a
 * one-second warm-up (JIT, connections, HAProxy's pools) that is not counted.
 */
export async function measurePersonCalls(baseUrl: string, options: PersonCallOptions): Promise<PersonCallResults> {
  await storePersons(baseUrl, options.persons);
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-cluster-'));
  try {
    const script = join(dir, 'put.lua');
    await writePutScript(script, options.persons);
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
