import { resolve } from 'node:path';
import { loadApi } from '../openapi/load-api';
import { startTestGateway, testEndpoint, type TestGateway } from '../__tests__/start-test-gateway';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway(await loadApi(resolve(__dirname, '../../../person-service/person-api.yml')));
});
afterAll(() => gateway.close());

describe('a gateway started without forwarding', () => {
  it.each([
    ['GET', '/persons'],
    ['POST', '/persons'],
    ['DELETE', '/persons'],
    ['GET', '/persons/luke'],
    ['PUT', '/persons/luke'],
    ['DELETE', '/persons/luke'],
  ])('answers %s %s with 501 and the upstream JSON body', async (method, path) => {
    const response = await fetch(`${gateway.url}${path}`, { method });
    expect(response.status).toBe(501);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // easer's body, word for word and alone, as the specification gives it; our code travels in a header.
    expect(await response.json()).toEqual({
      error: 'The endpoint is either not implemented or `operationId` is ignored',
    });
    expect(response.headers.get('x-restbus-error-code')).toBe('NOT_IMPLEMENTED');
  });

  it('answers an unknown path with 404 and a JSON error', async () => {
    const response = await fetch(`${gateway.url}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'no endpoint matches GET /nope', code: 'NOT_FOUND' });
  });

  it('reports itself alive and ready on the reserved paths', async () => {
    expect((await fetch(`${gateway.url}/-/health`)).status).toBe(200);
    expect(await (await fetch(`${gateway.url}/-/ready`)).json()).toEqual({ status: 'ready' });
  });
});

describe('a gateway with a base path', () => {
  it('serves the endpoints under it', async () => {
    const based = await startTestGateway(await loadApi(resolve(__dirname, '../../../person-service/person-api.yml')), {
      basePath: '/api/',
    });
    try {
      expect((await fetch(`${based.url}/api/persons`)).status).toBe(501);
      expect((await fetch(`${based.url}/persons`)).status).toBe(404);
    } finally {
      await based.close();
    }
  });
});

describe('methods and paths the API does not describe', () => {
  it('answers a method the path does not have with 405, Allow and a JSON error', async () => {
    const response = await fetch(`${gateway.url}/persons`, { method: 'PATCH' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, POST');
    expect(await response.json()).toEqual({ error: 'PATCH is not described for /persons', code: 'METHOD_NOT_ALLOWED' });
  });

  it('answers OPTIONS with 204 and Allow', async () => {
    const response = await fetch(`${gateway.url}/persons/luke`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, PUT');
  });

  it('answers a malformed percent-encoding with 400 and a JSON error', async () => {
    const response = await fetch(`${gateway.url}/persons/%E0%A4%A`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('gives every response an x-request-id', async () => {
    const response = await fetch(`${gateway.url}/nope`);
    expect(response.headers.get('x-request-id')).toMatch(/^[\da-f-]{36}$/);
  });
});

describe('metrics', () => {
  it('counts requests by route template, method and status in Prometheus format', async () => {
    await fetch(`${gateway.url}/persons/leia`);
    const text = await (await fetch(`${gateway.url}/-/metrics`)).text();
    expect(text).toMatch(
      /restbus_gateway_requests_total\{route="\/persons\/\{personId\}",method="GET",status="501"\} [1-9]/,
    );
    expect(text).toContain('restbus_gateway_request_duration_seconds_bucket');
    expect(text).toContain('restbus_gateway_requests_in_flight');
  });
});

describe('reloading the API', () => {
  it('serves the new endpoints at once and forgets the old ones', async () => {
    const reloaded = await startTestGateway(
      await loadApi(resolve(__dirname, '../../../person-service/person-api.yml')),
    );
    try {
      reloaded.gateway.setEndpoints([testEndpoint('get', '/systems')]);
      expect((await fetch(`${reloaded.url}/systems`)).status).toBe(501);
      expect((await fetch(`${reloaded.url}/persons`)).status).toBe(404);
    } finally {
      await reloaded.close();
    }
  });
});

describe('CORS', () => {
  let withCors: TestGateway;
  beforeAll(async () => {
    withCors = await startTestGateway([testEndpoint('get', '/items')], { corsOrigins: ['https://app.example'] });
  });
  afterAll(() => withCors.close());

  it('answers a preflight from an allowed origin with the methods and headers it asked for', async () => {
    const response = await fetch(`${withCors.url}/items`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'x-key',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    expect(response.headers.get('access-control-allow-headers')).toBe('x-key');
  });

  it('lets a page on an allowed origin read the error code of a 501, the request id and the next-page link', async () => {
    const response = await fetch(`${withCors.url}/items`, { headers: { Origin: 'https://app.example' } });
    expect(response.status).toBe(501);
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining(['x-request-id', 'x-restbus-error-code', 'x-restbus-mocked', 'link']),
    );
  });

  it('adds no CORS headers for an origin that is not allowed', async () => {
    const response = await fetch(`${withCors.url}/items`, { headers: { Origin: 'https://evil.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
