export type Verbose = (line: string) => void;

/** The generators of the docs and test commands (passed in: main.ts is the one place that wires modules together). */
export interface Generators {
  generateDocs(options: {
    projectDir: string;
    configFile?: string;
    verbose?: Verbose;
    force?: boolean;
  }): Promise<{ written: number; warnings: string[] }>;
  generateTests(options: {
    projectDir: string;
    configFile?: string;
    verbose?: Verbose;
  }): Promise<{ written: string[]; skipped: string[]; warnings: string[]; baseUrl: string }>;
}

export interface ProgramDeps extends Generators {
  version: string;
  cwd: string;
  /** The process environment (RESTBUS_TOOL_CONTAINER=1: the tool runs in its container image). */
  env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
}
