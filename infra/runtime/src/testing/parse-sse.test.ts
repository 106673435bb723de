import { createSseParser, type SseBlock } from './parse-sse';

const STREAM =
  'retry: 3000\n\n:\n\nid: 1\nevent: message\ndata: {"a":1}\n\nid: 2\r\ndata: two\r\ndata: lines\r\n\r\nevent: gap\ndata:{"missed":3}\n\n';

describe('createSseParser', () => {
  it('reads events split anywhere across chunks, with any line break, leaving out comments and data-less blocks', () => {
    // Every chunk size, so among the cuts one falls between the \r and the \n of a line break.
    for (let size = 1; size <= STREAM.length; size++) {
      const events: SseBlock[] = [];
      const parse = createSseParser((event) => events.push(event));
      for (let at = 0; at < STREAM.length; at += size) parse(STREAM.slice(at, at + size));
      expect(events).toEqual([
        { id: '1', event: 'message', data: '{"a":1}' },
        { id: '2', event: 'message', data: 'two\nlines' },
        { event: 'gap', data: '{"missed":3}' },
      ]);
    }
  });
});
