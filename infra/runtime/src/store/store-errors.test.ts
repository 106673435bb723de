import { NatsError } from 'nats';
import { RestbusError } from '../errors/restbus-error';
import { isUnavailable, mayHaveBeenApplied, toStoreError } from './store-errors';

// The errors as nats.js gives them: JetStream's API errors carry the server's description and HTTP-like code.
const jetStreamError = (description: string, code: number): NatsError => new NatsError(description, String(code));

describe('how a store failure is told', () => {
  it('takes a write whose id JetStream is still storing (a slow route) for one to try again, which may have landed', () => {
    const inProcess = jetStreamError('duplicate message id is in process', 409);
    expect(isUnavailable(inProcess)).toBe(true);
    expect(mayHaveBeenApplied(inProcess)).toBe(true);
    expect(toStoreError(inProcess, 'persons')).toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('takes a leader election for one to try again that was not applied', () => {
    const election = jetStreamError('JetStream system temporarily unavailable', 503);
    expect(isUnavailable(election)).toBe(true);
    expect(mayHaveBeenApplied(election)).toBe(false);
  });

  it('keeps a refused expectation (a create that found the key taken) a failure of its own, not unavailability', () => {
    const taken = jetStreamError('wrong last sequence: 7', 400);
    expect(isUnavailable(taken)).toBe(false);
    expect(toStoreError(taken, 'persons')).toBe(taken);
    expect(toStoreError(new RestbusError('CONFLICT', 'taken'), 'persons')).toMatchObject({ code: 'CONFLICT' });
  });
});
