import { createHash, randomUUID } from 'node:crypto';
import { nextWriteOfCall } from '../executive/handler-scope';

/**
 * The id JetStream knows a write by (Nats-Msg-Id: the stream keeps the ids of its last 2 minutes and stores a
 * write whose id it has seen as a duplicate, not again). The same for every attempt of one write and, inside a
 * handler, for every copy of its call (nextWriteOfCall): a copy of a PUT that a replica cut off from NATS retries
 * once it is back, after another copy was answered and the client wrote again, must not put the old value back.
 * Hashed, so that the bucket's headers do not show the call's reply subject.
 */
export function nameWrite(operation: 'PUT' | 'DEL', key: string): string {
  const ofCall = nextWriteOfCall();
  if (ofCall === undefined) return randomUUID();
  return createHash('sha256').update(`${ofCall}\n${operation}\n${key}`).digest('base64url');
}
