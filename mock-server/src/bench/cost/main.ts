// `npm run bench:cost`: each request path of restbus-mock at 1x and 8x its input, over HTTP, in a process of its own:
// the time ratio, the longest a probe request waited meanwhile (the stall other clients see) and the server's RSS
// growth, each with a verdict against its bound. npm test asserts these paths' work linear by counting it
// (src/__tests__/request-cost.test.ts); these are the figures, which a busy machine moves.
import { rmSync } from 'node:fs';
import { describeCost, measureWithProbe, type ProbedCost } from '@restbus/infra/testing';
import { writeProject, type Files } from '@restbus/project-format/testing';
import { createResourceState } from '../../services/stateful/create-resource-state';
import { MiB, startProgram, verdict, type RunningProgram } from './start-program';

// Linear paths take about 8x the time for 8x the input: more than 10x is a path that grows faster than its input.
const MAX_TIME_RATIO = 10;
// Bodies of half a million small arrays or objects: V8's own JSON.parse takes 5-40x as long for 8x of them, as the
// larger graph outgrows the young generation. Quadratic work would still show as 64x.
const MAX_TIME_RATIO_DENSE = 16;
// A wide item: past a thousand names V8 makes each member some 20x dearer (13-15x measured for linear work).
const MAX_TIME_RATIO_WIDE = 20;
// What another client may wait while one request is worked on.
const MAX_STALL_MS = 100;
// What the server's RSS may grow by while it works on the 8x input: parsed JSON of small objects is some 20 times
// its text, and V8 collects the garbage of each request some requests later.
const maxRssGrowth = (inputBytes: number): number => 64 * inputBytes + 64 * 1024 * 1024;
const BASE_BYTES = 64 * 1024;
// A value on which the schema's pattern backtracks 2^40 steps: refused at once on V8's linear-time engine.
const MAX_BACKTRACK_MS = 1000;
// Seeding 10,000 items without ids (a pass over the collection per new id would be quadratic: seconds).
const MAX_SEED_MS = 500;

const shopConfig = (services: string[]): string =>
  `projectName: shop\napiVersion: v1.0.0\nauthor: me\nlicence: MIT\nserviceUrlPrefix: /rest\nservicePort: 3007\n` +
  `baseUrl: http://localhost:3007/rest\nservicesRoot: services\nservices:\n${services.map((s) => `  - ${s}\n`).join('')}`;

const resource = (name: string, uriTemplate: string, methods: string): string =>
  `name: ${name}\ndescription: ${name}\nstyle: RESOURCE\nuriTemplate: ${uriTemplate}\nmethods:\n${methods}`;

const listItems = (count: number): string =>
  JSON.stringify(Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `customer ${i}`, tags: ['a', 'b'] })));

const collection = (name: string, uriTemplate: string): string =>
  `name: ${name}\ndescription: ${name}\nstyle: COLLECTION\nuriTemplate: ${uriTemplate}\nstateful: true
methods:
  GET: { summary: List, responses: [{ name: OK, statusCode: 200, reason: fine, mockBody: seed.json }] }
  POST: { summary: Add, responses: [{ name: OK, statusCode: 201, reason: created }] }
`;

