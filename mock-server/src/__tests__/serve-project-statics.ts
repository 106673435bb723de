import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import session from 'express-session';
import httpProxy from 'http-proxy';
import { loadProject } from '@restbus/project-format';
import { buildGeneration } from '../server/build-generation';
import { createMockApp } from '../server/create-mock-app';
import { createProjectStatics } from '../static/create-project-statics';
import { silentLogger } from './sample-project';

export interface ServedStatics {
  url: string;
  /** What createProjectStatics warned about while building the mounts. */
  warnings: string[];
  close(): Promise<void>;
}

/**
 * The mock server's own request pipeline (createMockApp over a real loadProject + buildGeneration) on a free port,
 * with its static folders from createProjectStatics. The override makes these tests independent of whether
 * build-generation.ts already calls createProjectStatics; once it does, the result is the same server.
 */
export async function serveProjectStatics(projectDir: string, environment?: string): Promise<ServedStatics> {
  const project = await loadProject({ projectDir, environment });
  const warnings: string[] = [];
  const generation = {
    ...(await buildGeneration(project, silentLogger)),
    statics: createProjectStatics(project, (message) => warnings.push(message)),
  };
  const proxy = httpProxy.createProxyServer();
  const app = createMockApp({
    current: () => generation,
    proxy,
    session: session({ secret: 'test', resave: false, saveUninitialized: false }),
    logger: silentLogger,
  });
  const server = createServer(
    { IncomingMessage: app.IncomingMessage, ServerResponse: app.ServerResponse },
    app.listener,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    warnings,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      proxy.close();
    },
  };
}
