import type { Request } from 'express';
import { isRestbusError, type RestbusError } from '@restbus/infra';
import type { MockFile } from '../create-mock-files';
import type { PreparedResponse } from '../prepare-responses';
import { seedOf, toTemplateContext } from '../templates/to-template-context';
import type { AnswerContext } from './route-answer';

export const isMockUnavailable = (err: unknown): err is RestbusError =>
  isRestbusError(err) && err.code === 'MOCK_UNAVAILABLE';

/** A mock file and the body to send, or why it cannot be sent (then a fallback answers). */
export type MockRead =
  { mock: MockFile; body: Buffer | string; problem?: undefined } | { problem: string; mock?: undefined };

/**
 * A mock file and the body to send (a template rendered for the request), or why it cannot be sent (logged once per
 * file). With `strict`, or for any other failure than an unavailable file, the failure is thrown.
 */
export async function readMockBody(
  context: AnswerContext,
  req: Request,
  response: PreparedResponse,
  mockBody: string,
  asType?: string,
): Promise<MockRead> {
  const { service, method, serviceDir } = context;
  try {
    const mock = await context.mockFiles.read(serviceDir, mockBody, asType ?? response.declaredType);
    const body = mock.template ? mock.template.render(toTemplateContext(req), seedOf(req)) : mock.body;
    return { mock, body };
  } catch (err) {
    if (context.strict || !isMockUnavailable(err)) throw err;
    context.warnOnce(
      `${mockBody}\0${serviceDir}`,
      { service: service.path, method, response: response.name },
      `${err.message}: ${method} ${service.descriptor.uriTemplate} answers from a fallback instead (X-Mock-Warning)`,
    );
    return { problem: err.message };
  }
}
