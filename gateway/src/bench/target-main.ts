// Entry of the benchmark's child processes: `node target-main.js <kind> <natsUrl> [...]`. Each kind starts one
// thing, reports over IPC, and answers { memory } requests. Only the benchmark runs this file. The gateway is
// `gateway <natsUrl> <api file> [-u] [-m] [-l <level>]`, its flags as on its command line.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createLogger } from '@restbus/infra';
import { measureRawNats, startHelloResponder } from '@restbus/infra/testing';
import { startGateway } from '../app/start-gateway';
import type { GatewayConfig } from '../config';
import { startExpressForwarder } from './express-forwarder';
import { startMoleculerResponder, startMoleculerWeb } from './moleculer-peer';
import { startPlainForwarder } from './plain-forwarder';
import { startStaticAnswerer } from './static-answerer';
import { PET } from './write-bench-api';

const [kind, natsUrl, ...rest] = process.argv.slice(2);
const send = (message: unknown): void => {
  process.send?.(message);
};
process.on('message', (message: { cmd?: string }) => {
  if (message.cmd !== 'memory') return;
  const { rss } = process.memoryUsage();
  // With --expose-gc: what the heap holds once the garbage is gone (RSS alone varies by tens of MB between runs of
  // the same code, with how much garbage the last seconds of load left and how much of it the allocator kept).
  (globalThis as { gc?: () => void }).gc?.();
  send({ rss, heapUsed: process.memoryUsage().heapUsed });
});

/**
 * The gateway's settings for `flags` (`-u` forwards, `-m` mocks, both is hybrid mode; `-l` the log level, `info` by
 * default as on the command line), as loadConfig fills them.
 */
function gatewayConfig(api: string, flags: string[]): GatewayConfig {
  const level = flags.indexOf('-l');
  return {
    restApiPath: [api],
    port: 0,
    natsUri: natsUrl,
    topicPrefix: 'easer',
    inboxPrefix: '_INBOX',
    useMessaging: flags.includes('-u'),
    enableMocking: flags.includes('-m'),
    timeout: 2000,
    basePath: '/',
    bodyLimit: 512 * 1024,
    logLevel: level < 0 ? 'info' : flags[level + 1],
    validate: false,
    validateReplies: 'off',
    validateRepliesSample: 1,
  };
}

async function start(): Promise<void> {
  let server: Server | undefined;
  switch (kind) {
    case 'responder':
      await startHelloResponder(natsUrl, rest[0] ?? 'easer.>');
      send({ ready: true });
      return;
    case 'raw':
      send({ result: await measureRawNats(natsUrl, 'easer.get_/hello', Number(rest[0]), Number(rest[1])) });
      process.exit(0);
      return;
    case 'moleculer-responder':
      await startMoleculerResponder(natsUrl);
      send({ ready: true });
      return;
    case 'moleculer-web':
      send({ port: await startMoleculerWeb(natsUrl) });
      return;
    case 'plain':
      server = await startPlainForwarder(natsUrl, 'easer.get_/hello');
      break;
    case 'static':
      server = await startStaticAnswerer(PET);
      break;
    case 'express':
      server = await startExpressForwarder(natsUrl, 'easer.get_/hello', '/hello');
      break;
    case 'gateway': {
      const config = gatewayConfig(rest[0], rest.slice(1));
      const gateway = await startGateway(config, createLogger({ name: 'restbus-gateway', level: config.logLevel }));
      // The link connects in the background; wait until a call can go through before reporting ready (at once
      // without -u). With -m the gateway is ready at once: its body says whether NATS is connected.
      for (let i = 0; i < 100; i++) {
        const response = await fetch(`http://127.0.0.1:${gateway.port}/-/ready`);
        const body = (await response.json()) as { nats?: string };
        if (response.ok && (body.nats === undefined || body.nats === 'connected')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      server = gateway.server;
      break;
    }
    default:
      throw new Error(`unknown target ${kind}`);
  }
  send({ port: (server.address() as AddressInfo).port });
}

start().catch((err: unknown) => {
  process.stderr.write(`${kind}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
