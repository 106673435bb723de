import { resolve } from 'node:path';
import type { ProjectConfig, ServiceDocument } from '@restbus/project-format';
import { buildServiceView, type FileRef } from './build-service-view';
import type { TryItView } from './build-try-it';
import type { FileStart } from './preview-file';
import { createMarkdownRenderer } from './render-markdown';

// buildServiceView on a descriptor in memory, with the files it names served from a map: what the page shows of them.

const SERVICES = resolve('/project/services');
const DIR = resolve(SERVICES, 'orders');

const config = {
  projectName: 'Shop',
  apiVersion: 'v1',
  author: 'Ada',
  licence: 'MIT',
  serviceUrlPrefix: '/rest',
  servicePort: 3007,
  baseUrl: 'http://localhost:3007/rest',
  servicesRoot: 'services',
  services: ['/orders'],
} as ProjectConfig;

const descriptor = {
  name: 'Orders',
  description: 'Every order. Newest first.',
  style: 'COLLECTION',
  uriTemplate: '/orders/{shop}',
  methods: {
    GET: {
      summary: 'List',
      request: {
        parameters: [{ name: 'shop', kind: 'URL', type: 'string', required: true, summary: 's', default: 'main' }],
      },
      responses: [
        { name: 'OK', statusCode: 200, reason: 'OK', mockBody: 'list.json', validationSchema: 'list-schema.json' },
        { name: 'Gone', statusCode: 410, reason: 'Gone', mockBody: 'missing.json' },
        { name: 'Teapot', statusCode: 418, reason: 'Tea', mockBody: { tea: ['green', 'black'] } },
      ],
    },
    POST: {
      summary: 'Add',
      request: { mockBody: 'new.json', validationSchema: 'new-schema.json' },
      responses: [{ name: 'Created', statusCode: 201, reason: 'Created', mockBody: 'logo.png' }],
      testCases: [
        {
          name: 'Add one',
          description: 'adds',
          url: '/orders/main',
          template: 'testPostMethod.mustache',
          request: { mockBody: 'new.json' },
          response: { statusCode: 201, mockBody: 'logo.png', validationSchema: 'list-schema.json' },
        },
      ],
    },
    PUT: {
      summary: 'Replace',
      request: { mockBody: 'huge.json' },
      responses: [{ name: 'OK', statusCode: 200, reason: 'OK' }],
    },
    DELETE: {
      summary: 'Remove',
      request: { mockBody: 'logo.png' },
      responses: [{ name: 'OK', statusCode: 204, reason: 'No content' }],
    },
  },
} as unknown as ServiceDocument;

const FILES: Record<string, Buffer> = {
  'list.json': Buffer.from('[{"id":1}]'),
  'list-schema.json': Buffer.from('{"type":"array"}'),
  'new.json': Buffer.from('{"item":"book"}\n'),
  'new-schema.json': Buffer.from('{"required":["item"]}'),
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]),
  'huge.json': Buffer.from(`[${'1,'.repeat(500_000)}1]`),
  'service.yml': Buffer.from('name: Orders'),
};

const pathOf = (name: string): string => resolve(DIR, name);
const existing = (path: string): boolean => Object.keys(FILES).some((name) => pathOf(name) === path);

function build(withContent: boolean): { view: ReturnType<typeof buildServiceView>; reads: string[] } {
  const reads: string[] = [];
  const readStart = (path: string): FileStart | undefined => {
    reads.push(path);
    const name = Object.keys(FILES).find((file) => pathOf(file) === path);
    if (!name) return undefined;
    const data = FILES[name];
    return { data: data.subarray(0, 1000), size: data.length };
  };
  const view = buildServiceView(
    { path: '/orders', file: 'services/orders/service.yml', descriptor, dir: DIR },
    {
      servicesDir: SERVICES,
      existing,
      markdown: createMarkdownRenderer(),
      config,
      ...(withContent ? { readStart } : {}),
    },
  );
  return { view, reads };
}

interface MethodView {
  request: { body: FileRef | null; schema: FileRef | null };
  responses: Array<{ body: FileRef | null; schema: FileRef | null }>;
  testCases: Array<{ requestBody: FileRef | null; responseBody: FileRef | null; schema: FileRef | null }>;
  tryIt: TryItView;
}
const methodsOf = (page: ReturnType<typeof buildServiceView>): Record<string, MethodView> =>
  Object.fromEntries(
    ((page.view.service as { methods: Array<MethodView & { method: string }> }).methods ?? []).map((method) => [
      method.method,
      method,
    ]),
  );

