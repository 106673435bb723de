/** What every system under test carries: the publisher's sequence number and clock (performance.now()) at send. */
export interface BenchEvent {
  seq: number;
  sentAt: number;
}

/** What a client set calls for each event one of its clients gets: the client's index and the event. */
export type Receive = (client: number, event: BenchEvent) => void;

/** What a client set calls for an event other than `message` (the gateway's `gap`, `reset`), with its data. */
export type ReceiveOther = (client: number, event: string, data: string) => void;

/** The clients of one system, connected; `close` ends them all. */
export interface ClientSet {
  /** Stops client `index` reading from its socket (the stalled client), where the transport allows it. */
  stall(index: number): void;
  /** Lets a stalled client read again. */
  resume(index: number): void;
  close(): Promise<void>;
}

export const SUBJECT = 'bench.events';

/** Padding so that each event is about 128 bytes of JSON, a small real-world change notification. */
export const DEFAULT_PAD = 80;

export function encodeBenchEvent(seq: number, sentAt: number, pad: string): string {
  return JSON.stringify({ seq, sentAt, pad });
}

/** Opens `count` clients `batch` at a time: a thousand connection attempts at once overflow the listen backlog. */
export async function openInBatches<T>(count: number, open: (index: number) => Promise<T>, batch = 50): Promise<T[]> {
  const opened: T[] = [];
  for (let first = 0; first < count; first += batch) {
    const indexes = Array.from({ length: Math.min(batch, count - first) }, (_, i) => first + i);
    opened.push(...(await Promise.all(indexes.map(open))));
  }
  return opened;
}
