import { startTestGateway, testEndpoint, type TestGateway } from './start-test-gateway';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway([
    testEndpoint('get', '/persons'),
    testEndpoint('post', '/persons'),
    testEndpoint('get', '/persons/{personId}'),
    testEndpoint('put', '/persons/{personId}'),
  ]);
});
afterAll(() => gateway.close());

/** The route and status each request of `method` was counted under in `restbus_gateway_requests_total`. */
async function countedRoutes(method: string): Promise<string[]> {
  const text = await (await fetch(`${gateway.url}/-/metrics`)).text();
  const counted = [
    ...text.matchAll(/^restbus_gateway_requests_total\{route="([^"]*)",method="([^"]*)",status="(\d+)"\}/gm),
  ];
  return counted.filter((match) => match[2] === method).map((match) => `${match[1]} ${match[3]}`);
}

describe('/-/metrics labels every request on a described path by its template, whatever the method', () => {
  it('counts an OPTIONS on a described path under its template', async () => {
    expect((await fetch(`${gateway.url}/persons/luke`, { method: 'OPTIONS' })).status).toBe(204);
    expect(await countedRoutes('OPTIONS')).toEqual(['/persons/{personId} 204']);
  });

  it('counts a 405 on a described path under its template, its undeclared method as `other`', async () => {
    expect((await fetch(`${gateway.url}/persons`, { method: 'PATCH' })).status).toBe(405);
    expect(await countedRoutes('other')).toEqual(['/persons 405']);
  });

  it('counts a HEAD under the template of the GET that serves it', async () => {
    expect((await fetch(`${gateway.url}/persons/luke`, { method: 'HEAD' })).status).toBe(501);
    expect(await countedRoutes('HEAD')).toEqual(['/persons/{personId} 501']);
  });

  it('keeps `unmatched` for the paths the document does not describe, whatever the method', async () => {
    expect((await fetch(`${gateway.url}/nope`, { method: 'DELETE' })).status).toBe(404);
    expect((await fetch(`${gateway.url}/nope/deeper`, { method: 'DELETE' })).status).toBe(404);
    expect(await countedRoutes('DELETE')).toEqual(['unmatched 404']);
  });
});
