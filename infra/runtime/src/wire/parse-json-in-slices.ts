/** How much text JSON.parse reads in one turn of the event loop: a few milliseconds even for the densest JSON. */
export const JSON_SLICE_LENGTH = 64 * 1024;

/** Lets the event loop serve other clients between two slices. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const isSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** A SyntaxError as JSON.parse throws it, at a position of the whole text. */
const malformed = (what: string, at: number): SyntaxError => new SyntaxError(`${what} in JSON at position ${at}`);

/**
 * What JSON.parse spends on a text, in nanoseconds on the 2-core machine CI runs on: about 0.3 µs an array or object
 * (whatever its depth), 25 ns a member, 5 ns a character.
 */
const estimateParse = (length: number, containers: number, commas: number, wideMembers = 0): number =>
  containers * 300 + commas * 25 + length * 5 + wideMembers * WIDE_MEMBER_NS;

/**
 * Past about a thousand names V8 keeps an object as a dictionary, and each further member costs JSON.parse some
 * 0.5 µs, not 25 ns: 650 KB of one object with 60,000 names took 33-45 ms in one call (measured on Node 20, 2 cores).
 */
const WIDE_OBJECT_MEMBERS = 1000;
const WIDE_MEMBER_NS = 550;

/**
 * Where each array and object of the text ends (`ends[open] = close`), in one pass that also finds unbalanced
 * brackets and unterminated strings (everything else that is wrong is left to JSON.parse on the pieces), and
 * whether JSON.parse may read the whole text at once.
 */
function findEnds(text: string, sliceLength: number): { ends: Int32Array; atOnce: boolean } {
  const ends = new Int32Array(text.length);
  const opens: number[] = [];
  // The members of each open container so far, beside `opens`: an object's past WIDE_OBJECT_MEMBERS cost more.
  const members: number[] = [];
  let containers = 0;
  let commas = 0;
  let wideMembers = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      for (i++; i < text.length; i++) {
        const inside = text.charCodeAt(i);
        if (inside === 0x5c) i++;
        else if (inside === 0x22) break;
      }
      if (i >= text.length) throw malformed('Unterminated string', start);
    } else if (c === 0x2c) {
      commas++;
      const top = opens.length - 1;
      if (top >= 0 && text.charCodeAt(opens[top]) === 0x7b && ++members[top] > WIDE_OBJECT_MEMBERS) wideMembers++;
    } else if (c === 0x5b || c === 0x7b) {
      opens.push(i);
      members.push(0);
      containers++;
    } else if (c === 0x5d || c === 0x7d) {
      members.pop();
      const open = opens.pop();
      if (open === undefined || text.charCodeAt(open) !== c - 2) throw malformed(`Unexpected token ${text[i]}`, i);
      ends[open] = i;
    }
  }
  if (opens.length > 0) throw malformed('Unexpected end of JSON input', text.length);
  // At most what a slice of the densest JSON costs (about 20 ms for 64 KiB): 1 MiB of plain records is about 10 ms.
  const cost = estimateParse(text.length, containers, commas, wideMembers);
  return { ends, atOnce: cost <= estimateParse(sliceLength, sliceLength, 0) };
}

/** Reads one JSON text in slices, see parseJsonInSlices. */
class SlicedParser {
  private readonly ends: Int32Array;
  /** Whether the text is cheap enough to parse in one call (most large texts are: few containers). */
  readonly atOnce: boolean;
  private readSinceTurn = 0;

  constructor(
    private readonly text: string,
    private readonly sliceLength: number,
  ) {
    ({ ends: this.ends, atOnce: this.atOnce } = findEnds(text, sliceLength));
  }

  async parseWhole(): Promise<unknown> {
    const start = this.skipSpace(0);
    const end = this.endOfValue(start, this.text.length);
    if (this.skipSpace(end) !== this.text.length) throw malformed('Unexpected non-whitespace character', end);
    return this.parseValue(start, end);
  }

  private skipSpace(at: number): number {
    while (at < this.text.length && isSpace(this.text.charCodeAt(at))) at++;
    return at;
  }

  /** Where the value that starts at `start` ends (exclusive): a container at its bracket, a scalar before `,` `]` `}`. */
  private endOfValue(start: number, limit: number): number {
    const c = this.text.charCodeAt(start);
    if (c === 0x5b || c === 0x7b) return this.ends[start] + 1;
    if (c === 0x22) return this.endOfString(start);
    let at = start;
    while (at < limit) {
      const next = this.text.charCodeAt(at);
      if (next === 0x2c || next === 0x5d || next === 0x7d || isSpace(next)) break;
      at++;
    }
    return at;
  }

  private endOfString(start: number): number {
    for (let at = start + 1; at < this.text.length; at++) {
      const c = this.text.charCodeAt(at);
      if (c === 0x5c) at++;
      else if (c === 0x22) return at + 1;
    }
    throw malformed('Unterminated string', start);
  }

  /** JSON.parse on a piece of the text, counting what was read so that a turn of the loop ends after a slice. */
  private async parsePiece(piece: string): Promise<unknown> {
    if (this.readSinceTurn >= this.sliceLength) {
      await nextTurn();
      this.readSinceTurn = 0;
    }
    this.readSinceTurn += piece.length;
    return JSON.parse(piece);
  }

  private async parseValue(start: number, end: number): Promise<unknown> {
    const c = this.text.charCodeAt(start);
    if (end - start <= this.sliceLength || (c !== 0x5b && c !== 0x7b)) {
      return this.parsePiece(this.text.slice(start, end));
    }
    return c === 0x5b ? this.parseArray(start, end) : this.parseObject(start, end);
  }

