import type { Request } from 'express';
import { RestbusError } from '@restbus/infra';

export const MAX_MOCK_DELAY_MS = 30_000;

/** `X-Mock-Delay: <ms>`: how long to hold a service's answer (0 when absent). */
export function readMockDelay(req: Request): number {
  const header = req.headers['x-mock-delay'];
  if (header === undefined) return 0;
  const text = Array.isArray(header) ? header[0] : header;
  if (!/^\d{1,9}$/.test(text.trim()) || Number(text) > MAX_MOCK_DELAY_MS) {
    throw new RestbusError(
      'BAD_REQUEST',
      `X-Mock-Delay must be a whole number of milliseconds from 0 to ${MAX_MOCK_DELAY_MS}`,
    );
  }
  return Number(text);
}
