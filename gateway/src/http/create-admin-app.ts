import express, { type Express } from 'express';
import { sendError } from '@restbus/infra';
import type { GatewayMetrics } from '../observability/create-metrics';

/**
 * The reserved paths under `/-/`: health, readiness, metrics. An Express app, since their per-request cost does not
 * matter; anything else under `/-/` is a JSON 404.
 */
export function createAdminApp(deps: { metrics: GatewayMetrics; isReady(): boolean }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/-/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/-/ready', (_req, res) => {
    const isReady = deps.isReady();
    res.status(isReady ? 200 : 503).json({ status: isReady ? 'ready' : 'not ready' });
  });
  app.get('/-/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  app.use((req, res) => {
    sendError(res, 'NOT_FOUND', `no endpoint matches ${req.method} ${req.path}`);
  });
  return app;
}
