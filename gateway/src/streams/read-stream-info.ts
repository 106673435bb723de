import { NatsError, type JetStreamManager, type StreamInfo } from 'nats';

/** The wait between two attempts to read a stream's info that JetStream did not answer. */
const READ_RETRY_MS = 250;

/**
 * A stream's info, asked again while JetStream does not answer (a request timed out, had no responders, or was on a
 * connection the link left, which fails what is pending on it), for up to `withinMs`; an answer that is an error
 * (no such stream, say) is thrown at once. `jsm` should time out soon (1 s): a request lost in a move or an
 * election is not waited for as long as nats.js' 5 s.
 *
 * Why: a client resuming just as its gateway left a server in lame duck mode had its stream ended with
 * STORE_UNAVAILABLE, the info request failing as the connection it was on closed.
 */
export async function readStreamInfo(
  jsm: JetStreamManager,
  stream: string,
  options: { withinMs: number; wanted?: () => boolean },
): Promise<StreamInfo> {
  const started = Date.now();
  for (;;) {
    try {
      return await jsm.streams.info(stream);
    } catch (err) {
      const answered = err instanceof NatsError && err.isJetStreamError();
      if (answered || Date.now() - started >= options.withinMs || options.wanted?.() === false) throw err;
      await new Promise((resolve) => setTimeout(resolve, READ_RETRY_MS));
    }
  }
}
