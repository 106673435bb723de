import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PERSON_EVENTS_STREAM } from './person-events';

const document = parse(readFileSync(join(__dirname, '../../person-api.yml'), 'utf8')) as {
  paths: Record<string, Record<string, { 'x-restbus-stream'?: { subject: string; stream?: string } }>>;
};

it('declares GET /persons/events as the stream person-service publishes to, with the default topic prefix', () => {
  expect(document.paths['/persons/events'].get['x-restbus-stream']).toEqual({
    subject: 'easer.persons.events',
    stream: PERSON_EVENTS_STREAM,
  });
});
