import { compileInputChecks, type RequestMessage } from '@restbus/infra';
import { buildApiModel, type Dialect } from '@restbus/openapi';
import { toContract } from './render-contract';

/** A document with one GET /pets taking `name` (allowEmptyValue as given) and `tag` (none written) in the query. */
function contractOf(dialect: Dialect, allowEmptyValue?: boolean) {
  const written = allowEmptyValue === undefined ? {} : { allowEmptyValue };
  const parameters =
    dialect === '2.0'
      ? [
          { name: 'name', in: 'query', type: 'string', ...written },
          { name: 'tag', in: 'query', type: 'string' },
        ]
      : [
          { name: 'name', in: 'query', schema: { type: 'string' }, ...written },
          { name: 'tag', in: 'query', schema: { type: 'string' } },
        ];
  const document = {
    ...(dialect === '2.0' ? { swagger: '2.0' } : { openapi: dialect === '3.0' ? '3.0.3' : '3.1.0' }),
    info: { title: 'pets', version: '1' },
    paths: { '/pets': { get: { operationId: 'listPets', parameters, responses: { 200: { description: 'ok' } } } } },
  };
  return toContract(buildApiModel(document, { file: 'pets.json', dialect, topicPrefix: 'pets' }));
}

const query = (contract: ReturnType<typeof contractOf>) => contract.operations[0].parameters.query;

const ask = (contract: ReturnType<typeof contractOf>, values: Record<string, string>) =>
  compileInputChecks(contract).get('listPets')!({
    request: { cookies: {}, headers: {}, parameters: { uri: {}, query: values }, body: '' },
  } as unknown as RequestMessage);

describe("toContract: a query parameter's allowEmptyValue", () => {
  it('is written false for a Swagger 2.0 query parameter that does not allow an empty value, true where it does', () => {
    expect(query(contractOf('2.0', true))).toEqual([
      { name: 'name', required: false, schema: { type: 'string' }, allowEmptyValue: true },
      { name: 'tag', required: false, schema: { type: 'string' }, allowEmptyValue: false },
    ]);
  });

  it('makes the generated service refuse `?tag=` of a 2.0 document, and take `?name=` where it is allowed', () => {
    const contract = contractOf('2.0', true);
    expect(ask(contract, { name: '', tag: 'x' })).toMatchObject({ ok: true });
    expect(ask(contract, { tag: '' })).toMatchObject({
      ok: false,
      problems: [{ location: 'query.tag', message: 'must not be empty' }],
    });
  });

  it.each(['3.0', '3.1'] as const)(
    'leaves an empty value of an OpenAPI %s query parameter to its schema, allowEmptyValue written false or not',
    (dialect) => {
      const contract = contractOf(dialect, false);
      expect(query(contract).map((parameter) => parameter.allowEmptyValue)).toEqual([undefined, undefined]);
      expect(ask(contract, { name: '', tag: '' })).toMatchObject({ ok: true });
    },
  );
});
