import { matchesMediaRange, mediaTypeOf } from './matches-media-range';

describe('matchesMediaRange', () => {
  it('matches a type, a range of its kind or any, without parameters and case', () => {
    expect(matchesMediaRange('image/png', 'image/png')).toBe(true);
    expect(matchesMediaRange('Image/PNG; q=1', 'image/jpeg, image/png')).toBe(true);
    expect(matchesMediaRange('image/gif', 'image/*')).toBe(true);
    expect(matchesMediaRange('text/plain', '*/*')).toBe(true);
  });

  it('does not match another type or another kind’s range', () => {
    expect(matchesMediaRange('image/gif', 'image/png, image/jpeg')).toBe(false);
    expect(matchesMediaRange('text/png', 'image/*')).toBe(false);
  });
});

describe('mediaTypeOf', () => {
  it('gives a media type without parameters, in lower case', () => {
    expect(mediaTypeOf('Multipart/Form-Data; boundary=x')).toBe('multipart/form-data');
    expect(mediaTypeOf(undefined)).toBe('');
  });
});
