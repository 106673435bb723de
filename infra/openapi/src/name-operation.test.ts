import { nameOperation } from './name-operation';

describe('nameOperation()', () => {
  it('names an operation by its method and path segments in PascalCase, a parameter as By<Name>', () => {
    expect(nameOperation('GET', '/persons/{id}')).toBe('getPersonsById');
    expect(nameOperation('post', '/person-groups')).toBe('postPersonGroups');
    expect(nameOperation('delete', '/persons/{person_id}/groups/{groupId}')).toBe(
      'deletePersonsByPersonIdGroupsByGroupId',
    );
  });

  it('names the root path Root, and ignores empty segments and a trailing slash', () => {
    expect(nameOperation('get', '/')).toBe('getRoot');
    expect(nameOperation('get', '//persons//')).toBe('getPersons');
  });

  it('keeps digits and drops other characters, starting each word anew', () => {
    expect(nameOperation('get', '/v2/files.json')).toBe('getV2FilesJson');
    expect(nameOperation('get', '/2fa')).toBe('get2fa');
  });

  it('appends _2, _3 … while the name is taken', () => {
    expect(nameOperation('get', '/persons', new Set(['getPersons']))).toBe('getPersons_2');
    expect(nameOperation('get', '/persons', new Set(['getPersons', 'getPersons_2']))).toBe('getPersons_3');
    expect(nameOperation('get', '/persons', new Set(['getPersons_2']))).toBe('getPersons');
  });
});
