import { isJsonMediaType } from './is-json-media-type';

describe('isJsonMediaType', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    ' application/problem+json ',
    'application/vnd.api+json;v=2',
  ])('says %j is JSON', (type) => expect(isJsonMediaType(type)).toBe(true));

  it.each([
    '',
    'text/json',
    'application/jsonp',
    'application/json-seq',
    'application/+json',
    'application/xml',
    'json',
  ])('says %j is not', (type) => expect(isJsonMediaType(type)).toBe(false));
});
