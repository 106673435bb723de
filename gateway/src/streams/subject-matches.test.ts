import { subjectMatches } from './subject-matches';

describe('subjectMatches', () => {
  it('matches literal tokens exactly, * one token and a last > one or more', () => {
    expect(subjectMatches('persons.events', 'persons.events')).toBe(true);
    expect(subjectMatches('persons.events', 'persons.events.1')).toBe(false);
    expect(subjectMatches('persons.*', 'persons.events')).toBe(true);
    expect(subjectMatches('persons.*', 'persons.events.1')).toBe(false);
    expect(subjectMatches('*.events.*', 'persons.events.7')).toBe(true);
    expect(subjectMatches('persons.>', 'persons.events.1')).toBe(true);
    expect(subjectMatches('persons.>', 'persons')).toBe(false);
    expect(subjectMatches('>', 'anything.at.all')).toBe(true);
    expect(subjectMatches('orders.>', 'persons.events')).toBe(false);
  });
});
