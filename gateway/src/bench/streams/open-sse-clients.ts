import { get, type IncomingMessage } from 'node:http';
import { createSseParser } from '@restbus/infra/testing';
import { openInBatches, type BenchEvent, type ClientSet, type Receive, type ReceiveOther } from './bench-event';

/**
 * `count` SSE clients of the gateway's stream at `url`, each on its own connection, parsing the stream as an
 * EventSource does (blocks split at a blank line, `event:` and `data:` lines); `other` hears every event that is not a
 * `message` (the gateway's `gap`, `reset`).
 */
export async function openSseClients(
  url: string,
  count: number,
  receive: Receive,
  other: ReceiveOther,
): Promise<ClientSet> {
  const responses = await openInBatches(count, (index) => openOne(url, index, receive, other));
  return {
    stall(index) {
      // Nothing more is read: the kernel's buffers fill, then the gateway's queue for this client.
      responses[index].pause();
    },
    resume(index) {
      responses[index].resume();
    },
    async close() {
      for (const res of responses) res.destroy();
    },
  };
}

function openOne(url: string, index: number, receive: Receive, other: ReceiveOther): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200 || !String(res.headers['content-type']).startsWith('text/event-stream')) {
        res.resume();
        reject(new Error(`SSE client ${index}: ${res.statusCode} ${res.headers['content-type']}`));
        return;
      }
      const parse = createSseParser(({ event, data }) => {
        if (event === 'message') receive(index, JSON.parse(data) as BenchEvent);
        else other(index, event, data);
      });
      res.setEncoding('utf8');
      res.on('data', parse);
      res.on('error', () => undefined); // a client cut by the gateway, or closed at the end
      resolve(res);
    });
    request.once('error', reject);
  });
}
