import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { TypeRenderer } from './type-renderer';

/** A small document openapi-typescript types: one schema named `name`. */
const documentWith = (name: string): object => ({
  openapi: '3.0.3',
  info: { title: name, version: '1' },
  paths: {},
  components: { schemas: { [name]: { type: 'object', properties: { id: { type: 'string' } } } } },
});

/** A stand-in for openapi-typescript speaking the renderer's lines; `answer` is the body of its loop. */
const standIn = (answer: string): string => `
import { createInterface } from 'node:readline';
const write = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const { id, document } = JSON.parse(line);
  ${answer}
}
`;

describe('TypeRenderer', () => {
  const started: ChildProcessWithoutNullStreams[] = [];
  const onStart = (child: ChildProcessWithoutNullStreams): void => {
    started.push(child);
  };
  afterEach(() => {
    for (const child of started.splice(0)) child.kill('SIGKILL');
  });

  it('types several documents, one after another and side by side, with one openapi-typescript child', async () => {
    const renderer = new TypeRenderer({ onStart });
    const first = await renderer.render(documentWith('First'));
    const [second, third] = await Promise.all([
      renderer.render(documentWith('Second')),
      renderer.render(documentWith('Third')),
    ]);
    expect(first).toContain('"First": {');
    expect(second).toContain('"Second": {');
    expect(second).not.toContain('Third');
    expect(third).toContain('"Third": {');
    expect(started).toHaveLength(1);
  });

  it('fails a document openapi-typescript cannot type with OPENAPI_INVALID and its reason, and types the next', async () => {
    const renderer = new TypeRenderer({ onStart });
    await expect(renderer.render({ openapi: '3.0.3', paths: { '/x': { get: 7 } } })).rejects.toMatchObject({
      code: 'OPENAPI_INVALID',
      message: expect.stringMatching(/^openapi-typescript cannot type the document: \S/),
    });
    expect(await renderer.render(documentWith('After'))).toContain('"After": {');
    expect(started).toHaveLength(1);
  });

  it('gives each render its own answer when the child answers out of order, and skips lines that are not answers', async () => {
    const program = standIn(`
      console.log('a library printing despite silent');
      write({ note: 'not an answer' });
      write({ id: 999, text: 'an answer nobody asked for' });
      setTimeout(() => write({ id, text: 'typed ' + document.name }), document.delay);
    `);
    const renderer = new TypeRenderer({ onStart, program });
    const answers = await Promise.all([
      renderer.render({ name: 'slow', delay: 200 }),
      renderer.render({ name: 'fast', delay: 0 }),
    ]);
    expect(answers).toEqual(['typed slow', 'typed fast']);
  });

  it('reads an answer that arrives in many chunks, and two answers in one', async () => {
    const program = standIn(`
      const text = document.name.repeat(document.times);
      const answer = JSON.stringify({ id, text }) + '\\n';
      // The answer to the request after this one comes in the same write; that request's own answer is then ignored.
      if (document.times === 1) process.stdout.write(answer + JSON.stringify({ id: id + 1, text: text + '!' }) + '\\n');
      else for (let at = 0; at < answer.length; at += 1000) process.stdout.write(answer.slice(at, at + 1000));
    `);
    const renderer = new TypeRenderer({ onStart, program });
    expect(await renderer.render({ name: 'ab', times: 300_000 })).toBe('ab'.repeat(300_000));
    const [one, two] = await Promise.all([
      renderer.render({ name: 'x', times: 1 }),
      renderer.render({ name: 'unused', times: 0 }),
    ]);
    expect(one).toBe('x');
    expect(two).toBe('x!');
  });

  it('fails the renders of a child that dies with the reason it printed, and starts another for the next', async () => {
    const program = standIn(`
      if (document.die) { console.error('RangeError: Maximum call stack size exceeded'); process.exit(3); }
      write({ id, text: 'typed' });
    `);
    const renderer = new TypeRenderer({ onStart, program });
    await expect(renderer.render({ die: true })).rejects.toMatchObject({
      code: 'OPENAPI_INVALID',
      message: 'openapi-typescript cannot type the document: RangeError: Maximum call stack size exceeded',
    });
    expect(await renderer.render({ die: false })).toBe('typed');
    expect(started).toHaveLength(2);
  });

  it('fails a render whose child is killed while it waits', async () => {
    const program = standIn(`/* never answers */`);
    const renderer = new TypeRenderer({ onStart, program });
    const render = renderer.render({});
    started[0].kill('SIGKILL');
    await expect(render).rejects.toMatchObject({ code: 'OPENAPI_INVALID' });
  });

  it('lets its child go after it idled, and starts another for a later render', async () => {
    const program = standIn(`write({ id, text: 'typed' });`);
    const renderer = new TypeRenderer({ onStart, program, idleMs: 10 });
    expect(await renderer.render({})).toBe('typed');
    const [code] = (await once(started[0], 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(await renderer.render({})).toBe('typed');
    expect(started).toHaveLength(2);
  });

  it('keeps one idle timer only: an answer for nobody after the last answer does not let the child go early', async () => {
    // Each answer comes with one for nobody in the same write. On jest's clock: render at 0 and at 500, then at 1100,
    // before the idle time after the second render's answer (1500) is up: the same child answers all three.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const program = standIn(
        `process.stdout.write(JSON.stringify({ id, text: 'typed' }) + '\\n' + JSON.stringify({ id: 999, text: 'nobody' }) + '\\n');`,
      );
      const renderer = new TypeRenderer({ onStart, program, idleMs: 1000 });
      expect(await renderer.render({})).toBe('typed');
      jest.advanceTimersByTime(500);
      expect(await renderer.render({})).toBe('typed');
      jest.advanceTimersByTime(600);
      expect(await renderer.render({})).toBe('typed');
      expect(started).toHaveLength(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('does not keep a process alive once its renders are answered, even with a long idle time', async () => {
    // A process that renders once with a ten-minute idle time, then has nothing left to do: it must exit by itself.
    const built = join(__dirname, '..', '..', 'dist', 'generate-service', 'type-renderer.js');
    const script = `
      const { TypeRenderer } = require(${JSON.stringify(built)});
      new TypeRenderer({ idleMs: 600000, program: ${JSON.stringify(standIn(`write({ id, text: 'typed' });`))} })
        .render({}).then((text) => console.log(text));
    `;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const hang = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(hang);
    expect({ code, signal, output }).toEqual({ code: 0, signal: null, output: 'typed\n' });
  });
});
