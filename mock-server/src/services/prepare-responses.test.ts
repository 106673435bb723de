import type { MethodDescriptor } from '@restbus/project-format';
import { prepareResponses } from './prepare-responses';

const method = (statusCodes: Array<string | number>): MethodDescriptor => ({
  summary: 'a method',
  responses: statusCodes.map((statusCode, index) => ({ name: `R${index}`, statusCode, reason: 'why' })),
});

describe('prepareResponses', () => {
  it("sends OpenAPI's default as 500 and a range as its first status, without a warning", () => {
    const warnings: string[] = [];
    const prepared = prepareResponses(method(['default', '4XX', '2xx', 201, '204']), 'here', (w) => warnings.push(w));
    expect([...prepared.values()].map((response) => response.status)).toEqual([500, 400, 200, 201, 204]);
    expect(warnings).toEqual([]);
  });

  it('sends 200 for a status code that is none, and says so', () => {
    const warnings: string[] = [];
    const prepared = prepareResponses(method(['OK', 99, '6XX']), 'here', (w) => warnings.push(w));
    expect([...prepared.values()].map((response) => response.status)).toEqual([200, 200, 200]);
    expect(warnings).toEqual([
      'here: response R0: statusCode "OK" is not 200-599; 200 is sent',
      'here: response R1: statusCode 99 is not 200-599; 200 is sent',
      'here: response R2: statusCode "6XX" is not 200-599; 200 is sent',
    ]);
  });
});
