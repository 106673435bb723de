import { toNatsServersAndAuth } from '@restbus/infra';
import type { GatewayConfig } from '../config';

/** The effective configuration as easer's -d printed it, with the credentials a NATS URL may carry left out. */
export function describeConfig(config: Readonly<GatewayConfig>): string {
  const shown = { ...config, natsUri: toNatsServersAndAuth(config.natsUri).servers.join(',') };
  return `CONFIG: ${JSON.stringify(shown, null, 2)}\n`;
}
