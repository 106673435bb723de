// A child process of the bounds test: it holds many SSE clients, so that reading them costs the test's process
// nothing. It counts what each client got, never when (delivery times are the streams bench's). Node built-ins only: the test transpiles this file
// (transpileSseLoadClients) and forks it. Told what to do by IPC messages (LoadCommand), it answers LoadReply.
import { Agent, get, type IncomingMessage } from 'node:http';

export type LoadCommand =
  /** Opens `count` clients on `url`, 50 at a time; stalled ones read nothing until `resume`. */
  { type: 'open'; url: string; count: number; stalled: boolean } | { type: 'resume' } | { type: 'report' };

/** What one client saw. */
export interface ClientTally {
  stalled: boolean;
  status: number;
  messages: number;
  /** The `n` of the last message. */
  lastN: number;
  /** Messages whose `n` was not the previous one's plus one. */
  disorder: number;
  /** The `missed` of each gap event. */
  gaps: number[];
  /** True when the gateway ended the response. */
  ended: boolean;
}

export type LoadReply =
  | { type: 'opened'; statuses: number[] }
  | {
      type: 'report';
      /** Live messages (those marked `live`) to clients that were never stalled, all of them counted. */
      delivered: number;
      clients: ClientTally[];
    };

const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
let delivered = 0;
const tallies: ClientTally[] = [];
const stalledResponses: IncomingMessage[] = [];

function send(reply: LoadReply): void {
  process.send!(reply);
}

/** Reads one client's events: messages are `{"n":…}`, and `{"n":…,"live":true}` once all the clients are open. */
function read(res: IncomingMessage, tally: ClientTally, reading: boolean): void {
  let pending = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const eventAt = block.indexOf('event: ');
      if (eventAt < 0) continue;
      const name = block.slice(eventAt + 7, block.indexOf('\n', eventAt));
      const data = JSON.parse(block.slice(block.indexOf('data: ') + 6)) as {
        n?: number;
        live?: boolean;
        missed?: number;
      };
      // A reading client counts the live events only and the gaps among them: one that connects while the fill
      // still flows may get its tail, and a gap for it, before its first live event.
      if (name === 'gap') {
        if (!reading || tally.messages > 0) tally.gaps.push(data.missed ?? 0);
      } else if (name === 'message' && typeof data.n === 'number') {
        if (reading && data.live !== true) continue;
        if (reading) delivered++;
        if (tally.messages > 0 && data.n !== tally.lastN + 1) tally.disorder++;
        tally.messages++;
        tally.lastN = data.n;
      }
    }
  });
  res.on('end', () => (tally.ended = true));
  res.on('close', () => (tally.ended = true));
  res.on('error', () => undefined);
}

function open(url: string, stalled: boolean): Promise<number> {
  return new Promise((done) => {
    const request = get(url, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
      const tally: ClientTally = {
        stalled,
        status: res.statusCode ?? 0,
        messages: 0,
        lastN: -1,
        disorder: 0,
        gaps: [],
        ended: false,
      };
      tallies.push(tally);
      read(res, tally, !stalled);
      // Paused, the response stops reading its socket once its own buffer is full: the gateway's writes back up.
      if (stalled) {
        res.pause();
        stalledResponses.push(res);
      }
      done(tally.status);
    });
    request.on('error', () => done(0));
  });
}

process.on('message', (command: LoadCommand) => {
  if (command.type === 'open') {
    void (async () => {
      const statuses: number[] = [];
      for (let i = 0; i < command.count; i += 50) {
        const batch = Array.from({ length: Math.min(50, command.count - i) }, () => open(command.url, command.stalled));
        statuses.push(...(await Promise.all(batch)));
      }
      send({ type: 'opened', statuses });
    })();
  } else if (command.type === 'resume') {
    for (const res of stalledResponses) res.resume();
  } else {
    send({ type: 'report', delivered, clients: tallies });
  }
});
process.on('disconnect', () => process.exit(0));
