import type { AnswerContext, RouteAnswer } from './route-answer';

/** The method of a stateful collection or of its items: it answers from the state instead of the mock files. */
export function buildStatefulAnswer({ stateful, service, method }: AnswerContext): RouteAnswer | undefined {
  const handle = stateful?.handlerFor(service, method);
  if (!handle) return undefined;
  return {
    implemented: false,
    readsBody: method !== 'GET',
    usesSession: stateful?.perSession(service) === true,
    handle,
    // The state answers, never a mock file.
    templateChecks: [],
  };
}
