import type { FieldList, MethodName, RequestParameter } from '@restbus/project-format';

/** A field of a Try-it form. Every key is always set: mustache looks a missing one up in the enclosing views. */
export interface TryItField {
  name: string;
  /** Prefilled: the parameter's default. */
  value: string;
  required: boolean;
  /** The declared type, as the input's placeholder. */
  type: string;
}

/** The view of a method's Try-it form (README: `tryIt`). */
export interface TryItView {
  method: string;
  methodClass: string;
  /** `serviceUrlPrefix`, put into the page: the form calls prefix + the filled uriTemplate on the page's origin. */
  prefix: string;
  uriTemplate: string;
  url: string;
  pathParameters: TryItField[];
  hasPathParameters: boolean;
  queryParameters: TryItField[];
  hasQueryParameters: boolean;
  /** `Name: value` lines. */
  headers: string;
  headerRows: number;
  hasBody: boolean;
  body: string;
  bodyRows: number;
  /** Why the body is not prefilled although the method has an example body; '' otherwise. */
  bodyNote: string;
  /** The method answers an event stream: the form watches its events as they arrive instead of waiting for a body. */
  stream: boolean;
}

export interface TryItInput {
  method: MethodName;
  prefix: string;
  uriTemplate: string;
  parameters: RequestParameter[];
  headers: FieldList | undefined;
  /** The request's example body: its text (pretty JSON, or as written), or why it cannot be put into the form. */
  body: { text: string; json: boolean } | { note: string } | undefined;
  /** Whether the method answers an event stream (isEventStreamMethod). */
  stream?: boolean;
}

/** The methods whose Try-it form has a body. */
const WITH_BODY = new Set<MethodName>(['POST', 'PUT']);

const toValue = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

const rowsFor = (text: string, most: number): number => Math.min(Math.max(text.split('\n').length + 1, 2), most);

/** The `{name}` parameters of a URI template, each once, in order. */
export const listPathParameters = (uriTemplate: string): string[] => [
  ...new Set([...uriTemplate.matchAll(/\{([^}]*)\}/g)].map((match) => match[1])),
];

/**
 * A method's Try-it form: a field per path parameter of the URI template (prefilled with the declared parameter's
 * default: the URL one of that name, else any of that name), a field per QUERY parameter, the declared request headers
 * and HEADER parameters as `Name: value` lines, and for POST and PUT the example request body.
 */
export function buildTryIt(input: TryItInput): TryItView {
  const { parameters } = input;
  const pathParameters = listPathParameters(input.uriTemplate).map((name): TryItField => {
    const declared =
      parameters.find((parameter) => parameter.name === name && parameter.kind === 'URL') ??
      parameters.find((parameter) => parameter.name === name);
    return { name, value: toValue(declared?.default), required: true, type: declared?.type ?? 'string' };
  });
  const queryParameters = parameters
    .filter((parameter) => parameter.kind === 'QUERY')
    .map((parameter) => ({
      name: parameter.name,
      value: toValue(parameter.default),
      required: parameter.required,
      type: parameter.type,
    }));

  const lines = (input.headers ?? []).map(({ field, content }) => ({ field, content }));
  const has = (field: string): boolean => lines.some((line) => line.field.toLowerCase() === field.toLowerCase());
  const stream = input.stream === true;
  // What EventSource sends: a server that negotiates (the gateway) answers the stream to it.
  if (stream && !has('Accept')) lines.push({ field: 'Accept', content: 'text/event-stream' });
  for (const parameter of parameters) {
    if (parameter.kind !== 'HEADER' || has(parameter.name)) continue;
    const value = toValue(parameter.default);
    // A header without a value is not sent; a required one is listed so that it is seen.
    if (value || parameter.required) lines.push({ field: parameter.name, content: value });
  }
  const hasBody = WITH_BODY.has(input.method);
  const example = hasBody ? input.body : undefined;
  if (example && 'json' in example && example.json && !has('Content-Type')) {
    lines.push({ field: 'Content-Type', content: 'application/json' });
  }
  const headers = lines.map(({ field, content }) => `${field}: ${content}`).join('\n');
  const body = example && 'text' in example ? example.text : '';
  return {
    method: input.method,
    methodClass: input.method.toLowerCase(),
    prefix: input.prefix,
    uriTemplate: input.uriTemplate,
    url: `${input.prefix}${input.uriTemplate}`,
    pathParameters,
    hasPathParameters: pathParameters.length > 0,
    queryParameters,
    hasQueryParameters: queryParameters.length > 0,
    headers,
    headerRows: rowsFor(headers, 8),
    hasBody,
    body,
    bodyRows: rowsFor(body, 16),
    bodyNote: example && 'note' in example ? example.note : '',
    stream,
  };
}
