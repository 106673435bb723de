import { join, relative } from 'node:path';
import { isJsonObject } from '@restbus/infra';
import { readYamlFile, type Project } from '@restbus/project-format';

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

const escapePointer = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The port an http(s) URL calls (the scheme's when it names none), or undefined for anything else. */
function portOf(url: string): number | undefined {
  try {
    const parsed = new URL(url);
    if (!Object.hasOwn(DEFAULT_PORTS, parsed.protocol) || !parsed.hostname) return undefined;
    return parsed.port ? Number(parsed.port) : DEFAULT_PORTS[parsed.protocol];
  } catch {
    return undefined;
  }
}

/**
 * Where a project's API is served and where its generated tests and docs call it, when the two disagree: one
 * warning per disagreement, naming the file, line and JSON pointer. servicePort is the one setting
 * (`rest-tool create --port` writes it): baseUrl must name its port, and the environment `node server/server` starts
 * (useEnvironment) must listen on it if it names a port at all. Upstream checked neither, and a project served on one
 * port whose tests called another failed every test with a 404 from whatever answered there.
 */
export async function findPortMismatches(project: Project): Promise<string[]> {
  const { config, environment } = project;
  const configPath = join(environment.restapiRoot, 'config.yml');
  const configName = relative(project.root, configPath) || 'config.yml';
  const configFile = await readYamlFile(configPath, configName);
  const lineOf = (pointer: string): number => (configFile.ok ? configFile.file.lineOf(pointer) : 1);
  const servicePort = `servicePort (${configName}:${lineOf('/servicePort')}) is ${config.servicePort}`;
  const warnings: string[] = [];

  const baseUrlPort = portOf(config.baseUrl);
  const baseUrlAt = `${configName}:${lineOf('/baseUrl')}: /baseUrl`;
  if (baseUrlPort === undefined) {
    warnings.push(
      `${baseUrlAt}: ${JSON.stringify(config.baseUrl)} is not an http(s) URL such as ` +
        `http://localhost:${config.servicePort}${config.serviceUrlPrefix}; the generated tests and docs call it`,
    );
  } else if (baseUrlPort !== config.servicePort) {
    warnings.push(
      `${baseUrlAt}: ${config.baseUrl} names port ${baseUrlPort}, but ${servicePort}: the generated tests and docs ` +
        'call baseUrl, the mock server listens on servicePort; give both the same port',
    );
  }

  if (environment.port !== undefined && environment.port !== config.servicePort) {
    const server = await readYamlFile(join(project.root, 'server', 'config.yml'), 'server/config.yml');
    const value = server.ok ? server.file.value : undefined;
    const environments = isJsonObject(value) && isJsonObject(value.environments) ? value.environments : {};
    const found = environments[environment.name];
    const own = isJsonObject(found) ? found : {};
    // The selected environment's own port, else the one it takes from `default`.
    const owner = Object.hasOwn(own, 'port') ? environment.name : 'default';
    const pointer = `/environments/${escapePointer(owner)}/port`;
    const line = server.ok ? server.file.lineOf(pointer) : 1;
    warnings.push(
      `server/config.yml:${line}: ${pointer}: the ${environment.name} environment (the one node server/server ` +
        `starts) listens on ${environment.port}, but ${servicePort}: the generated tests and docs call ` +
        `${config.baseUrl}; give both the same port`,
    );
  }
  return warnings;
}
