import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';

/**
 * How many JSON schemas ajv compiles while a built module loads, in a fresh Node: counted, not timed (issue 45). A
 * module that compiles its checks when it loads makes every process that loads it pay, used or not.
 */
export function countLoadCompiles(builtModule: string): number {
  const script = [
    // Every Ajv class (draft-07, 2020-12, draft-04) compiles through the core class's compile.
    "const core = require('ajv/dist/core').default;",
    'let compiles = 0;',
    'const compile = core.prototype.compile;',
    'core.prototype.compile = function (...args) { compiles++; return compile.apply(this, args); };',
    `require(${JSON.stringify(builtModule)});`,
    'process.stdout.write(String(compiles));',
  ].join('\n');
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: dirname(builtModule) }));
}
