import { posix, resolve } from 'node:path';
import type { JsonObject } from '@restbus/infra';
import {
  isEventStreamMethod,
  isEventStreamResponse,
  listMethods,
  type FieldList as DeclaredFields,
  type ProjectConfig,
  type ServiceDocument,
} from '@restbus/project-format';
import { escapeHtml, type MarkdownRenderer } from './render-markdown';
import { toDocsCopyPath, toHref, toInertCopyPath, toRoot, toServiceDocsDir } from './docs-paths';
import { toSummary } from './to-summary';
import { buildTryIt, type TryItInput } from './build-try-it';
import {
  formatSize,
  toExample,
  toInlineExample,
  toPreview,
  type Example,
  type FileStart,
  type Preview,
} from './preview-file';

export interface FileRef {
  name: string;
  href: string;
  /** Set when the file is not where the descriptor says, or lies outside the services folder. */
  problem: string;
  /** A mockBody given inline in the descriptor rather than as a file name. */
  inline: string;
  /** The file shown on the page (mock bodies and schemas of requests and responses), else null. */
  preview: Preview | null;
  /** Not shown: its content is not text. */
  binary: boolean;
}

export interface FieldList {
  any: boolean;
  items: Array<{ field: string; content: string }>;
}

export interface ServicePage {
  /** The page's path inside docs/. */
  file: string;
  /** Files to copy into docs/: path inside docs/ → absolute source. */
  copies: Map<string, string>;
  view: JsonObject;
  /** For the index page. */
  entry: JsonObject;
  /** For the sidebar of every page (service-list.js). */
  listing: ServiceListing;
}

/** A service as the sidebar lists it. */
export interface ServiceListing {
  name: string;
  /** The page, relative to docs/. */
  href: string;
  /** `serviceUrlPrefix + uriTemplate`. */
  url: string;
  /** The first sentence of the description, as text. */
  summary: string;
  methods: string[];
}

export interface ServiceInput {
  path: string;
  file: string;
  descriptor: ServiceDocument;
  /** The service's folder, absolute. */
  dir: string;
}

/** A URL as HTML that a narrow column may break after a `/` (not the first, nor the last), and nowhere else. */
const toBreakableUrlHtml = (url: string): string => escapeHtml(url).replace(/(?<=[^/])\/(?=.)/g, '/<wbr>');

function toFields(fields: DeclaredFields | undefined): FieldList {
  const items = (fields ?? []).map(({ field, content }) => ({ field, content }));
  return { any: items.length > 0, items };
}

/**
 * The view of one service page, and the files it links to. Markdown arrives as HTML (`…Html` keys, for triple
 * mustaches); every other value is plain text for mustache to escape.
 */
