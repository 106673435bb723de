import { MissingPointerError, ParserError, ResolverError } from '@apidevtools/json-schema-ref-parser';
import { diagnoseLoadError, readParserFailure } from './diagnose-load-error';

describe('readParserFailure()', () => {
  it("reads the parser's own errors field by field", () => {
    const error = new ResolverError(Object.assign(new Error('refused'), { code: 'EREMOTE' }), '/api/a.yaml');
    error.path = ['paths', '/a', '$ref'];
    expect(readParserFailure(error)).toEqual({
      message: expect.stringContaining('refused'),
      code: 'ERESOLVER',
      path: ['paths', '/a', '$ref'],
      source: '/api/a.yaml',
      ioErrorCode: 'EREMOTE',
    });
  });

  it('keeps only the fields of the expected types', () => {
    expect(readParserFailure({ message: 'm', code: 7, path: ['a', 1, {}, null], source: null })).toEqual({
      message: 'm',
      code: undefined,
      path: ['a', 1],
      source: undefined,
    });
  });

  it('reads a thrown value that is no object as its text', () => {
    expect(readParserFailure('boom')).toEqual({ message: 'boom' });
    expect(readParserFailure(undefined)).toEqual({ message: 'undefined' });
  });
});

describe('diagnoseLoadError()', () => {
  it('gives a syntax error the file, line and column the parser names', () => {
    const error = new ParserError('bad indentation (3:5)\n  x: y', '/api/a.yaml');
    expect(diagnoseLoadError('/api/a.yaml', error)).toEqual({
      severity: 'error',
      file: '/api/a.yaml',
      line: 3,
      column: 5,
      path: '',
      message: 'not valid YAML or JSON: bad indentation',
    });
  });

  it('says a missing API file is missing, and names an unresolvable $ref where it is written', () => {
    const missing = new ResolverError(new Error('Error opening file /api/a.yaml: ENOENT: no such file'), '/api/a.yaml');
    expect(diagnoseLoadError('/api/a.yaml', missing).message).toBe('cannot read the API description: no such file');
    const pointer = new MissingPointerError('Pet', '/api/a.yaml#/definitions/Pet', '', '', '');
    pointer.path = ['paths', '/a', 'get'];
    expect(diagnoseLoadError('/api/a.yaml', pointer)).toMatchObject({
      severity: 'error',
      path: 'paths./a.get',
      message: expect.stringMatching(/^cannot resolve a \$ref: /),
    });
  });

  it("says a document nested past the parser's recursion nests too deeply, and a warning stays a warning", () => {
    expect(diagnoseLoadError('a.yaml', new RangeError('Maximum call stack size exceeded')).message).toBe(
      'nests too deeply to load (thousands of levels)',
    );
    expect(diagnoseLoadError('a.yaml', { code: 'ENOSOURCE', message: 'has no line numbers\nmore' })).toMatchObject({
      severity: 'warning',
      message: 'has no line numbers',
    });
  });

  it('falls back to the first line of any other message, and to "cannot be read" for none', () => {
    expect(diagnoseLoadError('a.yaml', new Error('odd\nstack')).message).toBe('odd');
    expect(diagnoseLoadError('a.yaml', { message: '   ' }).message).toBe('cannot be read');
  });
});
