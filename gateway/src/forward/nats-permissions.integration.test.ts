import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, Events, type NatsConnection } from 'nats';
import { findNatsServer, readSseEvents, recordHostileCounts } from '@restbus/infra/testing';

// The programs as users run them (jest's global setup builds them), and the example this test proves.
const GATEWAY_MAIN = resolve(__dirname, '../../dist/main.js');
const PERSON_SERVICE_MAIN = resolve(__dirname, '../../../person-service/dist/main.js');
const EXAMPLE = resolve(__dirname, '../../../infra/nats/nats-permissions.example.conf');
const PERSON_API = resolve(__dirname, '../../../person-service/person-api.yml');
const SYSTEMS_API = resolve(__dirname, '../../../systems-service/systems-api.yml');

const PASSWORDS = {
  GATEWAY_PASSWORD: 'gateway-secret',
  PERSON_SERVICE_PASSWORD: 'person-secret',
  SYSTEMS_SERVICE_PASSWORD: 'systems-secret',
};

let dir: string;
let natsPort: number;
const children: ChildProcess[] = [];
let gatewayUrl: string;
const natsUrl = (user: string, password: string): string => `nats://${user}:${password}@127.0.0.1:${natsPort}`;

/** Spawns a program and resolves once a JSON log line of its standard output says `msg`. */
async function startProgram(
  args: string[],
  env: Record<string, string>,
  msg: string,
): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, [...args, '--log-format', 'json'], { env: { ...process.env, ...env } });
  children.push(child);
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  for await (const line of createInterface({ input: child.stdout })) {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry.msg === msg) return entry;
  }
  throw new Error(`${args[0]} stopped before it logged "${msg}": ${errors}`);
}

