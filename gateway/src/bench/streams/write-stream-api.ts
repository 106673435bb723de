import { writeFile } from 'node:fs/promises';
import { SUBJECT } from './bench-event';

export const STREAM_PATH = '/events';
/** A second stream, of big events, for the stalled client: it fills its bound in seconds, not minutes. */
export const HEAVY_PATH = '/heavy';
export const HEAVY_SUBJECT = 'bench.heavy';

const stream = (subject: string, description: string): object => ({
  get: {
    operationId: subject.replace('.', '_'),
    description,
    'x-restbus-stream': { subject },
    responses: {
      '200': {
        description: 'the events',
        content: {
          'text/event-stream': {
            itemSchema: { type: 'object', properties: { seq: { type: 'integer' }, sentAt: { type: 'number' } } },
          },
        },
      },
    },
  },
});

/** The bench's API: streams on subjects in core NATS (no JetStream stream: the fastest path). */
export async function writeStreamApi(file: string): Promise<void> {
  const api = {
    openapi: '3.0.3',
    info: { title: 'streams bench', version: '1', description: 'one event stream' },
    paths: {
      [STREAM_PATH]: stream(SUBJECT, 'every event published on the bench subject'),
      [HEAVY_PATH]: stream(HEAVY_SUBJECT, 'the big events the stalled client does not read'),
    },
  };
  await writeFile(file, JSON.stringify(api, null, 2));
}
