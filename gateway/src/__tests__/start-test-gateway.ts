import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import pino from 'pino';
import type { NatsLink } from '@restbus/infra';
import { createForwarder } from '../forward/create-forwarder';
import { createApp } from '../http/create-app';
import type { ApiEndpoint } from '../openapi/endpoint';

export interface TestGateway {
  url: string;
  close(): Promise<void>;
}

/** The gateway's app on a real HTTP server on port 0, forwarding through `link` when one is given. */
export async function startTestGateway(
  endpoints: ApiEndpoint[],
  options: { link?: NatsLink; timeoutMs?: number; bodyLimit?: number; basePath?: string } = {},
): Promise<TestGateway> {
  const logger = pino({ level: 'silent' });
  const { link } = options;
  const app = createApp({
    endpoints,
    topicPrefix: 'easer',
    basePath: options.basePath ?? '/',
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    forward: link && createForwarder({ link, timeoutMs: options.timeoutMs ?? 2000, logger }),
    isReady: () => !link || link.isConnected(),
    logger,
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
