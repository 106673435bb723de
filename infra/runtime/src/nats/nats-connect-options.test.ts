import { toNatsServersAndAuth } from './nats-connect-options';

describe('toNatsServersAndAuth', () => {
  it('keeps plain URLs as they are, one server per comma-separated URL', () => {
    expect(toNatsServersAndAuth('nats://a:4222, b:4223')).toEqual({ servers: ['nats://a:4222', 'b:4223'] });
  });

  it('takes user and password out of the URL, so that the servers it logs carry no secret', () => {
    const result = toNatsServersAndAuth('nats://services:s%40cret@nats:4222,nats://services:s%40cret@nats2:4222');
    expect(result).toEqual({ servers: ['nats://nats:4222', 'nats://nats2:4222'], user: 'services', pass: 's@cret' });
    expect(JSON.stringify(result.servers)).not.toContain('cret');
  });

  it('takes a lone user part as a token', () => {
    expect(toNatsServersAndAuth(['tls://t0ken@host:4443'])).toEqual({ servers: ['tls://host:4443'], token: 't0ken' });
  });
});
