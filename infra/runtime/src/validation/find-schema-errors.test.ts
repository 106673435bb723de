import Ajv from 'ajv';
import {
  describeRequestProblems,
  findSchemaErrors,
  LISTED_TEXT_LENGTH,
  MAX_LISTED_PROBLEMS,
} from './find-schema-errors';

const schema = { type: 'array', items: { type: 'object', required: ['name'] } };
const pair = {
  first: new Ajv({ allErrors: false }).compile(schema),
  all: new Ajv({ allErrors: true }).compile(schema),
};
const items = (count: number): unknown[] => Array.from({ length: count }, () => ({}));

describe('findSchemaErrors', () => {
  it('finds no error in a valid value', () => {
    expect(findSchemaErrors(pair, [{ name: 'a' }], 20)).toEqual({ errors: [], partial: false });
  });

  it('lists every error of a value read from a text up to the listed length', () => {
    const { errors, partial } = findSchemaErrors(pair, items(300), LISTED_TEXT_LENGTH);
    expect([errors.length, partial]).toEqual([300, false]);
  });

  it('stops at the first error of a value read from a longer text, and says so', () => {
    const { errors, partial } = findSchemaErrors(pair, items(300_000), LISTED_TEXT_LENGTH + 1);
    expect([errors.length, errors[0].instancePath, partial]).toEqual([1, '/0', true]);
  });
});

describe('describeRequestProblems', () => {
  const problem = (i: number) => ({ location: `body/${i}`, message: 'is required' });

  it('lists up to the most problems as they are', () => {
    const problems = Array.from({ length: MAX_LISTED_PROBLEMS }, (_, i) => problem(i));
    expect(describeRequestProblems('wrong', problems)).toEqual({ message: 'wrong', problems });
  });

  it('lists the first of many problems and says how many there were', () => {
    const problems = Array.from({ length: 12_345 }, (_, i) => problem(i));
    const described = describeRequestProblems('wrong', problems);
    expect(described.message).toBe(`wrong (the first ${MAX_LISTED_PROBLEMS} of 12,345 problems are listed)`);
    expect(described.problems).toEqual(problems.slice(0, MAX_LISTED_PROBLEMS));
  });

  it('says when only the first problem of a large body was looked for', () => {
    expect(describeRequestProblems('wrong', [problem(0)], true).message).toBe(
      'wrong (the body is over 64 KiB: the first of its problems is listed)',
    );
  });
});
