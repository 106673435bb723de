import { stringify } from 'yaml';
import type { Files } from '@restbus/project-format/testing';
import { SERVER_CONFIG } from './fixture-project';

// A project written by an attacker, for the docs: every text the pages show carries script in the spellings browsers
// still run or follow, and every link tries to leave the site. Each payload calls alert() (or opens a page off the
// site): the browser test sees a dialog or a request leave the local server as soon as one gets through.

/** Link destinations that run script once the browser has decoded them (entities, tabs, case, leading controls). */
export const SCRIPT_HREFS = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  '<\tjavascript:alert(1)>',
  '< javascript:alert(1)>',
  '<java\tscript:alert(1)>',
  '<\u0001javascript:alert(1)>',
  '&#106;avascript:alert(1)',
  '&#x6A;avascript:alert(1)',
  '&#X6a;avascript:alert(1)',
  '&#0000106;avascript:alert(1)',
  '&#106avascript:alert(1)',
  '&#x6Aavascript:alert(1)',
  '&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)',
  'java&#x09;script:alert(1)',
  'java&#9;script:alert(1)',
  'java&Tab;script:alert(1)',
  'java&NewLine;script:alert(1)',
  'java&#x0A;script:alert(1)',
  'java&#13;script:alert(1)',
  'javascript&colon;alert(1)',
  'javascript&#58;alert(1)',
  'javascript&#x3A;alert(1)',
  '&#x20;javascript:alert(1)',
  '&#1;javascript:alert(1)',
  'javascript\\:alert(1)',
  'javascript://%0Aalert(1)',
  '<javascript:/*--></title></style></textarea></script><svg/onload=alert(1)>',
  'vbscript:msgbox(1)',
  'VBScript:msgbox(1)',
  '<data:text/html,%3Cscript%3Ealert(1)%3C/script%3E>',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  '&#100;ata:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'DATA:text/html,%3Cscript%3Ealert(1)%3C/script%3E',
  'file:///etc/passwd',
  '%6Aavascript:alert(1)',
];

/** Link destinations that look relative but lead to another host, once decoded and resolved as browsers do. */
export const OFFSITE_HREFS = [
  '//evil.example/steal',
  '<//evil.example/steal>',
  '< //evil.example/steal>',
  '<\t//evil.example/steal>',
  '/\\\\evil.example/steal',
  '\\\\\\\\evil.example/steal',
  '\\\\/evil.example/steal',
  '&#47;&#47;evil.example/steal',
  '&#x2F;/evil.example/steal',
  '/&#92;evil.example/steal',
  '&sol;&sol;evil.example/steal',
  '/&Tab;/evil.example/steal',
  '<///evil.example/steal>',
];

/** Plainly off-site links: the policy keeps them, opened apart from the docs (new tab, no opener, no referrer). */
export const EXTERNAL_HREFS = [
  'https://evil.example/steal',
  'http://evil.example/steal',
  'HTTPS://EVIL.EXAMPLE/steal',
  'https:evil.example/steal',
  'https:\\\\\\\\evil.example/steal',
];

/** Markdown that holds raw HTML or other ways into the page. */
export const HTML_PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<iframe srcdoc="<script>parent.alert(1)</script>"></iframe>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<a href="javascript:alert(1)">raw link</a>',
  '<a href="&#106;avascript:alert(1)">raw link</a>',
  '<details open ontoggle=alert(1)>',
  '<body onload=alert(1)>',
  '<input autofocus onfocus=alert(1)>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="data:text/html,<script>alert(1)</script>">',
  '<form action="javascript:alert(1)"><button>raw button</button></form>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="//evil.example/">',
  '<link rel=stylesheet href="//evil.example/x.css">',
  '<style>@import "//evil.example/x.css";</style>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<!--><img src=x onerror=alert(1)>-->',
  '<![CDATA[<img src=x onerror=alert(1)>]]>',
  '<video><source onerror=alert(1)>',
  '<x onclick=alert(1)>click me</x>',
  '<button onclick=alert(1)>raw button</button>',
  '```"><img src=x onerror=alert(1)>\ncode\n```',
  '| a | <img src=x onerror=alert(1)> |\n|---|---|\n| [t](javascript:alert(1)) | <svg onload=alert(1)> |',
  '[title](https://ok.example "x\\" onmouseover=\\"alert(1)")',
  '[title](/x \'y" onclick="alert(1)\')',
  '![alt" onerror="alert(1)](x.png) ![x](y.png "t\\" onerror=\\"alert(1)")',
  '[title](/x (z"><img src=x onerror=alert(1)>))',
  '<javascript:alert(1)>',
  '<https://evil.example/auto>',
  'www.evil.example/auto',
  'evil@evil.example',
];