const files = (): Files => ({
  'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n    validate: true\n',
  'config.yml': shopConfig(['/ping', '/orders', '/inbox', '/echo', '/notes', '/notes/note', '/list1', '/list8']),
  'services/ping/service.yml': resource(
    'Ping',
    '/ping',
    '  GET: { summary: Ping, responses: [{ name: OK, statusCode: 200, reason: fine, mockBody: pong.json }] }\n',
  ),
  'services/ping/pong.json': '{"pong":true}\n',
  'services/orders/service.yml': resource(
    'Orders',
    '/orders',
    `  POST:
    summary: Add
    request: { validationSchema: order-schema.json }
    responses: [{ name: OK, statusCode: 201, reason: created, mockBody: created.json }]
`,
  ),
  'services/orders/order-schema.json': JSON.stringify({
    type: 'object',
    required: ['lines'],
    properties: {
      lines: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'object', required: ['sku'], properties: { sku: { type: 'string' }, n: { type: 'integer' } } },
      },
      code: { type: 'string', pattern: '^(a+)+$' },
    },
  }),
  'services/orders/created.json': '{"ok":true}\n',
  'services/inbox/service.yml': resource(
    'Inbox',
    '/inbox',
    '  POST: { summary: Drop, responses: [{ name: OK, statusCode: 202, reason: taken, mockBody: taken.json }] }\n',
  ),
  'services/inbox/taken.json': '{"taken":true}\n',
  'services/echo/service.yml': resource(
    'Echo',
    '/echo',
    '  POST: { summary: Echo, responses: [{ name: OK, statusCode: 200, reason: fine, mockBody: echo.json.hbs }] }\n',
  ),
  'services/echo/echo.json.hbs':
    '{ "text": "{{request.body.text}}", "all": {{json request.body}}, ' +
    '"skus": [{{#each request.body.lines}}"{{sku}}"{{#unless @last}},{{/unless}}{{/each}}] }\n',
  'services/notes/service.yml': collection('Notes', '/notes'),
  'services/notes/seed.json': '[{"id":1,"text":"seed"}]\n',
  'services/notes/note/service.yml': resource(
    'Note',
    '/notes/{noteId}',
    '  PUT: { summary: Replace, responses: [{ name: OK, statusCode: 200, reason: fine }] }\n',
  ),
  'services/list1/service.yml': collection('List1', '/list1'),
  'services/list1/seed.json': listItems(1000),
  'services/list8/service.yml': collection('List8', '/list8'),
  'services/list8/seed.json': listItems(8000),
});

const orderLines = (bytes: number): Array<{ sku: string; n: number }> =>
  Array.from({ length: Math.floor(bytes / 24) }, (_, i) => ({ sku: `s${String(i).padStart(6, '0')}`, n: i }));

const bodiesOf = (make: (scale: number) => string): Map<number, string> =>
  new Map([1, 8].map((scale) => [scale, make(scale)]));

interface Path {
  name: string;
  method: string;
  path: (scale: number) => string;
  bodies?: Map<number, string>;
  status: number;
  inputBytes: number;
  maxTimeRatio: number;
}

function paths(): Path[] {
  const unique = bodiesOf((scale) => JSON.stringify({ lines: orderLines(BASE_BYTES * scale) }));
  const nested = `${'['.repeat(60)}${']'.repeat(60)}`;
  const dense = bodiesOf(
    (scale) =>
      `[${Array.from({ length: Math.floor((BASE_BYTES * 2 * scale) / (nested.length + 1)) }, () => nested).join(',')}]`,
  );
  const problems = bodiesOf(
    (scale) =>
      `{"lines":[${Array.from({ length: Math.floor((BASE_BYTES * 3.2 * scale) / 3) }, () => '{}').join(',')}]}`,
  );
  const echo = bodiesOf((scale) =>
    JSON.stringify({
      text: 'a"\\\n</script>'.repeat((BASE_BYTES * scale) / 32),
      lines: orderLines((BASE_BYTES * scale) / 2),
    }),
  );
  const wide = bodiesOf((scale) =>
    JSON.stringify(Object.fromEntries(orderLines(BASE_BYTES * scale).map(({ sku, n }) => [sku, n]))),
  );
  const of = (bodies: Map<number, string>) => bodies.get(8)!.length;
  return [
    {
      name: 'mock --validate uniqueItems (objects)',
      method: 'POST',
      path: () => '/orders',
      bodies: unique,
      status: 201,
      inputBytes: of(unique),
      maxTimeRatio: MAX_TIME_RATIO,
    },
    {
      name: 'mock JSON body of nested arrays',
      method: 'POST',
      path: () => '/inbox',
      bodies: dense,
      status: 202,
      inputBytes: of(dense),
      maxTimeRatio: MAX_TIME_RATIO_DENSE,
    },
    {
      name: 'mock --validate a body of many problems',
      method: 'POST',
      path: () => '/orders',
      bodies: problems,
      status: 400,
      inputBytes: of(problems),
      maxTimeRatio: MAX_TIME_RATIO_DENSE,
    },
    {
      name: 'mock template {{json}} {{string}} #each',
      method: 'POST',
      path: () => '/echo',
      bodies: echo,
      status: 200,
      inputBytes: of(echo),
      maxTimeRatio: MAX_TIME_RATIO,
    },
    {
      name: 'mock stateful PUT (an item of many members)',
      method: 'PUT',
      path: () => '/notes/1',
      bodies: wide,
      status: 200,
      inputBytes: of(wide),
      maxTimeRatio: MAX_TIME_RATIO_WIDE,
    },
    {
      name: 'mock stateful GET (1,000 and 8,000 items)',
      method: 'GET',
      path: (scale) => `/list${scale}`,
      status: 200,
      inputBytes: 8000 * 50,
      maxTimeRatio: MAX_TIME_RATIO,
    },
  ];
}

