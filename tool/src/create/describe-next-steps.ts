/** Where rest-tool runs: on the host, or in its container (the image sets RESTBUS_TOOL_CONTAINER=1). */
export interface NextStepsContext {
  /** The project name as given, relative to the current folder (the same on the host: /work is the host's $PWD). */
  name: string;
  /** The project's servicePort: where it is served, and where its tests and docs call it. */
  port: number;
  inContainer: boolean;
}

const SAFE_WORD = /^[\w./@%+=:,-]+$/;

/** A word a POSIX shell reads back unchanged. */
export const quoteForShell = (word: string): string =>
  SAFE_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

const ADD_EXAMPLE = 'add -t COLLECTION -p /users -u /users -n Users';

/** The host port of the compose stack's gateway (docker-compose.yml), which a project served from the tool's image meets. */
const GATEWAY_PORT = 3007;

/**
 * The commands to type after `create`, as lines to print. In the container the tool cannot know where the restbus
 * checkout is on the host, so its compose file is named `<restbus>/docker-compose.yml`; the project is served from the
 * same image on its own port, published on the host as `bin/rest-tool-docker serve` does, so that the URL its tests
 * and docs call is the one it answers on.
 */
export function describeNextSteps(context: NextStepsContext): string[] {
  const cd = `cd ${quoteForShell(context.name)}`;
  const { port } = context;
  if (!context.inContainer) {
    return [
      'next steps:',
      `  ${cd}`,
      `  rest-tool ${ADD_EXAMPLE}`,
      `  node server/server                # the mock server on port ${port}`,
      `  curl localhost:${port}/rest/monitoring/isAlive`,
    ];
  }
  const compose = 'docker compose -f <restbus>/docker-compose.yml';
  const lines = [
    'next steps, on the host (<restbus>: your restbus checkout; compose v1: docker-compose for docker compose):',
    `  ${cd}`,
    `  ${compose} run --rm tool ${ADD_EXAMPLE}`,
    `  ${compose} run --rm -p 127.0.0.1:${port}:${port} --entrypoint node tool server/server --port ${port}`,
    `  curl localhost:${port}/rest/monitoring/isAlive`,
    'or the same with <restbus>/bin/rest-tool-docker add … and <restbus>/bin/rest-tool-docker serve',
  ];
  if (port === GATEWAY_PORT) {
    lines.push(
      `note: port ${port} is also the gateway's in the compose stack; to run both, make the project with --port 3017 ` +
        '(or change servicePort and baseUrl in config.yml and the development port in server/config.yml)',
    );
  }
  return lines;
}