/** Names, fields and values shown as text (headings, attributes, code): each tries to leave its attribute or tag. */
export const NAME_PAYLOADS = [
  '"><img src=x onerror=alert(1)>',
  "' onmouseover='alert(1)' x='",
  '</script><script>alert(1)</script>',
  '</title><svg onload=alert(1)>',
  '{{{x}}} {{> page-head}} <!--',
  '\u2028</textarea><img src=x onerror=alert(1)>',
];

/** A list item per destination, as inline links, images and references: one description holds a whole class. */
function toLinkList(label: string, hrefs: string[]): string {
  const inline = hrefs.map((href, i) => `- [${label} ${i}](${href}) and ![${label} image ${i}](${href})`);
  const references = hrefs.map((_href, i) => `- [${label} reference ${i}][${label}-${i}]`);
  const definitions = hrefs.map((href, i) => `[${label}-${i}]: ${href}`);
  return [...inline, '', ...references, '', ...definitions, ''].join('\n');
}

const EVIL_HTML = '<!doctype html><title>evil</title><script>alert(document.domain)</script>\n';
const EVIL_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><text y="20">svg</text></svg>\n';
const EVIL_XML =
  '<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><script>alert(1)</script></body></html>\n';
const EVIL_JSON = `${JSON.stringify(
  { '</script><script>alert(1)</script>': '<img src=x onerror=alert(1)>', link: 'javascript:alert(1)' },
  null,
  2,
)}\n`;

const response = (name: string, statusCode: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  statusCode,
  reason: 'fine',
  headers: [{ field: 'Content-Type', content: 'application/json' }],
  ...extra,
});

/** Every payload class in every text a page shows. */
function hostileServices(): Record<string, Record<string, unknown>> {
  const [breakout, single, script, title, mustache, separator] = NAME_PAYLOADS;
  return {
    links: {
      name: `Links ${breakout}`,
      description: `Script links, every spelling.\n\n${toLinkList('script', SCRIPT_HREFS)}`,
      style: 'OPERATION',
      uriTemplate: '/links',
      methods: {
        GET: {
          summary: `Off-site links: [inline](//evil.example/steal) ${OFFSITE_HREFS.map((href, i) => `[o${i}](${href})`).join(' ')}`,
          notes: `Off-site, looking local.\n\n${toLinkList('offsite', OFFSITE_HREFS)}`,
          details: `Plainly off-site.\n\n${toLinkList('external', EXTERNAL_HREFS)}`,
          request: {
            description: SCRIPT_HREFS.map((href, i) => `[request ${i}](${href})`).join(' '),
            parameters: [
              {
                name: `q${breakout}`,
                kind: 'QUERY',
                type: 'string',
                required: false,
                summary: SCRIPT_HREFS.slice(0, 12)
                  .map((href, i) => `[parameter ${i}](${href})`)
                  .join(' '),
                default: script,
              },
            ],
            headers: [{ field: `X-${title}`, content: mustache }],
            cookies: [{ field: separator, content: breakout }],
          },
          responses: [
            response('OK', 200, {
              reason: `fine [reason](&#106;avascript:alert(1)) <img src=x onerror=alert(1)>`,
              description: HTML_PAYLOADS.join('\n\n'),
              mockBody: 'evil.json',
            }),
          ],
          testCases: [
            {
              name: `Test ${breakout}`,
              description: `${SCRIPT_HREFS.slice(12)
                .map((href, i) => `[test ${i}](${href})`)
                .join(' ')} ${HTML_PAYLOADS.slice(0, 6).join(' ')}`,
              url: `/links?q=${script}`,
              template: 'testGetMethod.mustache',
              response: { statusCode: 200, headers: [{ field: 'Content-Type', content: single }] },
            },
          ],
        },
      },
    },
    html: {
      name: `Raw HTML ${script}`,
      description: HTML_PAYLOADS.join('\n\n'),
      style: 'OPERATION',
      uriTemplate: `/html/{id}`,
      methods: {
        POST: {
          summary: HTML_PAYLOADS.slice(0, 12).join(' '),
          notes: HTML_PAYLOADS.join('\n'),
          details: NAME_PAYLOADS.join('\n\n'),
          request: {
            parameters: [
              { name: 'id', kind: 'URL', type: 'string', required: true, summary: breakout, default: script },
            ],
            headers: [{ field: 'Content-Type', content: 'text/html' }],
            mockBody: 'evil.html',
          },
          responses: [
            response(`OK ${breakout}`, 200, {
              headers: [{ field: 'Content-Type', content: 'text/html' }],
              mockBody: 'evil.html',
              validationSchema: 'evil.json',
            }),
            response('Image', 201, { mockBody: 'evil.svg', description: '<svg onload=alert(1)>' }),
            response('Xml', 202, { mockBody: 'evil.xml', description: '<iframe srcdoc="<script>alert(1)</script>">' }),
          ],
          testCases: [
            {
              name: `Test ${separator}`,
              description: HTML_PAYLOADS.slice(6).join('\n\n'),
              url: '/html/1',
              template: 'testPostMethod.mustache',
              request: { mockBody: 'evil.html' },
              response: { statusCode: 200, mockBody: 'evil.svg' },
            },
          ],
        },
      },
    },
    // Try-it calls prefix + template: here a template that another host would answer.
    offsite: {
      name: 'Calls another host',
      description: 'Its URI template starts with two slashes.',
      style: 'OPERATION',
      uriTemplate: '//evil.example/steal',
      methods: {
        GET: { summary: 'Steal', responses: [response('OK', 200, { mockBody: 'evil.json' })] },
        POST: { summary: 'Steal more', responses: [response('OK', 200)] },
      },
    },
    backslash: {
      name: 'Calls another host with a backslash',
      description: 'Browsers read a backslash as a slash.',
      style: 'OPERATION',
      uriTemplate: '/\\evil.example/steal',
      methods: { GET: { summary: 'Steal', responses: [response('OK', 200)] } },
    },
    // Try-it follows what the API answers: here a redirect to another host.
    redirect: {
      name: 'Redirects away',
      description: 'Its answer is a redirect to another host.',
      style: 'OPERATION',
      uriTemplate: '/redirect',
      methods: {
        GET: {
          summary: 'Go',
          responses: [
            response('OK', 302, {
              headers: [
                { field: 'Location', content: 'https://evil.example/steal' },
                { field: 'Content-Type', content: 'application/json' },
              ],
            }),
          ],
        },
      },
    },
  };
}

