import type { ErrorObject } from 'ajv';

/** An ajv validate function, of whichever copy of ajv a program has. */
type Validate<E = Partial<ErrorObject>> = ((data: unknown) => boolean) & { errors?: E[] | null };

/**
 * One schema compiled twice: `first` by an ajv that stops at the first error, `all` by one that lists every error
 * (`allErrors`). Listing costs about 0.3 µs an error: 1 MiB of `[{},{},…]` against an item schema with a required
 * member has 350,000 of them and held the event loop for 80-140 ms, to build an answer of many megabytes.
 */
export interface ValidatorPair<V extends Validate<unknown> = Validate> {
  first: V;
  all: V;
}

/** The longest JSON text whose every error is listed: its errors cost at most a few milliseconds. */
export const LISTED_TEXT_LENGTH = 64 * 1024;

/**
 * The errors of a value against its schema, none when it is valid: every error of a value read from a text up to
 * LISTED_TEXT_LENGTH, the first error only of a larger one (`partial`), whose listing could cost more than the loop
 * can spare. A valid value costs one pass of the `first` validator, whatever its size.
 */
export function findSchemaErrors<E>(
  pair: ValidatorPair<Validate<E>>,
  value: unknown,
  textLength: number,
): { errors: E[]; partial: boolean } {
  if (pair.first(value)) return { errors: [], partial: false };
  if (textLength > LISTED_TEXT_LENGTH) return { errors: pair.first.errors ?? [], partial: true };
  pair.all(value);
  return { errors: pair.all.errors ?? [], partial: false };
}

/** The most problems an answer lists: enough to fix a request by, bounded whatever the request. */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * The message and problems of a REQUEST_INVALID answer: at most MAX_LISTED_PROBLEMS problems, and the message says
 * when some were left out (`partial`: only the first problem of a large body was looked for).
 */
export function describeRequestProblems<P>(
  message: string,
  problems: readonly P[],
  partial = false,
): { message: string; problems: P[] } {
  if (partial) {
    const size = `${LISTED_TEXT_LENGTH / 1024} KiB`;
    return {
      message: `${message} (the body is over ${size}: the first of its problems is listed)`,
      problems: [...problems].slice(0, MAX_LISTED_PROBLEMS),
    };
  }
  if (problems.length <= MAX_LISTED_PROBLEMS) return { message, problems: [...problems] };
  const total = problems.length.toLocaleString('en-US');
  return {
    message: `${message} (the first ${MAX_LISTED_PROBLEMS} of ${total} problems are listed)`,
    problems: problems.slice(0, MAX_LISTED_PROBLEMS),
  };
}
