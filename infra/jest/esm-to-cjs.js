// jose 6 ships ES modules only. The built programs load it with Node's require(esm); jest's own module loader cannot,
// so its files are turned into CommonJS here (TypeScript's transpiler, no type check), once: jest caches the output.
const ts = require('typescript');
const { createHash } = require('node:crypto');

module.exports = {
  process(sourceText, sourcePath) {
    const { outputText } = ts.transpileModule(sourceText, {
      fileName: sourcePath,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    return { code: outputText };
  },
  getCacheKey(sourceText, sourcePath) {
    return createHash('sha256').update(`esm-to-cjs 1\0${ts.version}\0${sourcePath}\0${sourceText}`).digest('hex');
  },
};