export function buildServiceView(
  service: ServiceInput,
  context: {
    servicesDir: string;
    existing: (path: string) => boolean;
    markdown: MarkdownRenderer;
    config: ProjectConfig;
    /** Reads the start of a file to show it (preview-file's readFileStart); without it, no file is shown. */
    readStart?: (path: string) => FileStart | undefined;
    /**
     * Copy every file under its own name, for rest-tool 0.5's templates, which link them by the descriptors' names;
     * else a file a browser could run (HTML, SVG, XML, …) is copied as `<name>.txt` (toInertCopyPath).
     */
    keepFileNames?: boolean;
  },
): ServicePage {
  const { descriptor, dir } = service;
  const { markdown } = context;
  const folder = toServiceDocsDir(service.path, service.file);
  const file = posix.join(folder, 'service.html');
  const copies = new Map<string, string>();

  // What each file referred to holds, by its path (undefined: binary or unreadable); read once per page.
  const examples = new Map<string, Example | undefined>();
  const examine = (source: string, name: string): Example | undefined => {
    if (!examples.has(source)) {
      const start = context.readStart?.(source);
      examples.set(source, start && toExample(start, name));
    }
    return examples.get(source);
  };

  // Every key is always set (null or ''): mustache looks a missing key up in the enclosing views, where an unrelated
  // `href` or `body` would show up in the wrong place. `show`: the page shows the file's content too.
  const refer = (reference: unknown, show = false): (FileRef & { example?: Example }) | null => {
    if (reference === undefined || reference === null || reference === '') return null;
    const ref = { name: '', href: '', problem: '', inline: '', preview: null, binary: false };
    if (typeof reference !== 'string') {
      const example = show && context.readStart ? toInlineExample(reference) : undefined;
      return {
        ...ref,
        name: 'inline',
        inline: JSON.stringify(reference, null, 2),
        preview: example ? toPreview(example, '') : null,
        example,
      };
    }
    const copyPath = toDocsCopyPath(context.servicesDir, dir, reference);
    if (!copyPath) return { ...ref, name: reference, problem: 'outside the services folder, not copied' };
    const target = context.keepFileNames ? copyPath : toInertCopyPath(copyPath);
    const source = resolve(dir, reference);
    if (!context.existing(source)) return { ...ref, name: reference, problem: 'file not found' };
    copies.set(target, source);
    const href = toHref(file, target);
    if (!show || !context.readStart) return { ...ref, name: reference, href };
    const example = examine(source, reference);
    return {
      ...ref,
      name: reference,
      href,
      preview: example ? toPreview(example, href) : null,
      binary: !example,
      example,
    };
  };
  // The view keeps no Example (large, and not for templates).
  const toRef = (ref: (FileRef & { example?: Example }) | null): FileRef | null => {
    if (!ref) return null;
    const { example: _example, ...rest } = ref;
    return rest;
  };
  /** The request body as a Try-it form takes it. */
  const toFormBody = (ref: (FileRef & { example?: Example }) | null): TryItInput['body'] => {
    if (!ref || ref.problem || !context.readStart) return undefined;
    const { example } = ref;
    if (!example) return { note: `The example body ${ref.name} is not text: it is not put into the form.` };
    if (example.whole === undefined) {
      return {
        note: `The example body ${ref.name} (${formatSize(example.size)}) is too large to put into the form.`,
      };
    }
    return { text: example.whole, json: example.json };
  };

  const prefix = context.config.serviceUrlPrefix;
  const { uriTemplate } = descriptor;
  const methods = listMethods(descriptor).map(([name, method]) => {
    const request = method.request ?? {};
    const parameters = (request.parameters ?? []).map((parameter) => ({
      name: parameter.name,
      kind: parameter.kind,
      type: parameter.type,
      required: parameter.required ? 'yes' : 'no',
      default: parameter.default === undefined ? '' : JSON.stringify(parameter.default),
      summaryHtml: markdown.inline(parameter.summary),
    }));
    const responses = method.responses.map((response) => ({
      name: response.name,
      statusCode: String(response.statusCode),
      statusClass: `s${String(response.statusCode).charAt(0)}xx`,
      reasonHtml: markdown.inline(response.reason),
      descriptionHtml: markdown.block(response.description),
      headers: toFields(response.headers),
      cookies: toFields(response.cookies),
      body: toRef(refer(response.mockBody, true)),
      schema: toRef(refer(response.validationSchema, true)),
      stream: isEventStreamResponse(response),
    }));
    const requestBody = refer(request.mockBody, true);
    const testCases = (method.testCases ?? []).map((testCase) => {
      const testRequest = testCase.request ?? {};
      const testResponse = testCase.response;
      return {
        name: testCase.name,
        descriptionHtml: markdown.block(testCase.description),
        url: testCase.url,
        template: testCase.template,
        requestHeaders: toFields(testRequest.headers),
        requestCookies: toFields(testRequest.cookies),
        requestBody: toRef(refer(testRequest.mockBody ?? testRequest.body)),
        statusCode: testResponse.statusCode == null ? '' : String(testResponse.statusCode),
        responseHeaders: toFields(testResponse.headers),
        responseBody: toRef(refer(testResponse.mockBody ?? testResponse.body)),
        schema: toRef(refer(testResponse.validationSchema)),
      };
    });
    return {
      method: name,
      methodClass: name.toLowerCase(),
      anchor: name,
      summaryHtml: markdown.inline(method.summary),
      notesHtml: markdown.block(method.notes),
      detailsHtml: markdown.block(method.details),
      implementation: method.implementation ?? '',
      request: {
        descriptionHtml: markdown.block(request.description),
        parameters,
        hasParameters: parameters.length > 0,
        headers: toFields(request.headers),
        cookies: toFields(request.cookies),
        body: toRef(requestBody),
        schema: toRef(refer(request.validationSchema, true)),
      },
      tryIt: buildTryIt({
        method: name,
        prefix,
        uriTemplate,
        parameters: request.parameters ?? [],
        headers: request.headers,
        body: toFormBody(requestBody),
        stream: isEventStreamMethod(method),
      }),
      responses,
      hasResponses: responses.length > 0,
      testCases,
      hasTestCases: testCases.length > 0,
    };
  });

  const root = toRoot(file);
  const badges = methods.map(({ method, methodClass, anchor }) => ({ method, methodClass, anchor }));
  const view = {
    ...context.config,
    title: `${descriptor.name} · ${context.config.projectName}`,
    root,
    // As the sidebar's links name it (service-list.js), so that it can mark this page.
    pagePath: toHref('index.html', file),
    indexHref: `${root}index.html`,
    service: {
      name: descriptor.name,
      path: service.path,
      style: descriptor.style ?? 'OPERATION',
      uriTemplate,
      url: `${prefix}${uriTemplate}`,
      urlHtml: toBreakableUrlHtml(`${prefix}${uriTemplate}`),
      descriptionHtml: markdown.block(descriptor.description),
      descriptor: { name: 'service.yml', href: 'service.yml' },
      badges,
      methods,
    },
  };
  copies.set(posix.join(folder, 'service.yml'), resolve(dir, 'service.yml'));
  const summary = toSummary(descriptor.description, markdown);
  const entry = {
    name: descriptor.name,
    href: toHref('index.html', file),
    style: view.service.style,
    url: view.service.url,
    urlHtml: view.service.urlHtml,
    summaryHtml: escapeHtml(summary),
    badges: badges.map((badge) => ({ ...badge, href: `${toHref('index.html', file)}#${badge.anchor}` })),
  };
  const listing: ServiceListing = {
    name: descriptor.name,
    href: entry.href,
    url: view.service.url,
    summary,
    methods: methods.map(({ method }) => method),
  };
  return { file, copies, view, entry, listing };
}
