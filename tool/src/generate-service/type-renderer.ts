import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Socket } from 'node:net';
import { isJsonObject, RestbusError } from '@restbus/infra';

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
 * The child's program. openapi-typescript 7 is ESM inside (its CommonJS build requires ESM-only packages), and the
 * tool is CommonJS: a child node imports it as ESM (a dynamic import() hidden from TypeScript is one jest's module
 * system cannot run). It reads one request per line, `{"id", "document"}`, and writes one answer per line, `{"id",
 * "text"}` or `{"id", "error"}`, in order.
 */
const RENDER_LOOP = `
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { createInterface } from 'node:readline';
${DEDUPE_PROPERTIES}
${QUOTE_PROPERTY_NAMES}
async function render(document) {
  const ast = await openapiTS(document, { silent: true, postTransform: dedupeProperties });
  return astToString(ast.map(quotePropertyNames), { formatOptions: { removeComments: true } });
}
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const { id, document } = JSON.parse(line);
  const answer = await render(document).then(
    (text) => ({ id, text }),
    (err) => ({ id, error: String(err).split('\\n').find((part) => part.trim() !== '') ?? 'no reason given' }),
  );
  process.stdout.write(JSON.stringify(answer) + '\\n');
}
`;

// How long the child waits for another document after the last answer before it is let go.
const IDLE_MS = 1000;
// The end of the child's stderr kept to name why it died: where node prints an uncaught error.
const STDERR_KEEP = 64 * 1024;
const NEWLINE = 0x0a;

interface Pending {
  resolve(text: string): void;
  reject(err: Error): void;
}

interface Answer {
  id: number;
  text?: string;
  error?: string;
}

export interface TypeRendererOptions {
  /** How long the child waits for another document after the last answer (1 s). */
  idleMs?: number;
  /** The child's ES module program: openapi-typescript's loop, or a test's stand-in speaking the same lines. */
  program?: string;
  /** Called with each child started. */
  onStart?: (child: ChildProcessWithoutNullStreams) => void;
}

const cannotType = (reason: string): RestbusError =>
  new RestbusError('OPENAPI_INVALID', `openapi-typescript cannot type the document: ${reason.trim()}`);

/**
 * openapi-typescript in a child process that renders one document after another: the child loads openapi-typescript
 * and the TypeScript compiler once (2 s of CPU), not once per document. It is started at the first render and let go
 * after a second without one; while nothing is asked of it, it does not keep the process alive. A child that dies
 * (a document that exhausts it) fails the renders it had, and the next render starts another.
 */
export class TypeRenderer {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** The answer line being read, in the chunks it came in. */
  private partial: Buffer[] = [];
  private stderr = '';
  private idle: NodeJS.Timeout | undefined;

  private readonly idleMs: number;
  private readonly program: string;
  private readonly onStart: (child: ChildProcessWithoutNullStreams) => void;

  constructor(options: TypeRendererOptions = {}) {
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.program = options.program ?? RENDER_LOOP;
    this.onStart = options.onStart ?? (() => undefined);
  }

  /** The TypeScript openapi-typescript writes for `document`; rejects with OPENAPI_INVALID when it cannot. */
  render(document: object): Promise<string> {
    const child = this.child ?? this.start();
    const id = this.nextId++;
    const answer = new Promise<string>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    clearTimeout(this.idle);
    setHeld(child, true);
    child.stdin.write(`${JSON.stringify({ id, document })}\n`);
    return answer;
  }

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn(process.execPath, ['--input-type=module', '-e', this.program], {
      cwd: __dirname, // where `openapi-typescript` resolves from
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.partial = [];
    this.stderr = '';
    this.onStart(child);
    child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    // A write to a child that has died fails here; its renders are failed when it closes.
    child.stdin.on('error', () => undefined);
    child.on('error', (err) => this.end(child, err.message));
    child.on('close', (code) => {
      const lines = this.stderr.trim().split('\n');
      this.end(child, lines.find((line) => /Error/.test(line)) ?? lines[0] ?? `exit ${code}`);
    });
    return child;
  }

  /** Splits the child's output into answer lines; each line is one answer. */
  private read(chunk: Buffer): void {
    let rest = chunk;
    for (let at = rest.indexOf(NEWLINE); at !== -1; at = rest.indexOf(NEWLINE)) {
      this.partial.push(rest.subarray(0, at));
      const line = Buffer.concat(this.partial).toString('utf8');
      this.partial = [];
      rest = rest.subarray(at + 1);
      const answer = parseAnswer(line);
      if (answer) this.settle(answer);
    }
    if (rest.length > 0) this.partial.push(rest);
  }

  private settle({ id, text, error }: Answer): void {
    const waiting = this.pending.get(id);
    this.pending.delete(id);
    if (text !== undefined) waiting?.resolve(text);
    else waiting?.reject(cannotType(error ?? 'no reason given'));
    if (this.pending.size === 0 && this.child) this.rest(this.child);
  }

  /** Nothing is asked: the process may exit, and after a while the child is let go (it ends with its input). */
  private rest(child: ChildProcessWithoutNullStreams): void {
    setHeld(child, false);
    // One timer at a time: an answer for nobody after the last one comes here again.
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      // Let go before it ends: a render asked from now on starts another child instead of writing to a closing one.
      if (this.child === child) this.child = undefined;
      child.stdin.end();
    }, this.idleMs);
    this.idle.unref();
  }

  private end(child: ChildProcessWithoutNullStreams, reason: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    clearTimeout(this.idle);
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const waiting of failed) waiting.reject(cannotType(reason));
  }
}

/** An answer line of the child; undefined for any other line (a library that prints despite `silent`). */
function parseAnswer(line: string): Answer | undefined {
  try {
    const answer: unknown = JSON.parse(line);
    if (!isJsonObject(answer) || typeof answer.id !== 'number') return undefined;
    const { id, text, error } = answer;
    return {
      id,
      ...(typeof text === 'string' && { text }),
      ...(typeof error === 'string' && { error }),
    };
  } catch {
    return undefined;
  }
}

/** Whether the child and its pipes keep this process alive: only while a render waits for its answer. */
function setHeld(child: ChildProcessWithoutNullStreams, held: boolean): void {
  // The child's pipes (stdio 'pipe') are sockets, each holding the process as the child does.
  const pipes = [child.stdin, child.stdout, child.stderr].filter((pipe) => pipe instanceof Socket);
  for (const handle of [child, ...pipes]) {
    if (held) handle.ref();
    else handle.unref();
  }
}
