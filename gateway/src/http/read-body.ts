import type { IncomingMessage } from 'node:http';
import { RestbusError } from '@restbus/infra';

const EMPTY = Buffer.alloc(0);

/**
 * Reads the whole request body, refusing more than `limit` bytes with `BODY_TOO_LARGE` (announced sizes are
 * refused before reading). A request without a body resolves at once with an empty buffer.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const length = req.headers['content-length'];
  if (length === undefined && req.headers['transfer-encoding'] === undefined) return Promise.resolve(EMPTY);
  if (length !== undefined && Number(length) > limit) {
    return Promise.reject(new RestbusError('BODY_TOO_LARGE', `the request body is larger than ${limit} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        // Keep reading into the void so that the connection stays usable for the error response.
        req.resume();
        reject(new RestbusError('BODY_TOO_LARGE', `the request body is larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.once('error', (err) =>
      reject(new RestbusError('BAD_REQUEST', 'the request body could not be read', { cause: err })),
    );
  });
}
