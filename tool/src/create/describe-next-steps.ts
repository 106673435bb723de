/** Where rest-tool runs: on the host, or in its container (the image sets RESTBUS_TOOL_CONTAINER=1). */
export interface NextStepsContext {
  /** The project name as given, relative to the current folder (the same on the host: /work is the host's $PWD). */
  name: string;
  inContainer: boolean;
}

const SAFE_WORD = /^[\w./@%+=:,-]+$/;

/** A word a POSIX shell reads back unchanged. */
export const quoteForShell = (word: string): string =>
  SAFE_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

const ADD_EXAMPLE = 'add -t COLLECTION -p /users -u /users -n Users';

/**
 * The commands to type after `create`, as lines to print. In the container the tool cannot know where the restbus
 * checkout is on the host, so its compose file is named `<restbus>/docker-compose.yml`; the project is served from the
 * same image on host port 3017, as `bin/rest-tool-docker serve` does (3007 is the gateway's).
 */
export function describeNextSteps(context: NextStepsContext): string[] {
  const cd = `cd ${quoteForShell(context.name)}`;
  if (!context.inContainer) {
    return [
      'next steps:',
      `  ${cd}`,
      `  rest-tool ${ADD_EXAMPLE}`,
      '  node server/server                # the mock server on port 3007',
      '  curl localhost:3007/rest/monitoring/isAlive',
    ];
  }
  const compose = 'docker compose -f <restbus>/docker-compose.yml';
  return [
    'next steps, on the host (<restbus>: your restbus checkout; compose v1: docker-compose for docker compose):',
    `  ${cd}`,
    `  ${compose} run --rm tool ${ADD_EXAMPLE}`,
    `  ${compose} run --rm -p 127.0.0.1:3017:3007 --entrypoint node tool server/server --port 3007`,
    '  curl localhost:3017/rest/monitoring/isAlive',
    'or the same with <restbus>/bin/rest-tool-docker add … and <restbus>/bin/rest-tool-docker serve',
  ];
}
