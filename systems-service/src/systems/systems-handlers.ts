import { randomUUID } from 'node:crypto';
import {
  STALE_HEADER,
  describeInvalidId,
  describePage,
  readPageRequest,
  replyError,
  replyJson,
  type Callback,
  type Collection,
  type RequestMessage,
} from '@restbus/infra';
import { parseNewSystem, type System } from './system';

const locationOf = (id: string): string => `/systems/${encodeURIComponent(id)}`;

type SystemsHandler = (data: RequestMessage, cb: Callback) => void;

/**
 * The systems handlers in the upstream style: `(data, cb)` with the whole request message, always answering
 * `cb(null, {status, headers, body})`, HTTP errors included. `cb(err)` is left for a broken store.
 */
export function createSystemsHandlers(
  systems: Collection<System>,
  /** Bytes a reply's body may take (what fits in one NATS message): a list is cut into pages that fit. */
  replyRoom: () => number,
): Record<'getSystems' | 'postSystems' | 'deleteSystems' | 'getSystem', SystemsHandler> {
  return {
    getSystems({ request }, cb) {
      const wanted = readPageRequest(request, replyRoom());
      systems.list(wanted).then((page) => cb(null, replyJson(200, page.json, describePage(page, wanted))), cb);
    },

    postSystems({ request }, cb) {
      const parsed = parseNewSystem(request);
      if (!parsed.ok) {
        cb(null, replyError('REQUEST_INVALID', parsed.error));
        return;
      }
      const problem = parsed.value.id === undefined ? undefined : describeInvalidId(parsed.value.id);
      if (problem) {
        // Before anything is stored: such an id could not be put in a Location header or kept apart in the store.
        cb(null, replyError('REQUEST_INVALID', `id: ${problem}`));
        return;
      }
      const system: System = { ...parsed.value, id: parsed.value.id ?? randomUUID() };
      systems.create(system.id, system).then((created) => {
        if (created) cb(null, replyJson(201, system, { location: locationOf(system.id) }));
        else
          cb(
            null,
            replyError('CONFLICT', `a system with the id "${system.id}" already exists`, {
              location: locationOf(system.id),
            }),
          );
      }, cb);
    },

    deleteSystems(_data, cb) {
      systems.clear().then(() => cb(null, { status: 204, headers: {} }), cb);
    },

    getSystem({ request }, cb) {
      const id = request.parameters.uri.systemId;
      const problem = describeInvalidId(id);
      if (problem) {
        cb(null, replyError('REQUEST_INVALID', `systemId: ${problem}`));
        return;
      }
      systems.get(id).then(({ value: system, stale }) => {
        const headers: Record<string, string> = stale ? { [STALE_HEADER]: 'true' } : {};
        cb(
          null,
          system ? replyJson(200, system, headers) : replyError('NOT_FOUND', `no system has the id "${id}"`, headers),
        );
      }, cb);
    },
  };
}
