import { buildApiModel } from '@restbus/openapi';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createHttpServer, type HttpLimits, type NatsLink } from '@restbus/infra';
import { createForwarder } from '../forward/create-forwarder';
import { createGateway, type Gateway } from '../app/create-gateway';
import { createMetrics } from '../observability/create-metrics';
import type { ApiEndpoint } from '../openapi/endpoint';

export interface TestGateway {
  url: string;
  gateway: Gateway;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  link?: NatsLink;
  timeoutMs?: number;
  bodyLimit?: number;
  basePath?: string;
  staticContentBasePath?: string;
  corsOrigins?: string[];
  validate?: boolean;
  mock?: boolean;
  compress?: boolean;
  /** HTTP timeouts and connection cap; infra's defaults when absent. */
  limits?: Partial<HttpLimits>;
}

/** The gateway on a real HTTP server (infra's createHttpServer) on port 0, forwarding through `link` when one is given. */
export async function startTestGateway(
  endpoints: ApiEndpoint[],
  options: TestGatewayOptions = {},
): Promise<TestGateway> {
  const { link } = options;
  const gateway = createGateway({
    endpoints,
    topicPrefix: 'easer',
    basePath: options.basePath ?? '/',
    staticContentBasePath: options.staticContentBasePath,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    forward: link && createForwarder({ link, timeoutMs: options.timeoutMs ?? 2000 }),
    isConnected: () => !link || link.isConnected(),
    corsOrigins: options.corsOrigins,
    validate: options.validate,
    mock: options.mock,
    compress: options.compress,
    metrics: createMetrics(),
    logger: pino({ level: 'silent' }),
  });
  // The server the gateway runs on (start-gateway), so that tests see what clients see.
  const server = createHttpServer(gateway.handle, { limits: options.limits });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    gateway,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * An endpoint as loadApi would give it, for tests that do not need a file: `operation` under `method` and `uri` of a
 * document whose other members are `root` (an OpenAPI 3.0 document unless `root` says `swagger: '2.0'` or an
 * `openapi` version of its own), its model built as loading builds it.
 */
export function testEndpoint(
  method: ApiEndpoint['desc']['method'],
  uri: string,
  operation: Record<string, unknown> = {},
  root: Record<string, unknown> = {},
): ApiEndpoint {
  const written = { parameters: [], ...operation };
  const document = {
    ...(root.swagger === undefined && { openapi: '3.0.3' }),
    ...root,
    paths: { [uri]: { [method]: written } },
  };
  const dialect = root.swagger !== undefined ? '2.0' : String(document.openapi).startsWith('3.1') ? '3.1' : '3.0';
  const api = buildApiModel(document, { file: 'test.yml', dialect, topicPrefix: 'easer' });
  return {
    model: api.operations[0],
    api,
    file: 'test.yml',
    desc: {
      uri,
      jsfUri: uri.replace(/\{(\w+)\}/g, ':$1'),
      method,
      operationId: null,
      consumes: [],
      produces: ['application/json'],
      responses: { '200': { status: '200', headers: {}, examples: {} } },
    },
  };
}
