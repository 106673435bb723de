import { acceptsEventStream } from './create-stream-answers';

describe('acceptsEventStream', () => {
  it.each([
    ['text/event-stream', true],
    ['Text/Event-Stream', true],
    ['application/json, text/event-stream;q=0.5', true],
    [undefined, false],
    ['*/*', false],
    ['text/*', false],
    ['application/json', false],
    ['text/event-stream;q=0', false],
  ])('takes Accept %p as asking for a stream of an operation that also answers JSON: %p', (accept, expected) => {
    expect(acceptsEventStream(accept, false)).toBe(expected);
  });

  // `curl -N localhost:3007/persons/events` sends `Accept: */*`: an operation that answers nothing but the stream
  // streams to any client that does not ask for something else.
  it.each([
    [undefined, true],
    ['*/*', true],
    ['text/*', true],
    ['text/event-stream', true],
    ['application/json', false],
    ['text/event-stream;q=0, */*', false],
  ])('takes Accept %p as asking for a stream of an operation that answers only the stream: %p', (accept, expected) => {
    expect(acceptsEventStream(accept, true)).toBe(expected);
  });
});