/** A nats-server that takes its users from the example (included as it is) and picks its own port. */
async function startNatsWithExample(): Promise<void> {
  await copyFile(EXAMPLE, join(dir, 'nats-permissions.example.conf'));
  const config = join(dir, 'nats-server.conf');
  await writeFile(
    config,
    `listen: "127.0.0.1:-1"\nports_file_dir: "${dir}"\njetstream { store_dir: "${join(dir, 'js')}" }\n` +
      'include "nats-permissions.example.conf"\n',
  );
  const child = spawn(findNatsServer(), ['-c', config], { env: { ...process.env, ...PASSWORDS }, stdio: 'ignore' });
  children.push(child);
  for (let attempt = 0; attempt < 200; attempt++) {
    const text = await readFile(join(dir, `nats-server_${child.pid}.ports`), 'utf8').catch(() => undefined);
    if (text) {
      natsPort = Number(new URL((JSON.parse(text) as { nats: string[] }).nats[0]).port);
      return;
    }
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`);
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error('nats-server did not report its port within 5 s');
}

/** Counts the permission violations the server reports to a connection, by operation. */
function countViolations(nc: NatsConnection): { publish: number; subscription: number } {
  const counts = { publish: 0, subscription: 0 };
  void (async () => {
    for await (const status of nc.status()) {
      const context = (status as { permissionContext?: { operation: string } }).permissionContext;
      if (status.type === Events.Error && context) {
        if (context.operation === 'publish') counts.publish++;
        else counts.subscription++;
      }
    }
  })();
  return counts;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-nats-permissions-'));
  await startNatsWithExample();
  await startProgram(
    [PERSON_SERVICE_MAIN],
    { NATS_URL: natsUrl('person-service', PASSWORDS.PERSON_SERVICE_PASSWORD) },
    'answering',
  );
  const listening = await startProgram(
    [GATEWAY_MAIN, '-r', PERSON_API, '-r', SYSTEMS_API, '-u', '-p', '0', '--timeout', '3000'],
    { NATS_URL: natsUrl('gateway', PASSWORDS.GATEWAY_PASSWORD), NATS_INBOX_PREFIX: '_INBOX.gateway' },
    'gateway listening',
  );
  gatewayUrl = `http://127.0.0.1:${String(listening.port)}`;
  for (let tries = 0; (await fetch(`${gatewayUrl}/-/ready`)).status !== 200; tries++) {
    if (tries === 100) throw new Error('the gateway did not connect to NATS within 5 s');
    await new Promise((done) => setTimeout(done, 50));
  }
});
afterAll(async () => {
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

const JSON_TYPE = { 'content-type': 'application/json' };

describe('the NATS permissions of infra/nats/nats-permissions.example.conf', () => {
  it('let the gateway and person-service serve every operation of the person API with their own users', async () => {
    const luke = { id: 'luke', familyName: 'Skywalker', givenName: 'Luke' };
    const put = await fetch(`${gatewayUrl}/persons/luke`, {
      method: 'PUT',
      headers: JSON_TYPE,
      body: JSON.stringify(luke),
    });
    expect(put.status).toBe(200);
    const posted = await fetch(`${gatewayUrl}/persons`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: JSON.stringify({ familyName: 'Organa', givenName: 'Leia' }),
    });
    expect(posted.status).toBe(201);
    expect(await (await fetch(`${gatewayUrl}/persons/luke`)).json()).toEqual(luke);
    expect(((await (await fetch(`${gatewayUrl}/persons`)).json()) as unknown[]).length).toBe(2);
    expect((await fetch(`${gatewayUrl}/persons/luke`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${gatewayUrl}/persons`, { method: 'DELETE' })).status).toBe(204);
  });

  it("let the gateway stream the person API's events from their JetStream stream with its own user, and resume them", async () => {
    const han = { id: 'han', familyName: 'Solo', givenName: 'Han' };
    const events = `${gatewayUrl}/persons/events`;
    const live = await readSseEvents(events, {
      count: 2,
      during: async () => {
        const put = { method: 'PUT', headers: JSON_TYPE, body: JSON.stringify(han) };
        expect((await fetch(`${gatewayUrl}/persons/han`, put)).status).toBe(200);
        expect((await fetch(`${gatewayUrl}/persons/han`, { method: 'DELETE' })).status).toBe(204);
      },
    });
    expect(live.map(({ data }) => data)).toEqual([
      { type: 'created', id: 'han', person: han },
      { type: 'deleted', id: 'han' },
    ]);
    const resumed = await readSseEvents(events, {
      count: 1,
      headers: { 'last-event-id': String(Number(live[1].id) - 1) },
    });
    expect(resumed).toEqual([live[1]]);
  });

  it('keep a rogue service from answering any call it was not asked, even on a reply subject it knows', async () => {
    const ROUNDS = 20;
    const servers = `127.0.0.1:${natsPort}`;
    const rogue = await connect({ servers, user: 'systems-service', pass: PASSWORDS.SYSTEMS_SERVICE_PASSWORD });
    const violations = countViolations(rogue);
    // The gateway's own user, as a second gateway would be: it waits on reply subjects the rogue is told outright.
    const asker = await connect({
      servers,
      user: 'gateway',
      pass: PASSWORDS.GATEWAY_PASSWORD,
      inboxPrefix: '_INBOX.gateway',
    });
    const told = Array.from({ length: ROUNDS }, (_, i) => `_INBOX.gateway.told.${i}`);
    let forgedReceived = 0;
    const waiting = asker.subscribe('_INBOX.gateway.told.>', { callback: () => forgedReceived++ });
    await asker.flush();
    // What the rogue may still read: _INBOX.>, for its own JetStream replies; the gateway's replies are kept from it.
    let overheard = 0;
    const eavesdrop = rogue.subscribe('_INBOX.>', {
      callback: (_err, msg) => {
        if (msg.subject.startsWith('_INBOX.gateway.')) overheard++;
      },
    });
    // Another service's subject: the server refuses the subscription.
    rogue.subscribe('easer.get_/persons', { callback: () => undefined });
    let forgedPublishes = 0;
    const forge = (subject: string): void => {
      rogue.publish(subject, JSON.stringify({ status: 200, body: [{ id: 'forged' }] }));
      forgedPublishes++;
    };
    // Its own route: it answers the call it was asked (allowed once), then answers it again and forges on the subject.
    let asked = 0;
    rogue.subscribe('easer.get_/systems', {
      callback: (_err, msg) => {
        asked++;
        msg.respond(JSON.stringify({ status: 200, body: [] }));
        forge(msg.reply!);
        forge(`${msg.reply!.slice(0, msg.reply!.lastIndexOf('.') + 1)}${crypto.randomUUID()}`);
        for (const subject of told) forge(subject);
      },
    });
    await rogue.flush();
    const answers: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [own, ...persons] = await Promise.all([
        fetch(`${gatewayUrl}/systems`).then(async (response) => `${response.status} ${await response.text()}`),
        ...Array.from({ length: 5 }, () =>
          fetch(`${gatewayUrl}/persons`).then(async (response) => `${response.status} ${await response.text()}`),
        ),
      ]);
      expect(own).toBe('200 []');
      answers.push(...persons);
    }
    await rogue.flush();
    await asker.flush();
    // The server reports each refused publish on its own; they come after the flush that follows them.
    for (let tries = 0; violations.publish < forgedPublishes && tries < 100; tries++) {
      await new Promise((done) => setTimeout(done, 20));
    }
    waiting.unsubscribe();
    eavesdrop.unsubscribe();
    await rogue.close();
    await asker.close();
    const forgedAnswers = answers.filter((answer) => answer !== '200 []').length;
    recordHostileCounts('NATS permissions example: rogue service publishing replies', {
      tried: { requests: answers.length + ROUNDS, forgedPublishes },
      found: { forgedAnswers, forgedReceived, overheard, publishesAllowed: forgedPublishes - violations.publish },
    });
    expect(asked).toBe(ROUNDS);
    expect({ forgedAnswers, forgedReceived, overheard }).toEqual({ forgedAnswers: 0, forgedReceived: 0, overheard: 0 });
    expect(violations).toEqual({ publish: forgedPublishes, subscription: 1 });
  });
});
