import { lstat, mkdir, readFile, realpath, rm } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import {
  appendServices,
  createFileAtomic,
  isInside,
  listReferencedFiles,
  looksPlural,
  replaceFileIfUnchanged,
} from '@restbus/project-format';
import type { Field } from './choose-headers';
import type { KnownService, RoutePlan } from './route-registry';
import { addMethod, declaredMethods, renderServiceFile } from './edit-yaml';
import { isJsonObject } from '@restbus/infra';

/** What the target answered to one call, ready to be written. */
export interface RecordedCall {
  method: string;
  status: number;
  request: { headers: Field[]; cookies: Field[] };
  response: { headers: Field[]; cookies: Field[] };
  /** The mock file's content and extension; absent for an empty body. */
  body?: { extension: string; data: Buffer; json: boolean; array: boolean };
}

export interface RecordingTarget {
  /** The project root (the folder of config.yml). */
  root: string;
  servicesDir: string;
  /** `Recorded from <target> on <date>`: the summary of a recorded method, the description of a new service. */
  origin: string;
  /** Called once per file written, with its name relative to the project root. */
  wrote(file: string, action: 'created' | 'updated'): void;
}

/** The largest service.yml or config.yml edited (the loader's bound for a YAML file). */
const MAX_YAML_BYTES = 2 * 1024 * 1024;
/** How often an edit is tried again when the file changed between reading and replacing it. */
const EDIT_ATTEMPTS = 5;

const exists = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  );

async function readYamlText(path: string): Promise<string> {
  const text = await readFile(path, 'utf8');
  if (Buffer.byteLength(text) > MAX_YAML_BYTES) throw new Error(`${path} has more than ${MAX_YAML_BYTES} bytes`);
  return text;
}

const capitalise = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

/** A descriptor's method for the recorded call. */
function describeMethod(
  call: RecordedCall,
  origin: string,
  parameters: Array<[string, string]>,
  mockBody: string | undefined,
): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  if (parameters.length) {
    request.parameters = parameters.map(([name, value]) => ({
      name,
      kind: 'URL',
      required: true,
      type: 'string',
      summary: `The ${name} in the path`,
      default: value,
    }));
  }
  if (call.request.cookies.length) request.cookies = call.request.cookies;
  if (call.request.headers.length) request.headers = call.request.headers;
  const response: Record<string, unknown> = {
    name: 'OK',
    statusCode: call.status,
    reason: STATUS_CODES[call.status] ?? 'Recorded',
  };
  if (call.response.cookies.length) response.cookies = call.response.cookies;
  if (call.response.headers.length) response.headers = call.response.headers;
  if (mockBody) response.mockBody = mockBody;
  return { summary: origin, ...(Object.keys(request).length ? { request } : {}), responses: [response] };
}

/**
 * Writes the mock file beside a service under the first free name: `getCollection-responseBody.json`, else
 * `getCollection-responseBody-2.json`…; a name a descriptor refers to counts as taken even if its file is missing.
 */
async function writeMockFile(
  dir: string,
  base: string,
  body: NonNullable<RecordedCall['body']>,
  taken: ReadonlySet<string>,
): Promise<string> {
  for (let n = 1; n <= 1000; n++) {
    const name = `${base}${n === 1 ? '' : `-${n}`}.${body.extension}`;
    if (taken.has(name)) continue;
    if (await createFileAtomic(join(dir, name), body.data, { durable: true })) return name;
  }
  throw new Error(`no free name for ${base}.${body.extension} in ${dir}`);
}

const normalEntry = (entry: string): string => `/${entry.split('/').filter(Boolean).join('/')}`;

/** The style of a new service: a parameter last is a RESOURCE, a list or a plural name a COLLECTION. */
function guessStyle(plan: Extract<RoutePlan, { kind: 'new' }>, call: RecordedCall): string {
  const last = plan.route.segments[plan.route.segments.length - 1];
  if (last && 'parameter' in last) return 'RESOURCE';
  if (call.body?.array || (last && looksPlural(last.literal))) return 'COLLECTION';
  return 'OPERATION';
}

/**
 * Writes a new service: its folder (the route's, or with `-2`, `-3`… when that one is a service already), the
 * mock file, the service.yml (created, never replaced), then its entry at the end of config.yml's services. A
 * failure removes what this call created. Returns the service as the registry keeps it.
 */
