import { RestbusError } from '@restbus/infra';
import { readProjectConfig } from '../project/project-config';
import { readExistingRoutes } from './read-existing-routes';
import { planService, type PlanContext, type PlannedService } from './plan-service';
import { writeServices } from './write-services';
import type { ServiceSpec } from './service-spec';

export interface AddServicesOptions {
  cwd: string;
  /** The project's config.yml, relative to cwd. */
  configFile: string;
  specs: readonly ServiceSpec[];
  /** A prefix per spec for its problems, e.g. `bulk.json:3: /0: ` (none for a single add). */
  labels?: readonly string[];
  /** The position of each spec in its file, to list the problems in file order (add-bulk). */
  order?: readonly number[];
  /** Problems found before (an add-bulk file's malformed entries): reported with the others, and nothing is added. */
  problems?: ReadonlyArray<{ order: number; text: string }>;
  verbose?: (line: string) => void;
  /** How the user gives a service's path, for the hints (default `-p/--path`). */
  pathOption?: string;
}

/** Checks every service first and writes them only when all of them can be added (all or nothing). */
export async function addServices(options: AddServicesOptions): Promise<PlannedService[]> {
  const config = await readProjectConfig(options.cwd, options.configFile);
  const context: PlanContext = {
    config,
    routes: await readExistingRoutes(config),
    planned: [],
    plannedFiles: new Set(),
    pathOption: options.pathOption,
  };
  const problems = [...(options.problems ?? [])];
  const planned: PlannedService[] = [];
  for (const [index, spec] of options.specs.entries()) {
    const result = await planService(spec, context, options.labels?.[index]);
    const order = options.order?.[index] ?? index;
    if ('problems' in result) problems.push(...result.problems.map((text) => ({ order, text })));
    else planned.push(result.planned);
  }
  if (problems.length) {
    // Array.prototype.sort is stable: an entry's problems keep the order they were found in.
    const lines = problems.sort((a, b) => a.order - b.order).map((problem) => problem.text);
    throw new RestbusError('BAD_REQUEST', `${lines.join('\n')}\nnothing was added`);
  }
  await writeServices(config, planned, options.verbose);
  return planned;
}
