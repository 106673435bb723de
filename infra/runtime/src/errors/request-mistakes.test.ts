import { REQUEST_MISTAKES, refuseRequest, type RequestMistakeName } from './request-mistakes';

describe('REQUEST_MISTAKES', () => {
  it('gives every mistake a client’s status (4xx)', () => {
    const statuses = Object.keys(REQUEST_MISTAKES).map((name) => refuseRequest(name as RequestMistakeName).status);
    expect(statuses.filter((status) => status < 400 || status > 499)).toEqual([]);
  });

  it('answers a mistake in the body as REQUEST_INVALID with its one problem, whatever the message says', () => {
    const refusal = refuseRequest('malformedJson', 'the body is not valid JSON: it ends too soon');
    expect([refusal.code, refusal.status, refusal.message, refusal.details]).toEqual([
      'REQUEST_INVALID',
      400,
      'the body is not valid JSON: it ends too soon',
      { problems: [{ location: 'body', message: 'is not valid JSON' }] },
    ]);
  });

  it('keeps the headers that say what would do', () => {
    const refusal = refuseRequest('credentialsMissing', undefined, { headers: { 'www-authenticate': 'Basic' } });
    expect([refusal.code, refusal.status, refusal.headers]).toEqual([
      'UNAUTHORIZED',
      401,
      { 'www-authenticate': 'Basic' },
    ]);
  });
});
