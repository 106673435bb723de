import { connect, type NatsConnection } from 'nats';

/**
 * The service behind the stream: the gateway forwards each stream's GET to the operation's subject before it opens
 * the stream; this answers every one 200 with no body (allowed, no snapshot).
 */
export async function startOpenResponder(natsUrl: string, subject: string): Promise<NatsConnection> {
  const nc = await connect({ servers: natsUrl });
  nc.subscribe(subject, { callback: (_err, msg) => msg.respond(JSON.stringify({ status: 200 })) });
  await nc.flush();
  return nc;
}
