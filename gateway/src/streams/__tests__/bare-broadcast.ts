import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLoadProcess } from './load-process';
import type { LoadReply } from './sse-load-clients';

/**
 * The floor this machine gives just now: a bare Node HTTP server writing each event to `clients` SSE responses, read
 * by the same load process as the gateway's clients, at the same rate. What the gateway's delivery times compare to.
 */
export async function measureBareBroadcast(options: {
  dir: string;
  clients: number;
  rate: number;
  events: number;
}): Promise<Extract<LoadReply, { type: 'report' }>['latency']> {
  const responses: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 3000\n\n');
    responses.push(res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const load = await startLoadProcess(options.dir);
  try {
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/`;
    await load.ask({ type: 'open', url, count: options.clients, stalled: false }, 'opened');
    const now = (): number => performance.timeOrigin + performance.now();
    const start = now();
    for (let n = 0; n < options.events; n++) {
      await new Promise((done) => setTimeout(done, start + (n * 1000) / options.rate - now()));
      const event = Buffer.from(`event: message\ndata: ${JSON.stringify({ n, t: now() })}\n\n`);
      for (const res of responses) res.write(event);
    }
    for (let tries = 0; ; tries++) {
      const report = await load.ask({ type: 'report' }, 'report');
      if (report.latency.count === options.clients * options.events || tries === 50) return report.latency;
      await new Promise((done) => setTimeout(done, 200));
    }
  } finally {
    await load.stop();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
}
