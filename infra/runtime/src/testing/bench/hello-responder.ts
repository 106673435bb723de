import { connect, type NatsConnection } from 'nats';

const REPLY = JSON.stringify({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: { hello: 'world' },
});

/** The trivial service every benchmark target talks to: it answers every request on `subject` at once. */
export async function startHelloResponder(natsUrl: string, subject: string): Promise<NatsConnection> {
  const nc = await connect({ servers: natsUrl });
  nc.subscribe(subject, { callback: (_err, msg) => msg.respond(REPLY) });
  await nc.flush();
  return nc;
}
