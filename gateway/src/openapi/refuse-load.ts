import { RestbusError } from '@restbus/infra';
import { formatDiagnostic, formatPath, type Diagnostic, type SourceLocator } from '@restbus/openapi';

/** Something a load cannot apply, where it is written: the file and the path to the member in it. */
export interface LoadProblem {
  file: string;
  pointer: Array<string | number>;
  message: string;
}

/** Each problem as a diagnostic, at the line and column of its member. */
export function locateProblems(problems: readonly LoadProblem[], locate: SourceLocator): Promise<Diagnostic[]> {
  return Promise.all(
    problems.map(async ({ file, pointer, message }): Promise<Diagnostic> => ({
      severity: 'error',
      file,
      ...(await locate(file, pointer)),
      path: formatPath(pointer),
      message,
    })),
  );
}

/**
 * The load error for problems a step found in the API (a scheme it cannot verify, a limit it cannot apply): each
 * placed at its file, line and member, under `heading`, and kept as diagnostics in the error's details.
 */
export async function refuseLoad(
  heading: string,
  problems: readonly LoadProblem[],
  locate: SourceLocator,
): Promise<RestbusError> {
  const lines = await locateProblems(problems, locate);
  return new RestbusError('OPENAPI_INVALID', `${heading}:\n${lines.map(formatDiagnostic).join('\n')}`, {
    details: { diagnostics: lines },
  });
}
