/** A schema written the way one OpenAPI dialect writes it, and values it takes and refuses as that dialect means. */
export interface DialectCase {
  /** What the dialect means, as a sentence. */
  says: string;
  dialect: '2.0' | '3.0' | '3.1';
  schema: Record<string, unknown>;
  accepts: unknown[];
  refuses: unknown[];
}

/**
 * The keywords OpenAPI 2.0, 3.0 and 3.1 read differently, as a table: every checker of requests and replies (the
 * gateway's --validate and reply checks, the generated services) is tested against it, so that they agree.
 */
export const DIALECT_CASES: readonly DialectCase[] = [
  {
    says: "2.0's exclusiveMaximum: true beside maximum excludes the bound",
    dialect: '2.0',
    schema: { type: 'integer', maximum: 5, exclusiveMaximum: true },
    accepts: [4],
    refuses: [5, 6, 'x'],
  },
  {
    says: "3.0's exclusiveMaximum: true beside maximum excludes the bound",
    dialect: '3.0',
    schema: { type: 'integer', maximum: 5, exclusiveMaximum: true },
    accepts: [4, -3],
    refuses: [5, 6, 'x'],
  },
  {
    says: "3.0's exclusiveMinimum: true beside minimum excludes the bound",
    dialect: '3.0',
    schema: { type: 'number', minimum: 0, exclusiveMinimum: true },
    accepts: [0.5, 7],
    refuses: [0, -1],
  },
  {
    says: "3.0's exclusiveMaximum: false keeps the bound",
    dialect: '3.0',
    schema: { type: 'integer', maximum: 5, exclusiveMaximum: false },
    accepts: [5],
    refuses: [6],
  },
  {
    says: "3.0's nullable: true adds null to the type",
    dialect: '3.0',
    schema: { type: 'string', nullable: true },
    accepts: ['a', null],
    refuses: [1],
  },
  {
    says: "3.0's nullable: true leaves an enum that does not list null refusing it",
    dialect: '3.0',
    schema: { type: 'string', nullable: true, enum: ['a', 'b'] },
    accepts: ['a'],
    refuses: [null, 'c'],
  },
  {
    says: "3.0's nullable: true with an enum that lists null takes it",
    dialect: '3.0',
    schema: { type: 'string', nullable: true, enum: ['a', null] },
    accepts: ['a', null],
    refuses: ['b'],
  },
  {
    says: "3.0's nullable: true beside allOf and no type takes null or else what allOf takes",
    dialect: '3.0',
    schema: { nullable: true, allOf: [{ type: 'object', required: ['id'] }] },
    accepts: [null, { id: 1 }],
    refuses: [{}, 'x'],
  },
  {
    says: "3.0's x-nullable is an extension that says nothing",
    dialect: '3.0',
    schema: { type: 'string', 'x-nullable': true },
    accepts: ['a'],
    refuses: [null],
  },
  {
    says: "2.0's x-nullable: true adds null to the type",
    dialect: '2.0',
    schema: { type: 'integer', 'x-nullable': true },
    accepts: [1, null],
    refuses: ['x'],
  },
  {
    says: '2.0 has no nullable: it says nothing there',
    dialect: '2.0',
    schema: { type: 'integer', nullable: true },
    accepts: [1],
    refuses: [null],
  },
  {
    says: "3.1's type list takes each type listed",
    dialect: '3.1',
    schema: { type: ['integer', 'null'] },
    accepts: [1, null],
    refuses: ['x', 1.5],
  },
  {
    says: "3.1's exclusiveMinimum is the bound itself, a number",
    dialect: '3.1',
    schema: { type: 'number', exclusiveMinimum: 0 },
    accepts: [0.1],
    refuses: [0, -1],
  },
  {
    says: "3.1's const takes its one value",
    dialect: '3.1',
    schema: { type: 'string', const: 'on' },
    accepts: ['on'],
    refuses: ['off'],
  },
  {
    says: '3.1 has no nullable: it says nothing there, beside a type or none',
    dialect: '3.1',
    schema: { type: 'integer', nullable: true },
    accepts: [1],
    refuses: [null],
  },
  {
    says: "3.1's $defs hold schemas that apply only where referenced",
    dialect: '3.1',
    schema: { type: 'integer', $defs: { never: { type: 'string' } } },
    accepts: [3],
    refuses: ['x'],
  },
];
