import { spawn } from 'node:child_process';
import { RestbusError } from '@restbus/infra';
import { convertObj } from 'swagger2openapi';
import { hoistRefTargets } from './hoist-ref-targets';
import { toFetchFreeDocument } from './to-fetch-free-document';

/**
 * openapi-typescript's postTransform hook (run on each schema's type): in an object type that declares a property
 * twice, only the last declaration is kept. openapi-typescript adds a subtype's discriminator property from its
 * parent's mapping even when the subtype declares the property itself (apple.com's sirikit-cloud-media, `class`),
 * a duplicate identifier under strict; the subtype's own declaration, last, is what the document says.
 */
const DEDUPE_PROPERTIES = `
const nameOf = (member) => (ts.isPropertySignature(member) && member.name && 'text' in member.name ? member.name.text : undefined);
function dedupeProperties(type) {
  const [fixed] = ts.transform(type, [
    (context) => (root) => {
      const visit = (node) => {
        const visited = ts.visitEachChild(node, visit, context);
        if (!ts.isTypeLiteralNode(visited)) return visited;
        const last = new Map(visited.members.map((member, at) => [nameOf(member), at]));
        const members = visited.members.filter((member, at) => nameOf(member) === undefined || last.get(nameOf(member)) === at);
        return members.length === visited.members.length ? visited : context.factory.updateTypeLiteralNode(visited, context.factory.createNodeArray(members));
      };
      return ts.visitNode(root, visit);
    },
  ]).transformed;
  return fixed;
}
`;

/**
 * The printed types carry the document's texts only as string literals: every property name (a schema's, a
 * property's, an operationId) is quoted, and no comment is printed (openapi-typescript writes descriptions,
 * examples and defaults into JSDoc, where a line separator or a closing star-slash ends the comment).
 */
const QUOTE_PROPERTY_NAMES = `
function quotePropertyNames(root) {
  const [quoted] = ts.transform(root, [
    (context) => (node) => {
      const visit = (child) => {
        const visited = ts.visitEachChild(child, visit, context);
        if (!ts.isPropertySignature(visited) || !ts.isIdentifier(visited.name)) return visited;
        const name = context.factory.createStringLiteral(visited.name.text);
        return context.factory.updatePropertySignature(visited, visited.modifiers, name, visited.questionToken, visited.type);
      };
      return ts.visitNode(node, visit);
    },
  ]).transformed;
  return quoted;
}
`;

/**
 * openapi-typescript 7 is ESM inside (its CommonJS build requires ESM-only packages), and the tool is CommonJS:
 * a child node imports it as ESM, reads the document as JSON on stdin and writes the TypeScript on stdout. A child
 * rather than a dynamic import() hidden from TypeScript, which jest's module system cannot run.
 */
const RENDER = `
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
${DEDUPE_PROPERTIES}
let text = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) text += chunk;
const ast = await openapiTS(JSON.parse(text), { silent: true, postTransform: dedupeProperties });
${QUOTE_PROPERTY_NAMES}
process.stdout.write(astToString(ast.map(quotePropertyNames), { formatOptions: { removeComments: true } }));
`;

function runRender(document: object): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', RENDER], {
      cwd: __dirname, // where `openapi-typescript` resolves from
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else {
        const lines = Buffer.concat(err).toString('utf8').trim().split('\n');
        const reason = lines.find((line) => /Error/.test(line)) ?? lines[0] ?? `exit ${code}`;
        reject(new RestbusError('OPENAPI_INVALID', `openapi-typescript cannot type the document: ${reason.trim()}`));
      }
    });
    child.stdin.end(JSON.stringify(document));
  });
}

/**
 * The TypeScript of a document's schemas, parameters, bodies and responses, as openapi-typescript writes it
 * (`paths`, `components`, `operations`), from a document in which nothing is left to fetch or read
 * (toFetchFreeDocument). openapi-typescript reads OpenAPI 3.0 and 3.1; a Swagger 2.0 document is
 * converted to 3.0 by swagger2openapi first (its paths and methods stay as they are, so `paths[path][method]`
 * still names each operation).
 */
export async function renderTypes(document: Record<string, unknown>): Promise<string> {
  if (document.swagger !== '2.0') return runRender(toFetchFreeDocument(hoistRefTargets(document)));
  // A copy through JSON (toFetchFreeDocument's): the dereferenced document shares objects, which swagger2openapi
  // refuses as YAML anchors. swagger2openapi resolves nothing outside the document unless asked (`resolve`).
  const copy = toFetchFreeDocument(document);
  const converted = await convertObj(copy, { patch: true, warnOnly: true });
  return runRender(toFetchFreeDocument(hoistRefTargets(converted.openapi)));
}
