import { posix, resolve } from 'node:path';
import {
  listMethods,
  type FieldList as DeclaredFields,
  type ProjectConfig,
  type ServiceDocument,
} from '@restbus/project-format';
import { escapeHtml, type MarkdownRenderer } from './render-markdown';
import { toDocsCopyPath, toHref, toRoot, toServiceDocsDir } from './docs-paths';
import { toSummary } from './to-summary';

type Json = Record<string, unknown>;

export interface FileRef {
  name: string;
  href: string;
  /** Set when the file is not where the descriptor says, or lies outside the services folder. */
  problem: string;
  /** A mockBody given inline in the descriptor rather than as a file name. */
  inline: string;
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
  view: Json;
  /** For the index page. */
  entry: Json;
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
  },
): ServicePage {
  const { descriptor, dir } = service;
  const { markdown } = context;
  const folder = toServiceDocsDir(service.path, service.file);
  const file = posix.join(folder, 'service.html');
  const copies = new Map<string, string>();

  // Every key is always set (null or ''): mustache looks a missing key up in the enclosing views, where an unrelated
  // `href` or `body` would show up in the wrong place.
  const refer = (reference: unknown): FileRef | null => {
    if (reference === undefined || reference === null || reference === '') return null;
    if (typeof reference !== 'string') {
      return { name: 'inline', href: '', problem: '', inline: JSON.stringify(reference, null, 2) };
    }
    const ref = { name: reference, href: '', problem: '', inline: '' };
    const target = toDocsCopyPath(context.servicesDir, dir, reference);
    if (!target) return { ...ref, problem: 'outside the services folder, not copied' };
    const source = resolve(dir, reference);
    if (!context.existing(source)) return { ...ref, problem: 'file not found' };
    copies.set(target, source);
    return { ...ref, href: toHref(file, target) };
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
      body: refer(response.mockBody),
      schema: refer(response.validationSchema),
    }));
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
        requestBody: refer(testRequest.mockBody ?? testRequest.body),
        statusCode: testResponse.statusCode == null ? '' : String(testResponse.statusCode),
        responseHeaders: toFields(testResponse.headers),
        responseBody: refer(testResponse.mockBody ?? testResponse.body),
        schema: refer(testResponse.validationSchema),
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
        body: refer(request.mockBody),
      },
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
  const entry = {
    name: descriptor.name,
    href: toHref('index.html', file),
    style: view.service.style,
    url: view.service.url,
    urlHtml: view.service.urlHtml,
    summaryHtml: escapeHtml(toSummary(descriptor.description, markdown)),
    badges: badges.map((badge) => ({ ...badge, href: `${toHref('index.html', file)}#${badge.anchor}` })),
  };
  return { file, copies, view, entry };
}
