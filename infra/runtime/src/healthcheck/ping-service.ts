import { connect } from 'nats';
import { toNatsServersAndAuth } from '../nats/nats-connect-options';
import { toNatsSecurityOptions, type NatsSecurity } from '../nats/to-nats-security-options';

/**
 * Asks the NATS services API whether `service` answers: any instance (`$SRV.PING.<service>`), or the one with
 * `id`. Resolves with the id of the instance that answered; rejects when NATS or the service does not answer.
 */
export async function pingService(
  servers: string,
  service: string,
  timeoutMs: number,
  id?: string,
  security: NatsSecurity = {},
): Promise<string> {
  const serversAndAuth = toNatsServersAndAuth(servers);
  const nc = await connect({
    ...serversAndAuth,
    ...toNatsSecurityOptions(security, serversAndAuth.servers, () => undefined),
    timeout: timeoutMs,
    maxReconnectAttempts: 0,
    name: `${service}-healthcheck`,
  });
  try {
    const reply = await nc.request(`$SRV.PING.${service}${id ? `.${id}` : ''}`, undefined, { timeout: timeoutMs });
    return reply.json<{ id: string }>().id;
  } finally {
    await nc.close();
  }
}
