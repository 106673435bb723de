// Runs a README block as a person would type it into one terminal: line by line, in the folder the last `cd` left,
// servers in the background until they say they are up.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '@restbus/infra/testing';
import { splitAndList, takeBackground, type ShellBlock } from './readme-blocks';

/** A command of a run block that is left out, and why. Matched against a whole command or one part of an `&&` list. */
export interface SkipCommand {
  command: RegExp;
  reason: string;
}

export interface RecipeOptions {
  /** Where the block starts, as the README's reader would stand there. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Text the README writes for something of the reader's (a folder, a server), and what the test uses instead. */
  replace: Array<[text: string, by: string]>;
  /**
   * The host ports the README names, and the port the test uses for each (so that a run never meets a stack the
   * developer has up); a port the block names that is not here yet gets a free one, and a server the block starts
   * gets fresh ones for the ports it listens on (the map then names those, for later commands and blocks).
   */
  ports: Map<number, number>;
  skipCommands?: SkipCommand[];
  /** Files the reader brings (`services.json`): copied into the folder of the command that names them, if missing. */
  userFiles?: Record<string, string>;
  /** How long one command may take (a server: until it is up). */
  timeoutMs?: number;
}

export interface RanCommand {
  /** As the README writes it. */
  written: string;
  /** As it ran: placeholders and ports replaced. */
  ran: string;
  line: number;
  stdout: string;
  stderr: string;
}

export interface RecipeRun {
  block: ShellBlock;
  ran: RanCommand[];
  skipped: Array<{ command: string; reason: string }>;
  /** Where the last `cd` left the reader. */
  cwd: string;
  /** What the first command matching `written` (as the README writes it) printed on stdout. */
  stdoutOf(written: RegExp): string;
  /** Stops the servers the block started (SIGTERM to each one's process group, SIGKILL after 10 s). */
  stop(): Promise<void>;
}

interface Server {
  /** What starts it, at the start of a command (after `npx`). */
  program: RegExp;
  /** The `msg`s of the JSON log lines it writes before it serves: each of them, in any order. */
  ready: Array<string | RegExp>;
  /**
   * Its port when the command names none, for a program on this machine's ports (not in a container): a number, or
   * the `servicePort` of the project it serves (config.yml in the folder, or in `--project <dir>`).
   */
  defaultPort?: number | 'servicePort';
}

/** The programs the READMEs start and leave running. */
const SERVERS: Server[] = [
  { program: /^node server\/server\b/, ready: ['serving'], defaultPort: 'servicePort' },
  { program: /^restbus-mock record\b/, ready: ['recording'], defaultPort: 'servicePort' },
  { program: /^restbus-mock\b/, ready: ['serving'], defaultPort: 'servicePort' },
  // A gateway told where NATS is (`-n`) listens before it reaches it, serving 503 meanwhile: the next command's call
  // waits for both, as a person typing it would have. One left to its default NATS may show what it does without.
  {
    program: /^restbus-gateway\b(?=.* -n )/,
    ready: ['gateway listening', /^connected to NATS at /],
    defaultPort: 3007,
  },
  { program: /^restbus-gateway\b/, ready: ['gateway listening'], defaultPort: 3007 },
  { program: /^(person-service|systems-service|node systems-service\/dist\/main\.js)\b/, ready: ['answering'] },
  // In a container, on the host port the command publishes.
  { program: /\/rest-tool-docker serve\b/, ready: ['serving'] },
  { program: /^docker(-| )compose\b.* run\b.* server\/server\b/, ready: ['serving'] },
];

const serverOf = (command: string): Server | undefined => {
  const program = command.replace(/^npx /, '');
  return SERVERS.find((server) => server.program.test(program));
};

function tail(text: string, length = 3000): string {
  return text.length > length ? `…${text.slice(-length)}` : text;
}

/** A top-level scalar of a project's config.yml, or undefined (no project there, or no such key). */
function readProjectSetting(folder: string, key: string): string | undefined {
  const file = join(folder, 'config.yml');
  if (!existsSync(file)) return undefined;
  return new RegExp(`^${key}:\\s*['"]?([^'"\\s#]+)`, 'm').exec(readFileSync(file, 'utf8'))?.[1];
}

/**
 * Replaces the reader's placeholders, and each README host port by the test's: after `localhost:` or `127.0.0.1:`
 * (both sides of a `-p` mapping) and after `--port`. A server on this machine that names no port gets the test's
 * port for its default one.
 */
