import type { ApiModel, ApiOperation, JsonSchema } from '@restbus/openapi';
import { sample } from 'openapi-sampler';
import { toSourceLiteral, toStringLiteral } from './to-source-literal';

/**
 * The files of a new service around the generated code: written only where there is none yet. The document's texts
 * (its title, its file's name) are in them only as string literals; no script hands one to a shell.
 */
export function renderServiceFiles(model: ApiModel, name: string, source: string): Record<string, string> {
  const description = `${model.title || name}: the NATS service of ${source}`;
  return {
    'package.json': `${JSON.stringify(
      {
        name,
        version: '0.1.0',
        private: true,
        description,
        main: 'dist/main.js',
        // The API file's name reaches the generate script as a variable npm sets, never as shell text: a name such
        // as `$(…).yml` is a file name, not a command.
        config: { api: source },
        scripts: {
          generate: 'rest-tool generate-service -- "$npm_package_config_api" .',
          build: 'tsc -p .',
          start: 'node dist/main.js',
          test: 'tsc -p . && node --test dist/',
        },
        dependencies: { '@restbus/infra': '0.1.0', nats: '^2.29.3' },
        devDependencies: { '@types/node': '^20.19.0', typescript: '~5.9.3' },
      },
      null,
      2,
    )}\n`,
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'node16',
          moduleResolution: 'node16',
          types: ['node'],
          strict: true,
          esModuleInterop: true,
          skipLibCheck: true,
          rootDir: 'src',
          outDir: 'dist',
        },
        include: ['src'],
      },
      null,
      2,
    )}\n`,
    'src/main.ts': `#!/usr/bin/env node
import { readPackageVersion, runExecutive } from '@restbus/infra';
import { register } from './generated/contract';
import { createHandlers } from './handlers';

const version = readPackageVersion(__dirname);
runExecutive({
  name: ${toStringLiteral(name)},
  version,
  description: ${toStringLiteral(description)},
  startups: [register(createHandlers)],
});
`,
    'src/handlers.test.ts': renderServiceTest(model, name),
  };
}

function sampleOf(schema: JsonSchema | undefined, model: ApiModel): unknown {
  if (schema === undefined || typeof schema === 'boolean') return 'x';
  try {
    return sample(schema as never, { skipReadOnly: true, quiet: true }, model.schemaRoot);
  } catch {
    return 'x';
  }
}

/** A call that passes the operation's checks: every required parameter and a required body, sampled from schemas. */
function sampleCall(operation: ApiOperation, model: ApiModel): Record<string, unknown> {
  const call: Record<string, unknown> = {};
  for (const [location, key] of [
    ['path', 'params'],
    ['query', 'query'],
    ['header', 'headers'],
  ] as const) {
    const required = operation.parameters[location].filter((parameter) => parameter.required);
    if (required.length > 0) {
      call[key] = Object.fromEntries(required.map((parameter) => [parameter.name, sampleOf(parameter.schema, model)]));
    }
  }
  const json = Object.entries(operation.requestBody?.content ?? {}).find(([type]) => /json/i.test(type));
  if (operation.requestBody?.required && json) call.body = sampleOf(json[1].schema, model);
  return call;
}

function renderServiceTest(model: ApiModel, name: string): string {
  const cases = model.operations
    .map((operation) => {
      const statuses = operation.responses.map(({ status }) => status);
      return `
  it(${toStringLiteral(`${operation.name} answers a status it declares (501 while it is a stub), never 500`)}, async () => {
    const reply = await client[${toStringLiteral(operation.name)}](${toSourceLiteral(sampleCall(operation, model), '    ')} as never);
    assertDeclared(reply, [${statuses.map(toStringLiteral).join(', ')}]);
  });`;
    })
    .join('\n');
  return `// A test per operation against a real nats-server: it stays true as you write the handlers (a status the
// operation declares, never 500); add your own beside it for what each handler answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createExecutive, type Executive } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { connect, type NatsConnection } from 'nats';
import { createClient, register } from './generated/contract';
import { createHandlers } from './handlers';

/** Fails unless the reply's status is one the operation declares (its code, its range 4XX, default) or a stub's 501. */
function assertDeclared(reply: { status: number; body?: unknown }, declared: string[]): void {
  assert.notEqual(reply.status, 500, \`the handler failed (500): \${JSON.stringify(reply.body)}\`);
  if (reply.status === 501 && (reply.body as { code?: string } | undefined)?.code === 'NOT_IMPLEMENTED') return;
  const status = String(reply.status);
  const found = declared.some((key) => key === status || key === \`\${status[0]}XX\` || key === 'default');
  assert.ok(found, \`status \${status} is not one the operation declares (\${declared.join(', ')})\`);
}

describe(${toStringLiteral(name)}, () => {
  let server: TestNatsServer;
  let executive: Executive<object>;
  let nc: NatsConnection;
  let client: ReturnType<typeof createClient>;

  before(async () => {
    server = await startNatsServer();
    executive = createExecutive({
      name: ${toStringLiteral(name)},
      version: '0.1.0',
      description: 'under test',
      startups: [register(createHandlers)],
      argv: ['--natsUri', server.url, '--logLevel', 'warn'],
      env: {},
    });
    await executive.start();
    nc = await connect({ servers: server.url });
    client = createClient(nc, 'easer');
  });

  after(async () => {
    await nc?.close();
    await executive?.stop();
    await server?.dispose();
  });
${cases}
});
`;
}
