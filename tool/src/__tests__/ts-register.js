// `node -r <this file> tool/src/main.ts …` runs the TypeScript sources the way jest does (no build first), for the
// tests that need a real process: exit codes, stderr, no stack traces.
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..', '..', '..');
const aliases = {
  '@restbus/infra': 'infra/runtime/src/index.ts',
  '@restbus/infra/testing': 'infra/runtime/src/testing/index.ts',
  '@restbus/project-format': 'infra/project-format/src/index.ts',
  '@restbus/mock-server': 'mock-server/src/index.ts',
  '@restbus/mock-server/check': 'mock-server/src/check.ts',
};

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return aliases[request] ? path.join(root, aliases[request]) : resolveFilename.call(this, request, ...rest);
};

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  resolveJsonModule: true,
};
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  module._compile(ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText, filename);
};