function substitute(command: string, options: RecipeOptions, cwd: string, server?: Server): string {
  let text = command;
  for (const [from, to] of options.replace) text = text.split(from).join(to);
  const ours = (port: string): string => String(options.ports.get(Number(port)) ?? port);
  text = text
    .replace(/\b(localhost|127\.0\.0\.1):(\d+)(?::(\d+))?\b/g, (_all, host: string, port: string, inner?: string) =>
      inner ? `${host}:${ours(port)}:${ours(inner)}` : `${host}:${ours(port)}`,
    )
    .replace(/--port[ =](\d+)\b/g, (_all, port: string) => `--port ${ours(port)}`);
  const port = server && !/--port\b/.test(text) ? defaultPortOf(text, server, cwd) : undefined;
  if (port !== undefined) {
    if (!options.ports.has(port)) throw new Error(`the test has no port standing in for ${port}: \`${command}\``);
    text = `${text} --port ${ours(String(port))}`;
  }
  return text;
}

/** The port a server listens on when its command names none: its own default, or its project's servicePort. */
function defaultPortOf(command: string, server: Server, cwd: string): number | undefined {
  if (server.defaultPort !== 'servicePort') return server.defaultPort;
  const project = /--project[ =](\S+)/.exec(command)?.[1];
  return Number(readProjectSetting(project ? join(cwd, project) : cwd, 'servicePort') ?? 3007);
}

/**
 * The README ports a server command listens on: after `--port`, the host side of a `-p host:port:inner` mapping, or
 * its default. Ports it only calls (`-u nats://localhost:4222`, a proxy's target) are not among them.
 */
function listeningPorts(command: string, server: Server, cwd: string): number[] {
  const named = [
    ...[...command.matchAll(/--port[ =](\d+)\b/g)].map((match) => Number(match[1])),
    ...[...command.matchAll(/\b(?:localhost|127\.0\.0\.1):(\d+):\d+\b/g)].map((match) => Number(match[1])),
  ];
  const port = named.length === 0 ? defaultPortOf(command, server, cwd) : undefined;
  return port === undefined ? named : [port];
}

/** What a server prints when another program holds its port (restbus's PORT_UNAVAILABLE, Docker's, Node's). */
const PORT_TAKEN = /already in use|already allocated|EADDRINUSE/i;
/** How often a server starts on fresh ports after another program took the ones picked for it. */
const PORT_ATTEMPTS = 3;

/**
 * Starts a server on ports picked as it starts, not when the suite began: a port picked minutes before may have been
 * taken since by another suite's server or an outgoing connection. If one is taken between the pick and the bind,
 * it starts again on fresh ones. Later commands name the ports it got.
 */
async function startOnFreshPorts(
  written: string,
  server: Server,
  cwd: string,
  options: RecipeOptions,
): Promise<{ command: string; child: ChildProcess }> {
  let text = written;
  for (const [from, to] of options.replace) text = text.split(from).join(to);
  for (let attempt = 1; ; attempt += 1) {
    for (const port of listeningPorts(text, server, cwd)) {
      if (options.ports.has(port)) options.ports.set(port, await freePort());
    }
    const command = substitute(written, options, cwd, server);
    try {
      return { command, child: (await startServer(command, server, cwd, options)).child };
    } catch (err) {
      if (attempt >= PORT_ATTEMPTS || !PORT_TAKEN.test((err as Error).message)) {
        throw new Error(`run as \`${command}\` in ${cwd}, ${(err as Error).message}`);
      }
    }
  }
}

/** Every host port the block names gets a free port of the test's; a placeholder's port is the stand-in's own. */
async function reservePorts(block: ShellBlock, options: RecipeOptions): Promise<void> {
  for (const { command, comment } of block.commands) {
    let text = `${command} ${comment}`;
    for (const [from] of options.replace) text = text.split(from).join(' ');
    const named = [...text.matchAll(/\b(?:localhost|127\.0\.0\.1):(\d+)(?::(\d+))?\b|--port[ =](\d+)\b/g)];
    for (const port of named
      .flatMap((match) => match.slice(1))
      .filter(Boolean)
      .map(Number)) {
      if (port >= 1024 && !options.ports.has(port)) options.ports.set(port, await freePort());
    }
  }
}

/**
 * The generated tests of the project in `cwd` call its baseUrl; where it names a README port, API_BASE_URL (which
 * they read) names the test's port instead.
 */
function projectEnvironment(cwd: string, options: RecipeOptions): NodeJS.ProcessEnv {
  const baseUrl = readProjectSetting(cwd, 'baseUrl');
  const port = baseUrl && /^https?:\/\/(localhost|127\.0\.0\.1):(\d+)\//.exec(baseUrl)?.[2];
  const ours = port && options.ports.get(Number(port));
  return ours && !options.env.API_BASE_URL ? { API_BASE_URL: baseUrl.replace(`:${port}/`, `:${ours}/`) } : {};
}

function placeUserFiles(command: string, cwd: string, options: RecipeOptions): void {
  for (const [name, source] of Object.entries(options.userFiles ?? {})) {
    if (new RegExp(`(^|\\s)${name.replace('.', '\\.')}(\\s|$)`).test(command) && !existsSync(join(cwd, name))) {
      copyFileSync(source, join(cwd, name));
    }
  }
}