/** The hostile project's files: config, server config, descriptors and their example files. */
export function hostileProjectFiles(): Files {
  const services = hostileServices();
  const config = {
    projectName: `Hostile ${NAME_PAYLOADS[0]}`,
    apiVersion: NAME_PAYLOADS[3],
    author: NAME_PAYLOADS[1],
    licence: '[MIT](javascript:alert(1)) <script>alert(1)</script>',
    serviceUrlPrefix: '',
    servicePort: 3007,
    baseUrl: 'javascript:alert(1)//',
    servicesRoot: 'services',
    services: Object.keys(services).map((folder) => `/${folder}`),
  };
  const files: Files = { 'config.yml': stringify(config), 'server/config.yml': SERVER_CONFIG };
  for (const [folder, descriptor] of Object.entries(services)) {
    files[`services/${folder}/service.yml`] = stringify(descriptor);
    files[`services/${folder}/evil.json`] = EVIL_JSON;
  }
  files['services/html/evil.html'] = EVIL_HTML;
  files['services/html/evil.svg'] = EVIL_SVG;
  files['services/html/evil.xml'] = EVIL_XML;
  return files;
}

/** An OpenAPI document whose every text is hostile, for `rest-tool import-oas`. */
export function hostileOpenApi(): string {
  const text = (i: number): string =>
    [
      HTML_PAYLOADS[i % HTML_PAYLOADS.length],
      `[s${i}](${SCRIPT_HREFS[i % SCRIPT_HREFS.length]})`,
      `[o${i}](${OFFSITE_HREFS[i % OFFSITE_HREFS.length]})`,
    ].join(' ');
  const operation = (i: number): Record<string, unknown> => ({
    summary: `${NAME_PAYLOADS[i % NAME_PAYLOADS.length]} ${text(i)}`,
    description: HTML_PAYLOADS.slice(i % 5, (i % 5) + 10).join('\n\n'),
    operationId: `op${i}`,
    parameters: [
      {
        name: 'q',
        in: 'query',
        description: text(i + 1),
        schema: { type: 'string', default: NAME_PAYLOADS[i % NAME_PAYLOADS.length] },
      },
    ],
    responses: {
      '200': {
        description: text(i + 2),
        content: {
          'application/json': {
            schema: { type: 'object', properties: { html: { type: 'string' } } },
            example: { html: HTML_PAYLOADS[i % HTML_PAYLOADS.length], link: SCRIPT_HREFS[i % SCRIPT_HREFS.length] },
          },
        },
      },
    },
  });
  return stringify({
    openapi: '3.0.3',
    info: { title: 'Imported hostile', version: '1.0.0', description: text(0) },
    servers: [{ url: '/api' }],
    paths: {
      '/things': {
        summary: text(3),
        description: text(4),
        get: operation(5),
        post: {
          ...operation(6),
          requestBody: {
            description: text(7),
            content: { 'application/json': { schema: { type: 'object' }, example: { x: HTML_PAYLOADS[0] } } },
          },
        },
      },
      '/things/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, description: text(8), schema: { type: 'string' } }],
        get: operation(9),
        delete: operation(10),
      },
    },
  });
}

/** How many payloads the hostile project and the OpenAPI document carry, by class. */
export const PAYLOAD_COUNT =
  SCRIPT_HREFS.length + OFFSITE_HREFS.length + EXTERNAL_HREFS.length + HTML_PAYLOADS.length + NAME_PAYLOADS.length;
