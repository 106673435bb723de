import { connect } from 'nats';
import { summarize, type LoadResult } from './load-result';

/** The raw NATS request/reply round trip: `concurrency` loops of `nc.request` for `seconds`, no HTTP at all. */
export async function measureRawNats(
  natsUrl: string,
  subject: string,
  concurrency: number,
  seconds: number,
): Promise<LoadResult> {
  const nc = await connect({ servers: natsUrl });
  const payload = JSON.stringify({ method: 'get', uri: '/hello', request: { headers: {}, body: '' } });
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < end) {
      const started = performance.now();
      await nc.request(subject, payload, { timeout: 2000 });
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - started) / 1000;
  await nc.close();
  return summarize(latencies, elapsed);
}