export async function writeNewService(
  plan: Extract<RoutePlan, { kind: 'new' }>,
  call: RecordedCall,
  target: RecordingTarget,
): Promise<Omit<KnownService, 'matcher'>> {
  const { route } = plan;
  const style = guessStyle(plan, call);
  const configFile = join(target.root, 'config.yml');
  const last = route.folder[route.folder.length - 1];
  for (let n = 1; n <= 100; n++) {
    const segments = [...route.folder.slice(0, -1), n === 1 ? last : `${last}-${n}`];
    const entry = `/${segments.join('/')}`;
    const dir = join(target.servicesDir, ...segments);
    const configText = await readYamlText(configFile);
    const config: unknown = parse(configText);
    const listed = isJsonObject(config) ? config.services : undefined;
    if (Array.isArray(listed) && listed.some((item) => typeof item === 'string' && normalEntry(item) === entry)) {
      continue;
    }
    if (await exists(join(dir, 'service.yml'))) continue;
    const made: string[] = [];
    const created = await mkdir(dir, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST' || err.code === 'ENOTDIR') return null;
      throw err;
    });
    if (created === null) continue;
    if (created) made.push(created);
    try {
      // A symbolic link on the way must not lead the files out of the project.
      if (!isInside(await realpath(target.servicesDir), await realpath(dir)))
        throw new Error(`${entry} leads out of servicesRoot through a symbolic link`);
      const mockBody = call.body
        ? await writeMockFile(
            dir,
            `${call.method.toLowerCase()}${capitalise(style)}-responseBody`,
            call.body,
            new Set(),
          )
        : undefined;
      if (mockBody) made.push(join(dir, mockBody));
      const name = segments[segments.length - 1];
      const text = renderServiceFile(` ${target.origin} by restbus-mock record; edit freely.`, {
        name,
        description: target.origin,
        style,
        uriTemplate: route.uriTemplate,
        methods: {
          [call.method]: describeMethod(
            call,
            target.origin,
            route.parameters.map(({ name: parameter, value }) => [parameter, value]),
            mockBody,
          ),
        },
      });
      if (!(await createFileAtomic(join(dir, 'service.yml'), text, { durable: true }))) {
        // Made by someone else since the check: this folder is theirs.
        for (const path of made.reverse()) await rm(path, { recursive: true, force: true });
        continue;
      }
      made.push(join(dir, 'service.yml'));
      await listService(configFile, entry);
      if (mockBody) target.wrote(relative(target.root, join(dir, mockBody)), 'created');
      target.wrote(relative(target.root, join(dir, 'service.yml')), 'created');
      target.wrote(relative(target.root, configFile), 'updated');
      return { entry, dir, uriTemplate: route.uriTemplate, style, methods: new Set([call.method]) };
    } catch (err) {
      for (const path of made.reverse()) await rm(path, { recursive: true, force: true });
      throw err;
    }
  }
  throw new Error(`no free service folder for ${route.uriTemplate}`);
}

/** Adds the entry at the end of config.yml's services, again if config.yml changed while it was being edited. */
async function listService(configFile: string, entry: string): Promise<void> {
  for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
    const text = await readYamlText(configFile);
    if (await replaceFileIfUnchanged(configFile, text, appendServices(text, [entry]))) return;
  }
  throw new Error('config.yml kept changing while the recorder edited it');
}

/**
 * Adds the recorded method to a service that declares other methods: the mock file beside it, then the method at
 * the end of its service.yml's methods, keeping the file's comments and layout. Returns false when the file
 * declares the method by now (someone added it meanwhile): nothing is written then.
 */
export async function addToService(
  plan: Extract<RoutePlan, { kind: 'add' }>,
  call: RecordedCall,
  target: RecordingTarget,
): Promise<boolean> {
  const { service } = plan;
  const file = join(service.dir, 'service.yml');
  const name = relative(target.root, file);
  for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
    const text = await readYamlText(file);
    if (declaredMethods(text).includes(call.method)) return false;
    const parsed: unknown = parse(text, { merge: true });
    // Not a mapping: addMethod below refuses it (no methods map).
    const data = isJsonObject(parsed) ? parsed : {};
    const taken = new Set(listReferencedFiles(data).map((reference) => reference.file));
    const style = typeof data.style === 'string' ? capitalise(data.style) : 'Service';
    const mockBody = call.body
      ? await writeMockFile(service.dir, `${call.method.toLowerCase()}${style}-responseBody`, call.body, taken)
      : undefined;
    try {
      const descriptor = describeMethod(call, target.origin, Object.entries(plan.parameters), mockBody);
      if (await replaceFileIfUnchanged(file, text, addMethod(text, name, call.method, descriptor))) {
        if (mockBody) target.wrote(relative(target.root, join(service.dir, mockBody)), 'created');
        target.wrote(name, 'updated');
        return true;
      }
    } catch (err) {
      if (mockBody) await rm(join(service.dir, mockBody), { force: true });
      throw err;
    }
    if (mockBody) await rm(join(service.dir, mockBody), { force: true });
  }
  throw new Error(`${name} kept changing while the recorder edited it`);
}
