import { once } from 'node:events';
import { WebSocket } from 'ws';

/**
 * A full garbage collection in a Node process started with `--inspect=127.0.0.1:<port>`, asked over its inspector
 * (the Chrome DevTools protocol): its RSS then holds what is alive, not the garbage of the last seconds, which varies
 * by megabytes from one reading to the next. The session is closed at once, so the load runs without one.
 */
export async function collectGarbage(inspectorPort: number): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await once(socket, 'open');
  try {
    for (let id = 1; id <= 2; id++) {
      const answered = new Promise<void>((resolve) =>
        socket.on('message', (data: Buffer) => {
          if ((JSON.parse(data.toString()) as { id?: number }).id === id) resolve();
        }),
      );
      socket.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
      await answered;
    }
  } finally {
    socket.close();
  }
}