async function send(
  url: string,
  method: string,
  path: string,
  body: string | undefined,
  status: number,
): Promise<void> {
  const response = await fetch(`${url}/rest${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  if (response.status !== status) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
}

function report(path: Path, { report: cost, stallMs, rssGrowthBytes }: ProbedCost): boolean {
  const checks = [
    `time ratio ${cost.timeRatio.toFixed(1)} (bound ${path.maxTimeRatio}) ${verdict(cost.timeRatio <= path.maxTimeRatio)}`,
    `longest probe wait ${stallMs.toFixed(0)} ms (bound ${MAX_STALL_MS}) ${verdict(stallMs <= MAX_STALL_MS)}`,
    `server RSS +${MiB(rssGrowthBytes)} (bound ${MiB(maxRssGrowth(path.inputBytes))}) ${verdict(rssGrowthBytes < maxRssGrowth(path.inputBytes))}`,
  ];
  process.stdout.write(`${describeCost(cost)}\n  ${checks.join('\n  ')}\n`);
  return (
    cost.timeRatio <= path.maxTimeRatio && stallMs <= MAX_STALL_MS && rssGrowthBytes < maxRssGrowth(path.inputBytes)
  );
}

async function main(): Promise<void> {
  const dir = await writeProject(files());
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const args = ['--project', dir, '--no-watch', '--body-limit', String(4 * 1024 * 1024)];
  let over = 0;
  for (const path of paths()) {
    // A program per path: its stalls and memory are its own, not the garbage another path left behind.
    const program: RunningProgram = await startProgram(args);
    try {
      const measured = await measureWithProbe(
        path.name,
        (scale) => send(program.url, path.method, path.path(scale), path.bodies?.get(scale), path.status),
        { pid: program.child.pid!, probe: () => send(program.url, 'GET', '/ping', undefined, 200) },
      );
      if (!report(path, measured)) over++;
    } finally {
      await program.stop();
    }
  }

  const program = await startProgram(args);
  try {
    const started = performance.now();
    await send(program.url, 'POST', '/orders', JSON.stringify({ lines: [], code: `${'a'.repeat(40)}!` }), 400);
    const ms = performance.now() - started;
    if (ms > MAX_BACKTRACK_MS) over++;
    process.stdout.write(
      `mock --validate a pattern that backtracks 2^40 steps: refused in ${ms.toFixed(0)} ms (bound ${MAX_BACKTRACK_MS}) ${verdict(ms <= MAX_BACKTRACK_MS)}\n`,
    );
  } finally {
    await program.stop();
  }

  const seed = Array.from({ length: 10_000 }, () => ({ name: 'x' }));
  const state = createResourceState({ name: '/things', seed: async () => seed });
  const started = performance.now();
  await state.list();
  const seedMs = performance.now() - started;
  if (seedMs > MAX_SEED_MS) over++;
  process.stdout.write(
    `stateful seed of 10,000 items without ids: ${seedMs.toFixed(0)} ms (bound ${MAX_SEED_MS}) ${verdict(seedMs <= MAX_SEED_MS)}\n`,
  );
  process.stdout.write(`bench:cost: ${over === 0 ? 'PASS' : `${over} figure(s) OVER ITS BOUND`}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:cost failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
