import { existsSync } from 'node:fs';
import { dirname, extname, relative, resolve, sep } from 'node:path';
import type { JsonObject } from '@restbus/infra';
import type {
  FieldList,
  MethodDescriptor,
  ProjectConfig,
  RequestParameter,
  ServiceDocument,
  TestCase,
} from '@restbus/project-format';

/** A test case with what surrounds it. */
export interface TestCaseInput {
  config: ProjectConfig;
  /** `contentPath`: the service's folder relative to the project, as upstream rest-tool named it (toContentPath). */
  service: { path: string; file: string; descriptor: ServiceDocument; dir: string; contentPath: string };
  method: string;
  methodSpec: MethodDescriptor;
  testCase: TestCase;
  /** Its position in the descriptor, for messages: `/methods/GET/testCases/0`. */
  pointer: string;
  /** Where the generated file goes, absolute. */
  testFile: string;
}

/**
 * A value as a JavaScript literal. JSON is valid JavaScript, and escaping U+2028/U+2029 keeps it valid even in a
 * `//` comment, where they would end the line.
 */
export const toJs = (value: unknown): string =>
  (JSON.stringify(value) ?? 'undefined').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/** `/users/{id}` with `{id}` from the declared parameter's default: the URL kind first, then any kind, then 1. */
export function fillPathParameters(url: string, parameters: RequestParameter[]): string {
  return url.replace(/\{([^}]*)\}/g, (_match, name: string) => {
    const declared =
      parameters.find((parameter) => parameter.name === name && parameter.kind === 'URL') ??
      parameters.find((parameter) => parameter.name === name);
    const value = declared?.default;
    return encodeURIComponent(value === undefined || value === null || typeof value === 'object' ? 1 : String(value));
  });
}

const toHeaderObject = (fields: FieldList | undefined): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const { field, content } of fields ?? [])
    headers[field] = field in headers ? `${headers[field]}, ${content}` : content;
  return headers;
};

/**
 * The view a test template renders. Plain values are there for custom templates; everything under `js` is already a
 * JavaScript literal (JSON), so templates insert it with `{{{…}}}` and odd characters in names can never break the
 * generated file.
 */
export function buildTestView(input: TestCaseInput): { view: JsonObject; problems: string[]; warnings: string[] } {
  const { config, service, method, methodSpec, testCase, pointer } = input;
  const problems: string[] = [];
  const warnings: string[] = [];
  const request = testCase.request ?? {};
  const { response } = testCase;
  const declaredRequest = methodSpec.request ?? {};

  const url = fillPathParameters(testCase.url, declaredRequest.parameters ?? []);
  // The test case's own request headers when it declares them, else the method's.
  const headers = toHeaderObject(request.headers ?? declaredRequest.headers);
  const cookies = request.cookies ?? [];
  if (cookies.length > 0) headers.Cookie = cookies.map(({ field, content }) => `${field}=${content}`).join('; ');

  let bodyFile: string | null = null;
  let inlineBody: string | null = null;
  const mockBody = request.mockBody ?? request.body ?? declaredRequest.mockBody;
  if (mockBody !== undefined && mockBody !== null && method !== 'GET') {
    if (typeof mockBody === 'string') {
      const source = resolve(service.dir, mockBody);
      if (!existsSync(source)) warnings.push(`${service.file}: ${pointer}: request body ${mockBody} does not exist`);
      bodyFile = relative(dirname(input.testFile), source).split(sep).join('/');
      if (extname(source) === '.json' && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
        headers['Content-Type'] = 'application/json';
      }
    } else {
      inlineBody = JSON.stringify(mockBody);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
        headers['Content-Type'] = 'application/json';
      }
    }
  }

  const status = Number(response.statusCode);
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    problems.push(`${service.file}: ${pointer}/response/statusCode: must be an HTTP status code`);
  }
  const credentials = config.loginCredentials;
  const expectedHeaders = (response.headers ?? []).map(({ field, content }) => ({ field, content }));

  const view = {
    ...config,
    // What upstream rest-tool gave a project's own templates (its config merged with the test case), so that the
    // mocha templates of a project made by rest-tool 0.4/0.5 render as they did; `url` has its path parameters
    // filled in (upstream left `{id}` as it was).
    name: testCase.name,
    description: testCase.description,
    contentPath: service.contentPath,
    template: testCase.template,
    request: { cookies: [], headers: [], ...request },
    response: { cookies: [], headers: [], ...response },
    service: { name: service.descriptor.name, path: service.path, uriTemplate: service.descriptor.uriTemplate },
    method,
    testCase,
    url,
    js: {
      source: toJs(`${service.file} ${pointer}`),
      name: toJs(testCase.name),
      description: toJs(testCase.description),
      baseUrl: toJs(config.baseUrl),
      method: toJs(method),
      path: toJs(url),
      headers: toJs(headers),
      bodyFile: toJs(bodyFile),
      inlineBody: toJs(inlineBody),
      credentials: toJs(credentials ? { user: credentials.user, pass: credentials.pass } : null),
      status: toJs(status),
      expectedHeaders: toJs(expectedHeaders),
    },
  };
  return { view, problems, warnings };
}
