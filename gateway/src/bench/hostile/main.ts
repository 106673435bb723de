// `npm run bench:hostile`: one gateway (-u -w, reply checks enforced) fed each door's hostile cases in turn while a
// probe client keeps asking it for /-/health. Per door: the cases tried, crashes, NATS connections dropped, and the
// probes that waited longer than 100 ms (what every other client of the gateway would have waited). The tests assert
// that each case is refused or survived; how long anyone waited is measured here, where a busy machine shows as a
// figure rather than a failed test.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import {
  freePort,
  killChildrenOnExit,
  startChild,
  startNatsServer,
  waitUntil,
  type Child,
} from '@restbus/infra/testing';
import { sendHostileFrame } from './send-hostile-frame';
import { createHostileFrames } from './hostile-frames';
import { createHostileReplyBodies } from './hostile-reply-bodies';
import { probeStalls, type StallReport } from './probe-stalls';

const STALL_BOUND_MS = 100;
/** A stream WebSocket takes frames up to this (WS_MAX_PAYLOAD). */
const MAX_PAYLOAD = 4096;
const PLACEHOLDERS = 17;
const METRIC_FLOOD = Number(process.env.BENCH_METRIC_FLOOD ?? 3000);
const SUBJECT_CASES = Number(process.env.BENCH_SUBJECT_CASES ?? 200);
const gatewayMain = join(__dirname, '../../main.js');