describe('buildServiceView: files shown on the page', () => {
  const { view: page, reads } = build(true);
  const methods = methodsOf(page);

  it("shows the request's and the responses' bodies and schemas, pretty-printed, below their links", () => {
    expect(methods.POST.request.body).toMatchObject({
      name: 'new.json',
      href: 'new.json',
      binary: false,
      preview: { json: true, lineCount: 3, folded: false, truncated: false, size: '16 bytes', wholeHref: 'new.json' },
    });
    expect(methods.POST.request.body!.preview!.textHtml).toBe(
      '{\n  <span class="j-key">&quot;item&quot;</span>: <span class="j-string">&quot;book&quot;</span>\n}',
    );
    expect(methods.POST.request.schema).toMatchObject({ name: 'new-schema.json', preview: { json: true } });
    expect(methods.GET.responses[0].body).toMatchObject({ name: 'list.json', preview: { lineCount: 5 } });
    expect(methods.GET.responses[0].schema).toMatchObject({ name: 'list-schema.json', preview: { json: true } });
  });

  it('names a binary file without showing it, and a missing one with its problem', () => {
    expect(methods.POST.responses[0].body).toMatchObject({
      name: 'logo.png',
      href: 'logo.png',
      binary: true,
      preview: null,
    });
    expect(methods.GET.responses[1].body).toEqual({
      name: 'missing.json',
      href: '',
      problem: 'file not found',
      inline: '',
      preview: null,
      binary: false,
    });
  });

  it('shows a body written in the descriptor as its JSON', () => {
    expect(methods.GET.responses[2].body).toMatchObject({
      name: 'inline',
      inline: '{\n  "tea": [\n    "green",\n    "black"\n  ]\n}',
      preview: { json: true, lineCount: 6, wholeHref: '' },
    });
  });

  it("links the test cases' files without showing them again", () => {
    expect(methods.POST.testCases[0]).toMatchObject({
      requestBody: { name: 'new.json', href: 'new.json', preview: null, binary: false },
      responseBody: { name: 'logo.png', preview: null, binary: false },
      schema: { name: 'list-schema.json', preview: null },
    });
  });

  it('reads each file once, and only those it shows', () => {
    expect(reads.sort()).toEqual(
      ['list.json', 'list-schema.json', 'missing.json', 'new.json', 'new-schema.json', 'logo.png', 'huge.json']
        .filter((name) => name !== 'missing.json')
        .map(pathOf)
        .sort(),
    );
  });

  it('cuts a file read in part, linking the whole', () => {
    expect(methods.PUT.request.body!.preview).toMatchObject({
      truncated: true,
      wholeHref: 'huge.json',
      size: '976.6 KiB',
    });
  });

  it('prefills the Try-it body with the example, or says why not', () => {
    expect(methods.POST.tryIt).toMatchObject({
      body: '{\n  "item": "book"\n}',
      headers: 'Content-Type: application/json',
      bodyNote: '',
    });
    expect(methods.PUT.tryIt).toMatchObject({
      body: '',
      bodyNote: 'The example body huge.json (976.6 KiB) is too large to put into the form.',
    });
    expect(methods.GET.tryIt).toMatchObject({
      url: '/rest/orders/{shop}',
      prefix: '/rest',
      pathParameters: [{ name: 'shop', value: 'main', required: true, type: 'string' }],
      hasBody: false,
    });
  });

  it('lists the service for the sidebar, and tells each page its own path', () => {
    expect(page.listing).toEqual({
      name: 'Orders',
      href: 'services/orders/service.html',
      url: '/rest/orders/{shop}',
      summary: 'Every order.',
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
    });
    expect(page.view.pagePath).toBe('services/orders/service.html');
  });
});

describe('buildServiceView without a reader (rest-tool 0.5 templates)', () => {
  it('reads nothing and shows no file, the links and Try-it form staying', () => {
    const { view: page } = build(false);
    const methods = methodsOf(page);
    expect(methods.POST.request.body).toMatchObject({
      name: 'new.json',
      href: 'new.json',
      preview: null,
      binary: false,
    });
    expect(methods.GET.responses[2].body).toMatchObject({ inline: expect.stringContaining('"tea"'), preview: null });
    expect(methods.POST.tryIt).toMatchObject({ body: '', bodyNote: '', hasBody: true });
  });
});

describe('buildServiceView: files a browser would run', () => {
  const active = {
    name: 'Pages',
    description: 'Answers HTML.',
    uriTemplate: '/pages',
    methods: {
      GET: {
        summary: 'Get',
        responses: ['page.html', 'chart.SVG', 'feed.xml', 'list.json', 'body.hbs', 'README'].map((mockBody, i) => ({
          name: `R${i}`,
          statusCode: 200 + i,
          reason: 'OK',
          mockBody,
        })),
      },
    },
  } as unknown as ServiceDocument;
  const names = ['page.html', 'chart.SVG', 'feed.xml', 'list.json', 'body.hbs', 'README'];
  const pageOf = (keepFileNames?: boolean): ReturnType<typeof buildServiceView> =>
    buildServiceView(
      { path: '/orders', file: 'services/orders/service.yml', descriptor: active, dir: DIR },
      {
        servicesDir: SERVICES,
        existing: (path) => names.some((name) => pathOf(name) === path),
        markdown: createMarkdownRenderer(),
        config,
        ...(keepFileNames === undefined ? {} : { keepFileNames }),
      },
    );

  it('copies HTML, SVG, XML and files of unknown type as .txt, so that a click on their link shows their text', () => {
    const page = pageOf();
    expect(methodsOf(page).GET.responses.map((response) => response.body!.href)).toEqual([
      'page.html.txt',
      'chart.SVG.txt',
      'feed.xml.txt',
      'list.json',
      'body.hbs',
      'README.txt',
    ]);
    expect(methodsOf(page).GET.responses.map((response) => response.body!.name)).toEqual(names);
    expect(page.copies.get('services/orders/page.html.txt')).toBe(pathOf('page.html'));
    expect(page.copies.has('services/orders/page.html')).toBe(false);
  });

  it("keeps the descriptors' file names for rest-tool 0.5's templates, which link the files by them", () => {
    const page = pageOf(true);
    expect(methodsOf(page).GET.responses.map((response) => response.body!.href)).toEqual(names);
  });
});