  /**
   * The members of a large container, in runs: members up to a slice's length are parsed together by one JSON.parse,
   * a member larger than a slice on its own (recursively). `readMember` returns where a member's value starts and
   * ends and where the next member starts; `addRun` and `addLarge` place what was parsed.
   */
  private async readMembers(
    open: number,
    close: number,
    readMember: (at: number) => { valueStart: number; valueEnd: number },
    addRun: (run: string) => Promise<void>,
    addLarge: (memberStart: number, valueStart: number, valueEnd: number) => Promise<void>,
  ): Promise<void> {
    let at = this.skipSpace(open + 1);
    if (at === close) return;
    let runStart = at;
    let runEnd = at;
    let afterLarge = false;
    const flush = async (): Promise<void> => {
      if (runEnd > runStart) await addRun(this.text.slice(runStart, runEnd));
    };
    for (;;) {
      const memberStart = at;
      const { valueStart, valueEnd } = readMember(at);
      if (valueEnd === valueStart) throw malformed(`Unexpected token ${this.text[valueStart] ?? ''}`, valueStart);
      afterLarge = valueEnd - valueStart > this.sliceLength;
      if (afterLarge) {
        await flush();
        await addLarge(memberStart, valueStart, valueEnd);
        runStart = valueEnd;
      } else if (valueEnd - runStart > this.sliceLength) {
        await flush();
        runStart = memberStart;
      }
      runEnd = valueEnd;
      at = this.skipSpace(valueEnd);
      const next = this.text.charCodeAt(at);
      if (at === close) break;
      if (next !== 0x2c) throw malformed(`Unexpected token ${this.text[at] ?? ''}`, at);
      at = this.skipSpace(at + 1);
      if (at === close) throw malformed(`Unexpected token ${this.text[at]}`, at);
      // A run never starts with the comma that ends the large member before it.
      if (afterLarge) runStart = at;
    }
    await flush();
  }

  private async parseArray(open: number, close: number): Promise<unknown[]> {
    const items: unknown[] = [];
    await this.readMembers(
      open,
      close - 1,
      (at) => ({ valueStart: at, valueEnd: this.endOfValue(at, close) }),
      async (run) => {
        for (const item of (await this.parsePiece(`[${run}]`)) as unknown[]) items.push(item);
      },
      async (_member, valueStart, valueEnd) => {
        items.push(await this.parseValue(valueStart, valueEnd));
      },
    );
    return items;
  }

  private async parseObject(open: number, close: number): Promise<Record<string, unknown>> {
    // The first run's object is the result: what later runs add is copied onto it.
    let members: Record<string, unknown> | undefined;
    // As JSON.parse: `__proto__` is a member like any other, and a repeated name keeps its place and its last value.
    const place = (target: Record<string, unknown>, name: string, value: unknown): void => {
      if (name === '__proto__') {
        Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
      } else target[name] = value;
    };
    await this.readMembers(
      open,
      close - 1,
      (at) => {
        if (this.text.charCodeAt(at) !== 0x22) throw malformed(`Unexpected token ${this.text[at]}`, at);
        const colon = this.skipSpace(this.endOfString(at));
        if (this.text.charCodeAt(colon) !== 0x3a) throw malformed(`Unexpected token ${this.text[colon] ?? ''}`, colon);
        const valueStart = this.skipSpace(colon + 1);
        return { valueStart, valueEnd: this.endOfValue(valueStart, close) };
      },
      async (run) => {
        const parsed = (await this.parsePiece(`{${run}}`)) as Record<string, unknown>;
        if (!members) members = parsed;
        else for (const name of Object.keys(parsed)) place(members, name, parsed[name]);
      },
      async (member, valueStart, valueEnd) => {
        const name = JSON.parse(this.text.slice(member, this.endOfString(member))) as string;
        members ??= {};
        place(members, name, await this.parseValue(valueStart, valueEnd));
      },
    );
    return members ?? {};
  }
}

/**
 * JSON.parse without holding the event loop: the same value, or a SyntaxError for the same texts. JSON.parse alone
 * takes 100-170 ms for 1 MiB of small nested arrays (about 0.3 µs a container) while other clients wait. A text
 * longer than a slice whose parse would be that costly is parsed a slice at a time, with a turn of the loop between
 * slices, about 1.5x JSON.parse's time in all; the longest wait is one slice's parse. Short texts (most bodies) and
 * long ones of few containers go to JSON.parse at once.
 */
export async function parseJsonInSlices(text: string, sliceLength = JSON_SLICE_LENGTH): Promise<unknown> {
  if (text.length <= sliceLength) return JSON.parse(text);
  return oneAtATime(async () => {
    const parser = new SlicedParser(text, sliceLength);
    // A turn between the scan and the parse: each is a few milliseconds of a large text.
    await nextTurn();
    return parser.atOnce ? JSON.parse(text) : parser.parseWhole();
  });
}

/** The end of the last large parse queued: the next one starts after it. */
let lastLarge: Promise<unknown> = Promise.resolve();

/**
 * Runs the large parses of the process one after the other, in the order they came. Interleaved, four 1 MiB bodies
 * of `{}` would each hold their half-built value (some 21 MB of heap each) at once; one at a time, a single one is
 * half-built, and the CPU they need is the same. Small requests still run between the slices.
 */
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = lastLarge.then(work, work);
  lastLarge = run.catch(() => undefined);
  return run;
}
