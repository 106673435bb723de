import { resolve } from 'node:path';
import { loadApi } from '../openapi/load-api';
import { startTestGateway, type TestGateway } from '../__tests__/start-test-gateway';
import { NOT_IMPLEMENTED_BODY } from './create-gateway';

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
    expect(await response.text()).toBe(
      '{"error":"The endpoint is either not implemented or `operationId` is ignored"}',
    );
  });

  it('keeps the 501 body byte for byte', () => {
    expect(Buffer.byteLength(NOT_IMPLEMENTED_BODY)).toBe(78);
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
