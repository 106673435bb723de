import { rm } from 'node:fs/promises';
import { RestbusError } from '@restbus/infra';
import { sampleFiles, writeProject, type Files } from './sample-project';
import { loadProject } from '@restbus/project-format';

/** Each case breaks one file of the sample project in one way; the message must say exactly where and what. */
const replaceIn =
  (file: string, from: string, to: string) =>
  (files: Files): Files => {
    const text = files[file] as string;
    if (!text.includes(from)) throw new Error(`the case does not apply: ${file} has no ${from}`);
    return { ...files, [file]: text.replace(from, to) };
  };

const cases: Array<[string, (files: Files) => Files, string[]]> = [
  [
    'a descriptor without its name',
    replaceIn('services/echo/service.yml', 'name: Echo\n', ''),
    ["services/echo/service.yml:1: /: must have required property 'name'"],
  ],
  [
    'a method without responses',
    replaceIn('services/echo/service.yml', '    responses:\n      - { name: OK, statusCode: 200, reason: fine }\n', ''),
    ["services/echo/service.yml:5: /methods/PUT: must have required property 'responses'"],
  ],
  [
    'a response without a reason',
    replaceIn(
      'services/users/user/service.yml',
      '{ name: OK, statusCode: 204, reason: Deleted }',
      '{ name: OK, statusCode: 204 }',
    ),
    ["services/users/user/service.yml:13: /methods/DELETE/responses/0: must have required property 'reason'"],
  ],
  [
    'a wrong style',
    replaceIn('services/users/service.yml', 'style: COLLECTION', 'style: collection'),
    ['services/users/service.yml:3: /style: must be one of "OPERATION", "COLLECTION", "RESOURCE"'],
  ],
  [
    'a method that is not served',
    replaceIn('services/echo/service.yml', '  PUT:', '  PATCH:'),
    ['services/echo/service.yml:5: /methods/PATCH: is not allowed here'],
  ],
  [
    'a uriTemplate that is a number',
    replaceIn('services/echo/service.yml', 'uriTemplate: /echo', 'uriTemplate: 42'),
    ['services/echo/service.yml:3: /uriTemplate: must be string'],
  ],
  [
    'an implementation that is not module.function',
    replaceIn('services/session/service.yml', 'implementation: api.count', 'implementation: ../evil.count'),
    ['services/session/service.yml:7: /methods/GET/implementation: must match pattern "^[\\w-]+\\.[A-Za-z_$][\\w$]*$"'],
  ],
  [
    'a servicePort that is text',
    replaceIn('config.yml', 'servicePort: 3007', 'servicePort: abc'),
    ['config.yml:6: /servicePort: must be integer'],
  ],
  [
    'a project config without projectName',
    replaceIn('config.yml', 'projectName: demo\n', ''),
    ["config.yml:1: /: must have required property 'projectName'"],
  ],
  [
    'a server config without a default environment',
    replaceIn('server/config.yml', '  default:', '  basic:'),
    ["server/config.yml:2: /environments: must have required property 'default'"],
  ],
  [
    'a YAML syntax error',
    replaceIn('services/echo/service.yml', 'summary: Echo', 'summary: "Echo'),
    // The parser notices at the end of the file, and says so.
    ['services/echo/service.yml:9: Missing closing "quote'],
  ],
  [
    'an undefined alias',
    replaceIn('services/users/service.yml', 'statusCode: 404', 'statusCode: *notFound'),
    ['services/users/service.yml:19: Unresolved alias (the anchor must be set before the alias): notFound'],
  ],
  [
    'a duplicate key',
    replaceIn('services/echo/service.yml', 'name: Echo\n', 'name: Echo\nname: Echo again\n'),
    ['services/echo/service.yml:2: Map keys must be unique'],
  ],
  [
    'an alias bomb (each level aliases the one before nine times)',
    (files) => ({
      ...files,
      'services/echo/service.yml': `${files['services/echo/service.yml'] as string}x0: &x0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n${Array.from(
        { length: 7 },
        (_, level) => `x${level + 1}: &x${level + 1} [${Array(9).fill(`*x${level}`).join(', ')}]\n`,
      ).join('')}`,
    }),
    ['services/echo/service.yml:15: the document grows past 8 MiB once its aliases are expanded'],
  ],
  [
    'an alias inside the node it names',
    replaceIn('services/echo/service.yml', 'description: Answers', 'loop: &a {again: *a}\ndescription: Answers'),
    ['services/echo/service.yml:2: an alias inside the node it names never ends (*a)'],
  ],
  [
    'flow collections nested a hundred thousand deep',
    replaceIn('services/echo/service.yml', 'name: Echo\n', `name: Echo\ndeep: ${'['.repeat(100_000)}\n`),
    ['services/echo/service.yml:2: the document nests more than 200 levels deep'],
  ],
  [
    'block sequences nested on one line',
    replaceIn('services/echo/service.yml', 'name: Echo\n', `name: Echo\ndeep:\n  ${'- '.repeat(500_000)}x\n`),
    ['services/echo/service.yml:3: the document nests more than 200 levels deep'],
  ],
  [
    'block maps indented a thousand levels deep',
    replaceIn(
      'services/echo/service.yml',
      'name: Echo\n',
      `name: Echo\n${Array.from({ length: 1000 }, (_, level) => `${' '.repeat(level)}k${level}:\n`).join('')}`,
    ),
    ['services/echo/service.yml:202: the document nests more than 200 levels deep'],
  ],
  [
    'a YAML 1.1 tag that builds binary data',
    replaceIn('services/echo/service.yml', 'name: Echo', 'name: !!binary RWNobw=='),
    ['services/echo/service.yml:1: unsupported tag: Unresolved tag: tag:yaml.org,2002:binary'],
  ],
  [
    'a YAML 1.1 tag that builds a set',
    replaceIn('services/echo/service.yml', 'description: Answers', 'tags: !!set {a, b}\ndescription: Answers'),
    ['services/echo/service.yml:2: unsupported tag: Unresolved tag: tag:yaml.org,2002:set'],
  ],
  [
    'more than 1000 aliases',
    (files) => ({
      ...files,
      'services/echo/service.yml': `${files['services/echo/service.yml'] as string}ok: &ok 1\nmany:\n${'  - *ok\n'.repeat(1001)}`,
    }),
    ['services/echo/service.yml:1011: the document has more than 1000 aliases'],
  ],
  [
    'a file larger than 2 MiB',
    replaceIn('services/echo/service.yml', 'name: Echo\n', `name: Echo\n# ${'x'.repeat(3 * 1024 * 1024)}\n`),
    ['services/echo/service.yml: cannot read: the file has 3145907 bytes; a YAML file may have at most 2 MiB'],
  ],
];

describe('an invalid project', () => {
  it.each(cases)('is refused for %s, naming file, line, path and problem', async (_name, breakFiles, expected) => {
    const project = await writeProject(breakFiles(sampleFiles()));
    try {
      const err = await loadProject({ projectDir: project }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RestbusError);
      expect((err as RestbusError).message.split('\n')).toEqual(expected);
      expect((err as RestbusError).message).not.toMatch(/\n\s+at |\/tmp\//);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
