import { join, posix, relative, sep } from 'node:path';
import Mustache from 'mustache';
import { RestbusError } from '@restbus/infra';
import { createTemplateSet } from '../docs/find-templates';
import { loadTemplates, type LoadedTemplates } from '../docs/load-templates';
import { readProject } from '../docs/read-project';
import { createFileAtomic } from '../docs/write-file-atomic';
import { buildTestView, type TestCaseInput } from './build-test-view';
import { toTestFileName } from './to-test-file-name';

export interface GenerateTestsOptions {
  projectDir: string;
  /** The project config, relative to projectDir (default `config.yml`). */
  configFile?: string;
  /** Receives one line per file written or skipped. */
  verbose?: (line: string) => void;
}

type Json = Record<string, unknown>;

/** ES modules whatever the project's package.json says, and found by `node --test` in test/. */
const EXTENSION = '.mjs';

// The rendered output is JavaScript: the view's `js` values are JSON literals already, and HTML escaping would
// corrupt them.
const noEscaping = { escape: (value: unknown): string => String(value) };

/**
 * Writes one test file per test case of every listed service into `<project>/test/`, rendered from the template the
 * test case names (`testGetMethod.mustache`, or `testGetMethod`). A file that exists is never overwritten: it is
 * reported as skipped. Every problem (unknown template, bad status) is reported before anything is written.
 * Paths in the result are relative to the project, '/'-separated.
 */
export async function generateTests(options: GenerateTestsOptions): Promise<{ written: string[]; skipped: string[] }> {
  const verbose = options.verbose ?? ((): void => undefined);
  const project = await readProject(options);
  const testDir = join(project.root, 'test');
  const templateSet = createTemplateSet(project.root, 'test');
  verbose(`templates: ${templateSet.dirs.join(', then ')}`);

  const cases: TestCaseInput[] = [];
  const taken = new Set<string>();
  for (const service of project.services) {
    const dir = join(project.servicesDir, service.path);
    for (const [method, spec] of Object.entries(service.descriptor.methods)) {
      const testCases = Array.isArray(spec.testCases) ? (spec.testCases as Json[]) : [];
      testCases.forEach((testCase, index) => {
        // Two test cases of the same name (case-insensitively: macOS and Windows) would share a file.
        let name = toTestFileName(String(testCase.name), EXTENSION);
        for (let n = 2; taken.has(name.toLowerCase()); n++) {
          name = toTestFileName(`${String(testCase.name)} (${n})`, EXTENSION);
        }
        taken.add(name.toLowerCase());
        cases.push({
          config: project.config,
          service: { ...service, dir },
          method,
          methodSpec: spec,
          testCase,
          pointer: `/methods/${method}/testCases/${index}`,
          testFile: join(testDir, name),
        });
      });
    }
  }

  const problems: string[] = [];
  const templates = new Map<string, LoadedTemplates>();
  for (const input of cases) {
    const name = String(input.testCase.template).replace(/\.mustache$/, '');
    if (templates.has(name)) continue;
    if (!name || /[/\\]/.test(name) || name.startsWith('.')) {
      problems.push(`${input.service.file}: ${input.pointer}/template: "${name}" is not a file name in templates/test`);
      continue;
    }
    try {
      templates.set(name, await loadTemplates(templateSet, [name], 'test'));
    } catch (err) {
      problems.push(`${input.service.file}: ${input.pointer}/template: ${(err as Error).message}`);
    }
  }
  const rendered: Array<{ file: string; text: string }> = [];
  for (const input of cases) {
    const { view, problems: found, warnings } = buildTestView(input);
    problems.push(...found);
    warnings.forEach((warning) => verbose(`warning: ${warning}`));
    const loaded = templates.get(String(input.testCase.template).replace(/\.mustache$/, ''));
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
  return { written, skipped };
}
