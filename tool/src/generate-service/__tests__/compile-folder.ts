import ts from 'typescript';

/** One compiler error: the file (relative to the folder) and the message. */
export interface CompileError {
  file: string;
  message: string;
}

/**
 * Type-checks a TypeScript project folder by its tsconfig.json, as `tsc -p <dir> --noEmit` would, and returns its
 * errors. For the generator's tests.
 */
export function compileFolder(dir: string): CompileError[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${dir}/tsconfig.json`,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`${dir}/tsconfig.json cannot be read`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ({
    file: diagnostic.file ? diagnostic.file.fileName.slice(dir.length + 1) : '',
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  }));
}
