import { RestbusError } from '@restbus/infra';
import type { ApiResponse } from '@restbus/openapi';
import { listNames } from './list-names';
import { nameSelector, type MockPreference } from './read-prefer';

/** A declared response the mock answers with, and the status it is sent with. */
export interface ChosenResponse {
  status: number;
  /** The key it is declared under: `200`, `2XX` or `default`. */
  key: string;
  response: ApiResponse;
}

// 1xx are interim: written as the answer they leave the client waiting for one that never comes. Never chosen.
const RANGE = /^[2-5]XX$/i;

/** The status a key stands for: itself, the lowest of a range, 200 for `default` (Prism's choice too). */
function statusOf(key: string): number {
  if (RANGE.test(key)) return Number(key[0]) * 100;
  return key === 'default' ? 200 : Number(key);
}

function isCode(key: string): boolean {
  return /^[2-5]\d\d$/.test(key);
}

/**
 * Which declared response the mock answers, as Prism's static mode does: `Prefer: code=N` (or `?__code=N`) names one
 * (its exact code, else its range `NXX`, else `default`, sent with status N); otherwise the lowest 2xx, else a `2XX`
 * range, else `default`, else the lowest declared code (never a 1xx: those cannot end a response). A preferred code
 * the operation does not declare is the client's mistake: `400 BAD_REQUEST` naming the codes it does declare, and
 * how it was asked for (`preference`).
 */
export function chooseResponse(
  responses: readonly ApiResponse[],
  preferredCode?: number,
  preference: MockPreference = {},
): ChosenResponse | undefined {
  const keys = responses.map((response) => response.status);
  const pick = (key: string | undefined, status?: number): ChosenResponse | undefined => {
    const response = responses.find((candidate) => candidate.status === key);
    return response && { key: response.status, status: status ?? statusOf(response.status), response };
  };
  if (preferredCode !== undefined) {
    const key =
      keys.find((candidate) => candidate === String(preferredCode)) ??
      keys.find((candidate) => candidate.toUpperCase() === `${String(preferredCode)[0]}XX`) ??
      keys.find((candidate) => candidate === 'default');
    if (key === undefined) {
      throw new RestbusError(
        'BAD_REQUEST',
        `${nameSelector(preference, 'code', String(preferredCode))}: the operation declares no such response (it declares ${keys.length > 0 ? listNames(keys) : 'none'})`,
      );
    }
    return pick(key, preferredCode);
  }
  const codes = keys.filter(isCode).sort();
  return pick(
    codes.find((key) => key.startsWith('2')) ??
      keys.find((key) => key.toUpperCase() === '2XX') ??
      keys.find((key) => key === 'default') ??
      [...codes, ...keys.filter((key) => RANGE.test(key)).sort()][0],
  );
}
