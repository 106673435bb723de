import { resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';

interface ParserFailure {
  message?: string;
  code?: string;
  details?: Array<{ instancePath?: string; message?: string; params?: Record<string, unknown> }>;
}

function describePointer(pointer: string): string {
  return pointer === '' ? '/' : pointer.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Turns what swagger-parser throws into one message naming the file, and the line or the location. */
export function describeLoadError(file: string, err: unknown): RestbusError {
  const failure = (err ?? {}) as ParserFailure;
  const message = String(failure.message ?? err);
  if (err instanceof RangeError && /call stack/i.test(message)) {
    // The parser recurses while resolving, before the nesting can be measured.
    return new RestbusError('OPENAPI_INVALID', `${file}: nests too deeply to load (thousands of levels)`, {
      cause: err,
    });
  }
  if (failure.code === 'EPARSER') {
    // "Error parsing <file>: <reason> (<line>:<column>)\n<excerpt>"
    const parsed = /^Error parsing (.*?): (.*?)(?: \((\d+):(\d+)\))?$/m.exec(message);
    const where = parsed?.[3] ? `${parsed[1]}:${parsed[3]}` : (parsed?.[1] ?? file);
    return new RestbusError('OPENAPI_INVALID', `${where}: ${parsed?.[2] ?? message.split('\n')[0]}`, { cause: err });
  }
  if (failure.code === 'ERESOLVER') {
    const notFound = /^Error opening file (.*?): ENOENT/.exec(message);
    if (notFound && resolve(notFound[1]) === resolve(file)) {
      return new RestbusError('OPENAPI_INVALID', `${file}: cannot read the API description: no such file`, {
        cause: err,
      });
    }
    return new RestbusError('OPENAPI_INVALID', `${file}: cannot resolve a $ref: ${message.split('\n')[0]}`, {
      cause: err,
    });
  }
  if (Array.isArray(failure.details) && failure.details.length > 0) {
    const problems = failure.details.map(
      (detail) => `${describePointer(detail.instancePath ?? '')}: ${detail.message ?? 'is invalid'}`,
    );
    return new RestbusError(
      'OPENAPI_INVALID',
      `${file}: not a valid API description: ${[...new Set(problems)].join('; ')}`,
      { cause: err },
    );
  }
  return new RestbusError(
    'OPENAPI_INVALID',
    `${file}: not a valid API description: ${message.split('\n').join(' ').trim()}`,
    { cause: err },
  );
}
