import { createStreamEvent } from './stream-event';

describe('createStreamEvent', () => {
  it('encodes an SSE event with its sequence as id, its name and its JSON data', () => {
    const event = createStreamEvent({ event: 'message', data: '{"a":1}', seq: 7 });
    expect(event.sse().toString()).toBe('id: 7\nevent: message\ndata: {"a":1}\n\n');
  });

  it('leaves the id out when the event has no sequence', () => {
    expect(createStreamEvent({ event: 'message', data: '1' }).sse().toString()).toBe('event: message\ndata: 1\n\n');
  });

  it('splits multi-line data into one data line per line, whatever the line ending', () => {
    const event = createStreamEvent({ event: 'message', data: '{\n  "a": 1,\r\n  "b": 2\r}' });
    expect(event.sse().toString()).toBe('event: message\ndata: {\ndata:   "a": 1,\ndata:   "b": 2\ndata: }\n\n');
  });

  it('encodes a WebSocket frame as JSON with id, event and the data as a value', () => {
    const event = createStreamEvent({ event: 'message', data: '{"a":[1,2]}', seq: 3 });
    expect(JSON.parse(event.ws().toString())).toEqual({ id: '3', event: 'message', data: { a: [1, 2] } });
    expect(JSON.parse(createStreamEvent({ event: 'gap', data: '{"missed":2}' }).ws().toString())).toEqual({
      event: 'gap',
      data: { missed: 2 },
    });
  });

  it('encodes each form once and shares the buffer among every client', () => {
    const event = createStreamEvent({ event: 'message', data: '{}', seq: 1 });
    expect(event.sse()).toBe(event.sse());
    expect(event.ws()).toBe(event.ws());
  });

  it('turns a payload that is not JSON into a JSON string, and an empty one into null', () => {
    expect(createStreamEvent({ event: 'message', payload: Buffer.from('plain text') }).data).toBe('"plain text"');
    expect(createStreamEvent({ event: 'message', payload: Buffer.alloc(0) }).data).toBe('null');
    expect(createStreamEvent({ event: 'message', payload: Buffer.from(' {"a":1} ') }).data).toBe(' {"a":1} ');
  });
});
