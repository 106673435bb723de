import { readFile } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import Mustache from 'mustache';
import { isJsonObject, readErrorMessage, RestbusError } from '@restbus/infra';
import { listMethods, type TestCase } from '@restbus/project-format';
import { createTemplateSet } from '../docs/create-template-set';
import { loadTemplates, type LoadedTemplates } from '../docs/load-templates';
import { readProject } from '../docs/read-project';
import { showPath } from '../project/show-path';
import { toContentPath } from '../project/to-content-path';
import { createFileAtomic } from '@restbus/project-format';
import { buildTestView, type TestCaseInput } from './build-test-view';
import { toTestFileName } from './to-test-file-name';

export interface GenerateTestsOptions {
  projectDir: string;
  /** The project config, relative to projectDir (default `config.yml`). */
  configFile?: string;
  /** Receives one line per file written or skipped. */
  verbose?: (line: string) => void;
}

/** ES modules whatever the project's package.json says, and found by `node --test` in test/. */
const ESM_EXTENSION = '.mjs';

/**
 * A project's own upstream templates (rest-tool 0.4/0.5 mocha tests) are CommonJS: `require`, no `import`. Their
 * files are `.js`, as upstream wrote them, unless the project's package.json makes `.js` an ES module.
 */
const isCommonJs = (template: string): boolean =>
  /\brequire\s*\(/.test(template) && !/^\s*(import|export)\s/m.test(template);

async function commonJsExtension(projectRoot: string): Promise<string> {
  try {
    const pkg: unknown = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8'));
    return isJsonObject(pkg) && pkg.type === 'module' ? '.cjs' : '.js';
  } catch {
    return '.js';
  }
}

const templateNameOf = (testCase: TestCase): string => testCase.template.replace(/\.mustache$/, '');

// The rendered output is JavaScript: the view's `js` values are JSON literals already, and HTML escaping would
// corrupt them.
const noEscaping = { escape: (value: unknown): string => String(value) };

/**
 * Writes one test file per test case of every listed service into `<project>/test/`, rendered from the template the
 * test case names (`testGetMethod.mustache`, or `testGetMethod`). A file that exists is never overwritten: it is
 * reported as skipped. Every problem (unknown template, bad status) is reported before anything is written.
 * Paths in the result are relative to the project, '/'-separated.
 */
export async function generateTests(
  options: GenerateTestsOptions,
): Promise<{ written: string[]; skipped: string[]; warnings: string[]; baseUrl: string }> {
  const verbose = options.verbose ?? ((): void => undefined);
  const project = await readProject(options);
  const testDir = join(project.root, 'test');
  const templateSet = createTemplateSet(project.root, 'test');
  verbose(`templates: ${templateSet.dirs.map((dir) => showPath(project.root, dir)).join(', then ')}`);

  const cases: TestCaseInput[] = [];
  for (const service of project.services) {
    const dir = join(project.servicesDir, service.path);
    for (const [method, spec] of listMethods(service.descriptor)) {
      (spec.testCases ?? []).forEach((testCase, index) => {
        cases.push({
          config: project.config,
          service: {
            ...service,
            dir,
            contentPath: toContentPath(project.config.servicesRoot, service.path),
          },
          method,
          methodSpec: spec,
          testCase,
          pointer: `/methods/${method}/testCases/${index}`,
          testFile: '',
        });
      });
    }
  }

  const problems: string[] = [];
  const templates = new Map<string, LoadedTemplates>();
  for (const input of cases) {
    const name = templateNameOf(input.testCase);
    if (templates.has(name)) continue;
    if (!name || /[/\\]/.test(name) || name.startsWith('.')) {
      problems.push(`${input.service.file}: ${input.pointer}/template: "${name}" is not a file name in templates/test`);
      continue;
    }
    try {
      templates.set(name, await loadTemplates(templateSet, [name], 'test'));
    } catch (err) {
      problems.push(`${input.service.file}: ${input.pointer}/template: ${readErrorMessage(err)}`);
    }
  }
  // Named once the templates are known: a CommonJS template's file is .js. Two test cases of the same name
  // (case-insensitively: macOS and Windows) would share a file.
  const cjs = await commonJsExtension(project.root);
  const taken = new Set<string>();
  for (const input of cases) {
    const loaded = templates.get(templateNameOf(input.testCase));
    const [text = ''] = Object.values(loaded?.templates ?? {});
    const extension = isCommonJs(text) ? cjs : ESM_EXTENSION;
    let name = toTestFileName(String(input.testCase.name), extension);
    for (let n = 2; taken.has(name.toLowerCase()); n++) {
      name = toTestFileName(`${String(input.testCase.name)} (${n})`, extension);
    }
    taken.add(name.toLowerCase());
    input.testFile = join(testDir, name);
  }

  const rendered: Array<{ file: string; text: string }> = [];
  const allWarnings: string[] = [];
  for (const input of cases) {
    const { view, problems: found, warnings } = buildTestView(input);
    problems.push(...found);
    allWarnings.push(...warnings);
    const loaded = templates.get(templateNameOf(input.testCase));
    if (!loaded || found.length) continue;
    const [text] = Object.values(loaded.templates);
    rendered.push({ file: input.testFile, text: Mustache.render(text, view, loaded.partials, noEscaping) });
  }
  if (problems.length) throw new RestbusError('PROJECT_INVALID', [...new Set(problems)].join('\n'));

  const written: string[] = [];
  const skipped: string[] = [];
  for (const { file, text } of rendered) {
    const shown = posix.join(...relative(project.root, file).split(sep));
    if (await createFileAtomic(file, text)) {
      written.push(shown);
      verbose(`wrote ${shown}`);
    } else {
      skipped.push(shown);
      verbose(`skipped ${shown}: it exists`);
    }
  }
  return { written, skipped, warnings: [...new Set(allWarnings)], baseUrl: project.config.baseUrl };
}
