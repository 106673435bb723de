import { isJsonObject, type JsonObject } from '@restbus/infra';
import type { MarkdownRenderer } from './render-markdown';

const MARKDOWN_KEYS = new Set(['description', 'summary', 'details']);

/** Every `description`, `summary` and `details` string, at any depth, as HTML: what upstream ran through marked. */
function convertMarkdown(value: unknown, markdown: MarkdownRenderer): unknown {
  if (Array.isArray(value)) return value.map((item) => convertMarkdown(item, markdown));
  return isJsonObject(value) ? convertObjectMarkdown(value, markdown) : value;
}

function convertObjectMarkdown(value: JsonObject, markdown: MarkdownRenderer): JsonObject {
  const converted: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    converted[key] =
      MARKDOWN_KEYS.has(key) && typeof item === 'string' ? markdown.block(item) : convertMarkdown(item, markdown);
  }
  return converted;
}

const withLists = (value: unknown, ...keys: string[]): JsonObject => {
  const object: JsonObject = isJsonObject(value) ? { ...value } : {};
  for (const key of keys) if (!Array.isArray(object[key])) object[key] = [];
  return object;
};

/**
 * The descriptor as rest-tool-common 0.4 handed it to templates: `urlPattern` and `uriTemplate` as aliases, style
 * OPERATION by default, the request, response and test case lists present (empty) so `{{^headers}}Not
 * Defined{{/headers}}` works, and `methodList`, the methods in order, each with its `methodName`.
 */
function withUpstreamDefaults(descriptor: JsonObject): JsonObject {
  const service: JsonObject = { ...descriptor };
  service.uriTemplate ??= service.urlPattern;
  service.urlPattern ??= service.uriTemplate;
  service.style ??= 'OPERATION';
  const methods: JsonObject = {};
  for (const [methodName, value] of Object.entries(isJsonObject(service.methods) ? service.methods : {})) {
    const method: JsonObject = { ...(isJsonObject(value) ? value : {}), methodName };
    method.request = withLists(method.request, 'parameters', 'cookies', 'headers');
    method.responses = (Array.isArray(method.responses) ? method.responses : []).map((response) =>
      withLists(response, 'headers', 'cookies'),
    );
    method.testCases = (Array.isArray(method.testCases) ? method.testCases : []).map((testCase) => {
      const withRequest = isJsonObject(testCase) ? { ...testCase } : {};
      withRequest.request = withLists(withRequest.request, 'cookies', 'headers');
      withRequest.response = withLists(withRequest.response, 'headers', 'cookies');
      return withRequest;
    });
    methods[methodName] = method;
  }
  service.methods = methods;
  service.methodList = Object.values(methods);
  return service;
}

export interface UpstreamContext {
  config: JsonObject;
  markdown: MarkdownRenderer;
  /** `[{name, docFileName}]`, docFileName relative to docs/: the services menu. */
  serviceDocNames: Array<{ name: string; docFileName: string }>;
  lastUpdate: string;
}

/**
 * The view rest-tool 0.5 gave a project's `templates/docs/restapi.html` for one service: the whole config, the
 * services menu, the time of the last update, `relPath` (`../` from the page up to docs/), then the descriptor on
 * top, its markdown as HTML (raw HTML in it escaped, as on our own pages), and `contentPath`.
 */
export function buildUpstreamServiceView(
  descriptor: JsonObject,
  page: { contentPath: string; relPath: string },
  context: UpstreamContext,
): JsonObject {
  const service = convertObjectMarkdown(withUpstreamDefaults(descriptor), context.markdown);
  return {
    ...buildUpstreamIndexView(context),
    relPath: page.relPath,
    ...service,
    contentPath: page.contentPath,
  };
}

/** The view of `templates/docs/index.html`: the config, the services menu and the time of the last update. */
export function buildUpstreamIndexView(context: UpstreamContext): JsonObject {
  return {
    ...context.config,
    serviceDocNames: context.serviceDocNames,
    lastUpdate: context.lastUpdate,
    relPath: '',
  };
}
