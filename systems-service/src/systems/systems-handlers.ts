import { randomUUID } from 'node:crypto';
import {
  STALE_HEADER,
  describeInvalidId,
  describePage,
  jsonTextOf,
  readCheckedBody,
  readPageRequest,
  replyJson,
  type CallbackOperationHandler,
  type Collection,
} from '@restbus/infra';
import type { Operations } from '../generated/contract';
import type { NewSystem, System } from './system';

const locationOf = (id: string): string => `/systems/${encodeURIComponent(id)}`;

/** A JSON reply as every restbus reply is made (replyJson), its status and body kept as the contract types them. */
const json = <S extends number, B>(status: S, body: B, headers?: Record<string, string>) => ({
  ...replyJson(status, body, headers),
  status,
  body,
});

const refuse = (error: string) => json(400, { error, code: 'REQUEST_INVALID' });

/**
 * The systems handlers in the upstream style: `(data, cb)` with the whole request message, always answering
 * `cb(null, {status, headers, body})`, HTTP errors included; `cb(err)` is left for a broken store. The request's
 * parameters and body have been checked against systems-api.yml before a handler runs, and `cb` takes only the
 * replies the document declares for its operation.
 */
export function createSystemsHandlers(
  systems: Collection<System>,
  /** Bytes a reply's body may take (what fits in one NATS message): a list is cut into pages that fit. */
  replyRoom: () => number,
): {
  getSystems: CallbackOperationHandler<Operations['getSystems']>;
  postSystems: CallbackOperationHandler<Operations['postSystems']>;
  deleteSystems: CallbackOperationHandler<Operations['deleteSystems']>;
  getSystem: CallbackOperationHandler<Operations['getSystemsBySystemId']>;
} {
  return {
    getSystems({ request }, cb) {
      const wanted = readPageRequest(request, replyRoom());
      // The page's JSON text, encoded once while the list is unchanged, stands for its systems in the reply.
      systems
        .list(wanted)
        .then((page) => cb(null, json(200, jsonTextOf<System[]>(page.json), describePage(page, wanted))), cb);
    },

    postSystems(data, cb) {
      // The specification fixes this handler as `(data, cb)`, with the request message as `data`: the body the
      // contract's check parsed (valid JSON and a system) is read from it, not parsed again.
      const body: NewSystem = readCheckedBody<Operations['postSystems']>(data);
      const problem = body.id === undefined ? undefined : describeInvalidId(body.id);
      if (problem) {
        // Before anything is stored: such an id could not be put in a Location header or kept apart in the store.
        cb(null, refuse(`id: ${problem}`));
        return;
      }
      const system: System = { ...body, id: body.id ?? randomUUID() };
      systems.create(system.id, system).then((created) => {
        const location = locationOf(system.id);
        if (created) cb(null, json(201, system, { location }));
        else {
          const error = `a system with the id "${system.id}" already exists`;
          cb(null, json(409, { error, code: 'CONFLICT' }, { location }));
        }
      }, cb);
    },

    deleteSystems(_data, cb) {
      systems.clear().then(() => cb(null, { status: 204, headers: {} }), cb);
    },

    getSystem({ request }, cb) {
      const id = request.parameters.uri.systemId;
      const problem = describeInvalidId(id);
      if (problem) {
        cb(null, refuse(`systemId: ${problem}`));
        return;
      }
      systems.get(id).then(({ value: system, stale }) => {
        const headers: Record<string, string> = stale ? { [STALE_HEADER]: 'true' } : {};
        const notFound = () => json(404, { error: `no system has the id "${id}"`, code: 'NOT_FOUND' }, headers);
        cb(null, system ? json(200, system, headers) : notFound());
      }, cb);
    },
  };
}
