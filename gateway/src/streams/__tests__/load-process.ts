import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import type { LoadCommand, LoadReply } from './sse-load-clients';

export interface LoadProcess {
  readonly child: ChildProcess;
  /** Sends a command and resolves with the child's reply of type `expect`. */
  ask<T extends LoadReply['type']>(command: LoadCommand, expect: T): Promise<Extract<LoadReply, { type: T }>>;
  tell(command: LoadCommand): void;
  stop(): Promise<void>;
}

/** Forks sse-load-clients.ts (transpiled into `dir`: it uses Node's built-ins only) as a process of its own. */
export async function startLoadProcess(dir: string): Promise<LoadProcess> {
  const source = await readFile(join(__dirname, 'sse-load-clients.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  });
  const file = join(dir, 'sse-load-clients.js');
  await writeFile(file, outputText);
  const child = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    child,
    ask(command, expect) {
      return new Promise((done, fail) => {
        const onMessage = (reply: LoadReply): void => {
          if (reply.type !== expect) return;
          child.off('message', onMessage);
          child.off('exit', onExit);
          done(reply as Extract<LoadReply, { type: typeof expect }>);
        };
        const onExit = (code: number | null): void => fail(new Error(`the load process exited (${code})`));
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send(command);
      });
    },
    tell: (command) => child.send(command),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}
