import { connect, type NatsConnection } from 'nats';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { E2E_TAG, REPO_ROOT, startComposeStack, type ComposeStack } from './compose-stack';

// Building the images dominates a cold run; a warm one takes seconds.
jest.setTimeout(300_000);

const luke = { id: 'luke', familyName: 'Skywalker', givenName: 'Luke' };

// One stack for the whole file: the tests run in order, and the failure cases at the end take services away.
describe('the compose stack: gateway -> NATS -> person-service', () => {
  let stack: ComposeStack | undefined;
  let nc: NatsConnection | undefined;
  const url = (path: string): string => `${stack!.gatewayUrl}${path}`;

  beforeAll(async () => {
    stack = await startComposeStack();
    process.stdout.write(`e2e: compose project ${stack.projectName} is healthy, gateway at ${stack.gatewayUrl}\n`);
  });

  // Tear down always: a failed test must not leave containers behind.
  afterAll(async () => {
    await nc?.close();
    await stack?.down();
  });

  describe('the person flow', () => {
    it('answers GET /persons with 200 and an empty array on a fresh stack', async () => {
      const response = await fetch(url('/persons'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual([]);
    });

    it('stores a person with PUT /persons/{personId} and returns it', async () => {
      const response = await fetch(url('/persons/luke'), {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(luke),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(luke);
    });

    it('lists the person stored by the PUT', async () => {
      expect(await (await fetch(url('/persons'))).json()).toEqual([luke]);
    });

    it('answers an invalid PUT body with 400 and a JSON error through the whole path', async () => {
      const response = await fetch(url('/persons/luke'), {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: '{not json',
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'the body is not valid JSON' });
    });
  });

  describe('failure semantics', () => {
    it('answers an unknown path with 404 and a JSON error', async () => {
      const response = await fetch(url('/nope'));
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'NOT_FOUND' });
    });

    it('answers a method the API does not describe with 405 and Allow', async () => {
      const response = await fetch(url('/persons'), { method: 'PATCH' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, POST');
      expect(await response.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    });

    it('answers 503 NO_RESPONDER once the person-service container is gone', async () => {
      await stack!.stopService('person-service');
      const response = await fetch(url('/persons'));
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ code: 'NO_RESPONDER' });
    });

    it('answers 504 UPSTREAM_TIMEOUT when a service takes the request and never replies', async () => {
      nc = await connect({ servers: stack!.natsUrl });
      nc.subscribe('easer.get_/persons', { callback: () => undefined });
      await nc.flush();
      const started = Date.now();
      const response = await fetch(url('/persons'));
      expect(response.status).toBe(504);
      expect(await response.json()).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    });
  });
});

describe('a gateway container started without -u', () => {
  let gateway: StartedTestContainer | undefined;

  beforeAll(async () => {
    // The image the compose stack above has just built.
    gateway = await new GenericContainer(`restbus/gateway:${E2E_TAG}`)
      .withCopyFilesToContainer([
        { source: `${REPO_ROOT}/person-service/person-api.yml`, target: '/api/person-api.yml' },
      ])
      .withCommand(['-r', '/api/person-api.yml'])
      .withExposedPorts(3007)
      .withWaitStrategy(Wait.forHttp('/-/ready', 3007))
      .start();
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  it('answers a described endpoint with 501 and the upstream JSON body', async () => {
    const response = await fetch(`http://${gateway!.getHost()}:${gateway!.getMappedPort(3007)}/persons`);
    expect(response.status).toBe(501);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe(
      '{"error":"The endpoint is either not implemented or `operationId` is ignored"}',
    );
  });
});
