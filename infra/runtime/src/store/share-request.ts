/**
 * Shares one request among every caller that asks while it is out, with one rule: a caller is answered by a
 * request sent after it asked. A caller arriving while a request is out waits for the next one, which all such
 * callers share; so at most two are in flight however many callers there are.
 */
export function shareRequest<R>(ask: () => Promise<R>): () => Promise<R> {
  let out: Promise<R> | undefined;
  let next: Promise<R> | undefined;
  const send = (): Promise<R> => {
    const request = ask();
    out = request;
    const settle = (): void => {
      if (out === request) out = undefined;
    };
    request.then(settle, settle);
    return request;
  };
  return () => {
    if (!out) return send();
    next ??= out
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        next = undefined;
        return send();
      });
    return next;
  };
}
