import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createTextLinter } from './lint-api-text';

const streamApi = (openapi: string): string =>
  [
    `openapi: ${openapi}`,
    'info: {title: Events, version: "1"}',
    'paths:',
    '  /events:',
    '    get:',
    '      x-restbus-stream: {subject: app.events}',
    '      responses:',
    '        "200":',
    '          description: the events',
    '          content:',
    '            text/event-stream:',
    '              itemSchema: {type: object, properties: {id: {type: string}}}',
    '',
  ].join('\n');

describe('the linter of API descriptions', () => {
  it.each(['3.0.3', '3.1.0'])(
    "takes an event stream's itemSchema (OAS 3.2's, which restbus reads in a %s document too) without a warning",
    async (openapi) => {
      expect(await createTextLinter().lint('events.yml', streamApi(openapi))).toEqual([]);
    },
  );

  it('still warns of a member the official schema does not know beside a media type', async () => {
    const text = streamApi('3.0.3').replace('itemSchema:', 'itemSchemas:');
    const diagnostics = await createTextLinter().lint('events.yml', text);
    expect(diagnostics.map(({ path, line }) => `${line} ${path}`)).toContain(
      '12 paths./events.get.responses.200.content.text/event-stream.itemSchemas',
    );
  });

  const securedApi = (scheme: string): string =>
    [
      'openapi: 3.0.3',
      'info: {title: Persons, version: "1"}',
      'components:',
      '  securitySchemes:',
      `    login: ${scheme}`,
      'security: [{login: [persons:read]}]',
      'paths:',
      '  /persons:',
      '    get:',
      '      security: [{login: [persons:write]}]',
      '      responses: {"200": {description: the persons}}',
      '',
    ].join('\n');

  it("takes the scopes an openIdConnect scheme's requirements list, which OpenAPI 3 allows and no flow declares", async () => {
    const oidc =
      '{type: openIdConnect, openIdConnectUrl: "https://login.example.com/.well-known/openid-configuration"}';
    expect(await createTextLinter().lint('persons.yml', securedApi(oidc))).toEqual([]);
  });

  it("still warns of a scope an oauth2 scheme's flows do not declare", async () => {
    const oauth2 =
      '{type: oauth2, flows: {clientCredentials: {tokenUrl: "https://login.example.com/token", scopes: {persons:read: read}}}}';
    const diagnostics = await createTextLinter().lint('persons.yml', securedApi(oauth2));
    expect(diagnostics.map(({ path, message }) => `${path}: ${message}`)).toEqual([
      'paths./persons.get.security.0.login.0: "persons:write" must be listed among scopes',
    ]);
  });

  // Counted, not timed: the modules the worker's linter loads. It starts in a thread at every gateway start and reload;
  // the runtime library (NATS, pino) and Spectral's AsyncAPI and Arazzo rulesets were a third of that start.
  it('loads neither the runtime library nor the rulesets of other formats than OpenAPI', () => {
    const linter = join(__dirname, '../../dist/openapi/lint-api-text.js');
    const loaded = JSON.parse(
      execFileSync(
        process.execPath,
        ['-e', `require(${JSON.stringify(linter)}); console.log(JSON.stringify(Object.keys(require.cache)))`],
        {
          encoding: 'utf8',
        },
      ),
    ) as string[];
    const unwanted = loaded.filter((file) =>
      /node_modules\/(nats|pino)\/|infra\/runtime\/|spectral-rulesets\/dist\/(asyncapi|arazzo)\//.test(file),
    );
    expect({ unwanted, spectral: loaded.some((file) => file.includes('spectral-rulesets/dist/oas/')) }).toEqual({
      unwanted: [],
      spectral: true,
    });
  });
});