/** Runs a command to its end in `cwd`; resolves with its output and the folder it ended in. */
function runToEnd(
  command: string,
  cwd: string,
  options: RecipeOptions,
): Promise<{ stdout: string; stderr: string; cwd: string }> {
  // The exit status is the command's own, also when a part of an && list fails; fd 3 carries the folder it ended in.
  const script = `set -o pipefail\n${command}\nstatus=$?\npwd >&3\nexit $status\n`;
  const child = spawn('bash', ['-c', script], {
    cwd,
    env: { ...options.env, ...projectEnvironment(cwd, options), PWD: cwd },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  let ended = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (ended += chunk.toString()));
  const timeoutMs = options.timeoutMs ?? 240_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr, cwd: ended.trim() || cwd });
      else {
        const why = signal ? `was stopped after ${timeoutMs / 1000} s` : `exited with ${code}`;
        reject(new Error(`${why} in ${cwd}:\n${tail(stderr)}${tail(stdout)}`));
      }
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** Starts a server in its own process group and resolves once it logs `ready`. */
function startServer(
  command: string,
  server: Server,
  cwd: string,
  options: RecipeOptions,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn('bash', ['-c', command], {
    cwd,
    env: { ...options.env, ...projectEnvironment(cwd, options), PWD: cwd },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (text: string): void => {
    output = (output + text).slice(-20_000);
  };
  const timeoutMs = options.timeoutMs ?? 120_000;
  const awaited = new Set(server.ready);
  const readyText = server.ready.map((want) => (typeof want === 'string' ? `"${want}"` : String(want))).join(' and ');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      reject(new Error(`did not log ${readyText} within ${timeoutMs / 1000} s:\n${tail(output)}`));
    }, timeoutMs);
    const onLine = (text: string): void => {
      keep(`${text}\n`);
      let msg: unknown;
      try {
        msg = (JSON.parse(text) as { msg?: unknown }).msg;
      } catch {
        return; // not a log line
      }
      if (typeof msg !== 'string') return;
      for (const want of awaited) if (typeof want === 'string' ? msg === want : want.test(msg)) awaited.delete(want);
      if (awaited.size === 0) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code ?? signal}) before it logged ${readyText}:\n${tail(output)}`));
    });
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Runs the block's commands in order. A command ending in `&`, or whose last part starts a known server, starts in
 * the background: the parts before it run first (so a `cd` in them holds), and the next command waits until the
 * server logs that it serves. A comment `# then: <command>` is the reader's next command, run right after.
 */
export async function runRecipe(block: ShellBlock, options: RecipeOptions): Promise<RecipeRun> {
  await reservePorts(block, options);
  const ran: RanCommand[] = [];
  const skipped: RecipeRun['skipped'] = [];
  const servers: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map(stopServer));
  };
  let cwd = options.cwd;
  const queue = [...block.commands];
  try {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const then = /^then: (.+)$/.exec(next.comment);
      if (then) queue.unshift({ command: then[1].trim(), comment: '', line: next.line });
      const { command: written, background } = takeBackground(next.command);
      const parts = splitAndList(written).filter((part) => {
        const skip = options.skipCommands?.find((rule) => rule.command.test(part));
        if (skip) skipped.push({ command: part, reason: skip.reason });
        return !skip;
      });
      if (parts.length === 0) continue;
      const last = parts[parts.length - 1];
      const server = serverOf(last);
      if (background && !server) throw new Error(`runs \`${last}\` in the background, and the test knows no server so`);
      const before = server ? parts.slice(0, -1) : parts;
      const where = `${block.readme}:${next.line} \`${written}\``;
      placeUserFiles(written, cwd, options);
      const record: RanCommand = { written, ran: '', line: next.line, stdout: '', stderr: '' };
      ran.push(record);
      if (before.length > 0) {
        record.ran = substitute(before.join(' && '), options, cwd);
        const done = await runToEnd(record.ran, cwd, options).catch((err: Error) => {
          throw new Error(`${where}, run as \`${record.ran}\`, ${err.message}`);
        });
        Object.assign(record, { stdout: done.stdout, stderr: done.stderr });
        cwd = done.cwd;
      }
      if (server) {
        const started = await startOnFreshPorts(last, server, cwd, options).catch((err: Error) => {
          throw new Error(`${where}, ${err.message}`);
        });
        record.ran = record.ran ? `${record.ran} && ${started.command}` : started.command;
        servers.push(started.child);
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    block,
    ran,
    skipped,
    cwd,
    stdoutOf: (pattern) => {
      const found = ran.find((command) => pattern.test(command.written));
      if (!found) throw new Error(`${block.readme}:${block.line}: no command matching ${pattern} ran`);
      return found.stdout;
    },
    stop,
  };
}
