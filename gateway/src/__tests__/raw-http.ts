import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes to a server and reads one HTTP response (the server closes the connection after it). */
export function sendRaw(port: number, request: string | Buffer, timeoutMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no complete response within ${timeoutMs} ms to ${JSON.stringify(String(request).slice(0, 80))}`),
      );
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may close while we are still writing a body it refused; the response is what counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      if (!head || split < 0) {
        reject(
          new Error(
            `not an HTTP response: ${JSON.stringify(text.slice(0, 200))} to ${JSON.stringify(String(request).slice(0, 80))}`,
          ),
        );
        return;
      }
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, split).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(head[1]),
        headers,
        body: Buffer.from(text.slice(split + 4), 'latin1').toString('utf8'),
      });
    });
    socket.write(request);
  });
}
