import { createLogger, createNatsLink, loadConfig, openBucket, RestbusError, toNatsLinkOptions } from '@restbus/infra';
import { keysProgram, type KeysConfig } from './keys-program';
import { runKeysCommand } from './run-keys-command';

/** How long the command waits for NATS before it gives up (a gateway waits forever; a person at a terminal does not). */
const CONNECT_WAIT_MS = 10_000;

/** `restbus-gateway keys <action> [name]`: connects to NATS, runs the action on the bucket, sets the exit code. */
export async function runKeys(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const config = loadConfig<KeysConfig>(keysProgram, { argv, env });
  // A reader that went away (`| head`) is no crash: the exit code says the output was not all taken.
  process.stdout.on('error', () => void (process.exitCode = 1));
  const logger = createLogger({ name: 'restbus-gateway keys', level: 'error' });
  const link = createNatsLink({ ...toNatsLinkOptions(config), name: 'restbus-gateway keys', logger });
  let timer: NodeJS.Timeout | undefined;
  try {
    const unreachable = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new RestbusError(
              'NATS_UNAVAILABLE',
              `NATS cannot be reached within ${CONNECT_WAIT_MS / 1000} s (see -n, --natsUri)`,
            ),
          ),
        CONNECT_WAIT_MS,
      );
    });
    const nc = await Promise.race([link.ready(), unreachable]);
    const kv = await openBucket(nc, config.authKeyBucket, { logger });
    process.exitCode = await runKeysCommand(kv, config, (line) => process.stdout.write(`${line}\n`));
  } finally {
    clearTimeout(timer);
    await link.drain();
  }
}
