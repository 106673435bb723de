import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, isScalar, parseDocument, type Document } from 'yaml';
import { RestbusError } from '@restbus/infra';
import { stringifyYaml } from '../project/render-yaml-template';

function readDocument(text: string, name: string): Document {
  const document = parseDocument(text);
  if (document.errors.length) {
    throw new RestbusError('PROJECT_INVALID', `${name}: ${document.errors[0].message.split('\n')[0]}`);
  }
  return document;
}

/**
 * The base URL the specification derives: `<scheme>://<host>:<servicePort><serviceUrlPrefix>`, with the scheme and
 * host of the old one (http://localhost when it names none).
 */
export function deriveBaseUrl(oldBaseUrl: unknown, port: number, serviceUrlPrefix: unknown): string {
  let origin = { protocol: 'http:', hostname: 'localhost' };
  try {
    if (typeof oldBaseUrl === 'string') origin = new URL(oldBaseUrl);
  } catch {
    // not a URL: the default origin
  }
  const prefix = typeof serviceUrlPrefix === 'string' ? serviceUrlPrefix : '';
  return `${origin.protocol}//${origin.hostname}:${port}${prefix}`;
}

/**
 * config.yml with `servicePort` set to `port` and `baseUrl` derived from it, edited in place (comments and layout
 * stay). Also the port it had, so that the server's environments on it can follow.
 */
export function setConfigPort(text: string, port: number, name = 'config.yml'): { text: string; previous: unknown } {
  const document = readDocument(text, name);
  const servicePort = document.get('servicePort', true);
  const baseUrl = document.get('baseUrl', true);
  if (!isScalar(servicePort) || !isScalar(baseUrl)) {
    throw new RestbusError('INTERNAL', `${name}: the project template has no servicePort or baseUrl`);
  }
  const previous = servicePort.value;
  servicePort.value = port;
  baseUrl.value = deriveBaseUrl(baseUrl.value, port, document.get('serviceUrlPrefix'));
  baseUrl.type = undefined;
  return { text: stringifyYaml({ document, filled: [baseUrl] }, name), previous };
}

/**
 * server/config.yml with every environment that listened on `from` (the project's servicePort: `default` and
 * `development` as created) listening on `to`; the others (devProxy on 3006, production on 3008) and the ports
 * they forward to stay.
 */
export function moveEnvironmentPorts(text: string, from: unknown, to: number, name = 'server/config.yml'): string {
  const document = readDocument(text, name);
  const environments = document.get('environments', true);
  if (isMap(environments)) {
    for (const { value } of environments.items) {
      const port = isMap(value) ? value.get('port', true) : undefined;
      if (isScalar(port) && port.value === from) port.value = to;
    }
  }
  return stringifyYaml({ document, filled: [] }, name);
}

/** Makes a project folder's config.yml and server/config.yml say `port` (see setConfigPort, moveEnvironmentPorts). */
export async function setProjectPort(projectDir: string, port: number): Promise<void> {
  const configFile = join(projectDir, 'config.yml');
  const serverFile = join(projectDir, 'server', 'config.yml');
  const config = setConfigPort(await readFile(configFile, 'utf8'), port);
  const server = moveEnvironmentPorts(await readFile(serverFile, 'utf8'), config.previous, port);
  await writeFile(configFile, config.text);
  await writeFile(serverFile, server);
}
