import { connect, type Msg, type NatsConnection } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { recordHostileCounts, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startTestGateway, testEndpoint, type TestGateway } from '../__tests__/start-test-gateway';

let server: TestNatsServer;
let link: NatsLink;
let gateway: TestGateway;
let service: NatsConnection;
let rogue: NatsConnection;

const REAL = JSON.stringify({ status: 200, body: 'from the real service' });
const FORGED = JSON.stringify({ status: 200, body: 'forged' });

beforeAll(async () => {
  server = await startNatsServer();
  link = createNatsLink({ servers: server.url, name: 'reply-subjects', logger: pino({ level: 'silent' }) });
  await link.ready();
  gateway = await startTestGateway([testEndpoint('get', '/items'), testEndpoint('get', '/mine')], {
    link,
    timeoutMs: 5000,
  });
  service = await connect({ servers: server.url });
  rogue = await connect({ servers: server.url });
});
afterAll(async () => {
  await gateway?.close();
  await link?.drain();
  await service?.close();
  await rogue?.close();
  await server?.dispose();
});

/**
 * The subjects a rogue would try after seeing `reply`: the last run of letters and digits of its last token read
 * as a number (base 10, 16 and 36, where it reads as one) and counted `reach` up and down, the rest kept.
 */
function predictSubjects(reply: string, reach: number): string[] {
  const match = /^(.*?)([0-9A-Za-z]+)$/.exec(reply);
  if (!match) return [];
  const [, head, run] = match;
  const subjects = new Set<string>();
  for (const radix of [10, 16, 36]) {
    const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, radix);
    const lower = run.toLowerCase();
    if (![...lower].every((char) => digits.includes(char))) continue;
    const upper = run !== lower;
    let value = 0n;
    for (const char of lower) value = value * BigInt(radix) + BigInt(digits.indexOf(char));
    for (let step = 1; step <= reach; step++) {
      for (const guess of [value + BigInt(step), value - BigInt(step)]) {
        if (guess < 0n) continue;
        let text = guess.toString(radix);
        // Keep the width of a fixed-width field (a hex group of a UUID), and its case.
        if (text.length < run.length && run.startsWith('0')) text = text.padStart(run.length, '0');
        if (radix === 16 && text.length < run.length) text = text.padStart(run.length, '0');
        subjects.add(`${head}${upper ? text.toUpperCase() : text}`);
      }
    }
  }
  subjects.delete(reply);
  return [...subjects];
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('reply subjects of the calls the gateway forwards', () => {
  it("never lets a rogue service that sees its own calls' reply subjects answer calls meant for another service", async () => {
    const ROUNDS = 10;
    const REACH = 50;
    // The real service of /items answers after 150 ms, so that a forged reply always has time to come first.
    const real = service.subscribe('easer.get_/items', {
      callback: (_err, msg) => setTimeout(() => msg.respond(REAL), 150),
    });
    let forgedPublishes = 0;
    const later = new Set<NodeJS.Timeout>();
    // The rogue answers its own route, and from each reply subject it sees predicts others and answers them too.
    const forging = rogue.subscribe('easer.get_/mine', {
      callback: (_err, msg: Msg) => {
        msg.respond(JSON.stringify({ status: 200, body: 'mine' }));
        const guesses = predictSubjects(msg.reply!, REACH);
        // Once now (calls published before this one) and once a little later (calls published after it).
        const forge = (): void => {
          for (const subject of guesses) rogue.publish(subject, FORGED);
          forgedPublishes += guesses.length;
        };
        forge();
        const timer = setTimeout(() => {
          later.delete(timer);
          forge();
        }, 30);
        later.add(timer);
      },
    });
    await Promise.all([service.flush(), rogue.flush()]);
    const get = async (path: string): Promise<string> => {
      const response = await fetch(`${gateway.url}${path}`);
      return `${response.status} ${await response.text()}`;
    };
    const answers: string[] = [];
    const own: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const before = Array.from({ length: 10 }, () => get('/items'));
        await pause(20);
        const mine = get('/mine');
        const after = Array.from({ length: 10 }, () => get('/items'));
        answers.push(...(await Promise.all([...before, ...after])));
        own.push(await mine);
      }
      while (later.size > 0) await pause(10);
      await Promise.all([service.flush(), rogue.flush()]);
    } finally {
      for (const timer of later) clearTimeout(timer);
      real.unsubscribe();
      forging.unsubscribe();
    }
    const forged = answers.filter((answer) => answer !== '200 from the real service');
    recordHostileCounts('gateway: forged replies on predicted reply subjects', {
      tried: { requests: answers.length + own.length, forgedPublishes },
      found: { forgedAnswers: forged.length },
    });
    expect(forged).toEqual([]);
    expect(own).toEqual(Array(ROUNDS).fill('200 mine'));
    expect(forgedPublishes).toBeGreaterThanOrEqual(ROUNDS * REACH * 2);
    expect(answers).toHaveLength(ROUNDS * 20);
  });

  it('share no guessable sequence: each call has its own token with at least 64 bits that vary', async () => {
    const replies: string[] = [];
    const recorder = service.subscribe('easer.get_/items', {
      callback: (_err, msg) => {
        replies.push(msg.reply!);
        msg.respond(REAL);
      },
    });
    await service.flush();
    try {
      for (let batch = 0; batch < 10; batch++) {
        const bodies = await Promise.all(
          Array.from({ length: 100 }, () => fetch(`${gateway.url}/items`).then((response) => response.text())),
        );
        expect(bodies).toEqual(Array(100).fill('from the real service'));
      }
    } finally {
      recorder.unsubscribe();
    }
    // A call whose reply is late is sent once more with the same reply subject (hedged): count each call once.
    expect(new Set(replies).size).toBe(1000);
    // The inbox the calls share, then each call's own token.
    const inbox = replies[0].slice(0, replies[0].lastIndexOf('.') + 1);
    expect(replies.every((reply) => reply.startsWith(inbox))).toBe(true);
    const tokens = replies.map((reply) => reply.slice(inbox.length));
    // Bits that vary from call to call, counted per character position (from the end): a counter varies in its
    // last few characters only, whatever its base; a random token in each.
    const width = Math.max(...tokens.map((token) => token.length));
    let bits = 0;
    for (let position = 1; position <= width; position++) {
      const seen = new Set(tokens.map((token) => token[token.length - position] ?? ''));
      bits += Math.log2(seen.size);
    }
    expect(bits).toBeGreaterThanOrEqual(64);
  });
});