const letters = 'abcdefghijklmnopq'.slice(0, PLACEHOLDERS).split('');
const json = (schema: object): object => ({ description: 'ok', content: { 'application/json': { schema } } });
const STREAM = { description: 'events', content: { 'text/event-stream': { itemSchema: { type: 'object' } } } };
const API = {
  openapi: '3.0.3',
  info: { title: 'hostile doors', version: '1', description: 'a stream, a long stream subject, checked replies' },
  paths: {
    '/plain': { get: { operationId: 'plain', description: 'plain', responses: { '200': json({ type: 'object' }) } } },
    '/feed': {
      get: {
        operationId: 'feed',
        description: 'a stream',
        'x-restbus-stream': { subject: 'feed.events' },
        responses: { '200': STREAM },
      },
    },
    [`/topics/${letters.map((l) => `{${l}}`).join('/')}`]: {
      get: {
        operationId: 'topics',
        description: 'a stream whose subject is as long as its parameters',
        parameters: letters.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        'x-restbus-stream': { subject: `t.${letters.map((l) => `{${l}}`).join('.')}` },
        responses: { '200': STREAM },
      },
    },
    '/checked/{n}': {
      get: {
        operationId: 'checked',
        description: 'a reply the gateway checks',
        parameters: [{ name: 'n', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          '200': json({
            type: 'object',
            required: ['items'],
            properties: {
              items: {
                type: 'array',
                uniqueItems: true,
                items: {
                  type: 'object',
                  required: ['id', 'name'],
                  properties: { id: { type: 'integer' }, name: { type: 'string', pattern: '^[a-z]+$' } },
                },
              },
            },
          }),
        },
      },
    },
  },
};

interface DoorResult {
  door: string;
  tried: number;
  crashes: number;
  natsDrops: number;
  stall: StallReport;
  extra?: string;
}

/** The gateway's log lines that say its NATS connection went (a subject past max_control_line drops it). */
const countNatsDrops = (output: string): number =>
  output.split('\n').filter((line) => /NATS link (lost|disconnected|closed)|reconnect/i.test(line)).length;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-hostile-'));
  killChildrenOnExit(() => undefined);
  const nats = await startNatsServer();
  const service = await connect({ servers: nats.url });
  const replies = createHostileReplyBodies();
  // The service of every operation: /checked/{n} answers hostile reply n, the rest answer a small object.
  service.subscribe('easer.>', {
    callback: (_err, msg) => {
      const n = /"n":"?(\d+)/.exec(new TextDecoder().decode(msg.data))?.[1];
      try {
        if (msg.subject.includes('checked') && n !== undefined) {
          const body = replies[Number(n) % replies.length].body;
          msg.respond(Buffer.concat([Buffer.from('{"status":200,"body":'), body, Buffer.from('}')]));
        } else msg.respond('{"status":200,"body":{"ok":true}}');
      } catch (err) {
        // A reply past NATS' max payload is a mistake of this bench's cases, not the gateway's: say which.
        process.stderr.write(`bench: reply ${n} could not be sent: ${String(err)}\n`);
      }
    },
  });
  await service.flush();
  await writeFile(join(dir, 'api.json'), JSON.stringify(API));
  const port = await freePort();
  // BENCH_NODE_ARGS gives the gateway Node flags (--cpu-prof, say, to see what a stalling door costs).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [...nodeArgs, gatewayMain, '-r', join(dir, 'api.json'), '-n', nats.url, '-p', String(port), '-u'];
  args.push('-w', '-i', 'news', '-o', 'up', '--validateReplies', 'enforce', '--log-format', 'json');
  const gateway: Child = startChild('restbus-gateway', process.execPath, args, dir);
  let log = '';
  gateway.process.stdout?.on('data', (chunk: Buffer) => (log += String(chunk)));
  const base = `http://127.0.0.1:${port}`;
  await waitUntil(gateway, async () => {
    const ready = (await (await fetch(`${base}/-/ready`)).json()) as { nats?: string };
    return ready.nats === 'connected';
  });
  const alive = (): boolean => gateway.process.exitCode === null && gateway.process.signalCode === null;
  const probe = (): Promise<unknown> => fetch(`${base}/-/health`).then((res) => res.arrayBuffer());
  const results: DoorResult[] = [];
  // BENCH_DOORS, a regular expression, runs only the doors whose names it matches.
  const only = new RegExp(process.env.BENCH_DOORS ?? '');
  const door = async (name: string, tried: number, work: () => Promise<string | void>): Promise<void> => {
    if (!only.test(name)) return;
    const dropsBefore = countNatsDrops(log);
    let extra: string | void = undefined;
    const stall = await probeStalls(
      probe,
      async () => {
        extra = await work();
      },
      STALL_BOUND_MS,
    );
    results.push({
      door: name,
      tried,
      crashes: alive() ? 0 : 1,
      natsDrops: countNatsDrops(log) - dropsBefore,
      stall,
      extra: extra ?? undefined,
    });
    if (!alive()) throw new Error(`the gateway died in the ${name} door:\n${gateway.output()}`);
  };

  const frames = createHostileFrames({ maxPayload: MAX_PAYLOAD });
  await door('stream WebSocket frames', frames.length, async () => {
    const closes = new Map<string, number>();
    for (const frame of frames) {
      const outcome = await sendHostileFrame(port, '/feed', frame);
      if (!outcome.upgraded) throw new Error(`the stream did not open for the case ${frame.kind}: ${outcome.head}`);
      const code = String(outcome.code ?? 'none');
      closes.set(code, (closes.get(code) ?? 0) + 1);
    }
    const codes = [...closes].map(([code, n]) => `${code}×${n}`).join(' ');
    return `closes ${codes}`;
  });

  // One row per kind of reply: a stall shows which shape of reply holds the loop.
  const rounds = Number(process.env.BENCH_REPLY_ROUNDS ?? 3);
  for (const [n, reply] of replies.entries()) {
    await door(`reply: ${reply.kind}`, rounds, async () => {
      const statuses = new Map<number, number>();
      for (let round = 0; round < rounds; round++) {
        const res = await fetch(`${base}/checked/${n}`);
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
      return `answers ${[...statuses].map(([status, count]) => `${status}×${count}`).join(' ')}`;
    });
  }

  const scrape = async (): Promise<{ bytes: number; ms: number }> => {
    const sent = performance.now();
    const text = await (await fetch(`${base}/-/metrics`)).text();
    return { bytes: Buffer.byteLength(text), ms: performance.now() - sent };
  };
  const before = await scrape();
  await door('metrics labels', METRIC_FLOOD, async () => {
    for (let i = 0; i < METRIC_FLOOD; i++) {
      const method = `M${i.toString(36).toUpperCase()}`;
      const path = i % 2 === 0 ? `/plain?i=${i}` : `/nowhere/${i}`;
      await fetch(`${base}${path}`, { method }).then(
        (res) => res.arrayBuffer(),
        () => undefined,
      );
    }
    const after = await scrape();
    return `/-/metrics ${before.bytes} → ${after.bytes} bytes, scraped in ${after.ms.toFixed(1)} ms`;
  });

  await door('stream subjects', SUBJECT_CASES, async () => {
    let refused = 0;
    for (let i = 0; i < SUBJECT_CASES; i++) {
      const token = `${i}`.padEnd(256, 'x');
      const res = await fetch(`${base}/topics/${letters.map(() => token).join('/')}`, {
        headers: { accept: 'text/event-stream' },
      });
      await res.arrayBuffer();
      if (res.status >= 400 && res.status < 500) refused++;
    }
    return `${refused} refused with a 4xx`;
  });

  gateway.process.kill('SIGTERM');
  await new Promise((resolve) => gateway.process.once('exit', resolve));
  await service.close();
  await nats.dispose();
  await rm(dir, { recursive: true, force: true });
  report(results);
}

function report(results: DoorResult[]): void {
  const [one] = loadavg();
  process.stdout.write(
    `\nrestbus-gateway hostile doors (load average ${one.toFixed(2)}, stall bound ${STALL_BOUND_MS} ms)\n\n`,
  );
  process.stdout.write(
    '| door | cases | crashes | NATS drops | probes | stalls > 100 ms | longest probe | verdict |\n',
  );
  process.stdout.write('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n');
  let failed = false;
  for (const r of results) {
    const ok = r.crashes === 0 && r.natsDrops === 0 && r.stall.stalls === 0;
    failed ||= !ok;
    process.stdout.write(
      `| ${r.door} | ${r.tried} | ${r.crashes} | ${r.natsDrops} | ${r.stall.probes} | ${r.stall.stalls} | ` +
        `${r.stall.maxMs.toFixed(1)} ms | ${ok ? 'PASS' : 'FAIL'} |\n`,
    );
  }
  for (const r of results) if (r.extra) process.stdout.write(`\n${r.door}: ${r.extra}`);
  process.stdout.write(`\n\nverdict: ${failed ? 'FAIL' : 'PASS'}\n`);
  if (failed) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:hostile failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
